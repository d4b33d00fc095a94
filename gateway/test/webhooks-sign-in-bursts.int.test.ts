/**
 * The webhook event user.sign_in_failed_burst end to end: failed sign-ins naming one account, counted by the
 * gateway where it already counts them for the audit log (docs/adr/0032-security-events-reported-by-gateway.md),
 * reach a real receiver verifying with `standardwebhooks` once per burst, not once per failure, with the
 * user's id, the count, the window and the client IPs, never the password; the client's answers are those
 * of any wrong password, and a burst naming no account sends nothing.
 */
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { startReceiver } from "./webhook-receiver.js";

const receiver = await startReceiver();
const WINDOW_SECONDS = 300;

describe(`sign-in failure bursts as webhooks (${backendLabel()})`, () => {
  const platform = usePlatform({
    env: { GATEWAY_FAILURE_BURST_THRESHOLD: "3", GATEWAY_FAILURE_BURST_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    serviceEnv: { notification: { NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" } },
  });
  let admin: WebhookServiceClient;
  beforeAll(() => {
    admin = createGrpcClient(WebhookServiceClient, platform.env.NOTIFICATION_SERVICE_URL!, { tls: platform.grpcTls("admin"), serverName: "notification" });
  });
  afterAll(async () => {
    admin?.close();
    await receiver.close();
  });

  /** A wrong sign-in from its own client IP (the gateway believes X-Forwarded-For from loopback). */
  const wrongSignIn = (email: string, ip: string) => new TestClient(platform.baseURL, { "x-forwarded-for": ip }).post("/sign-in/email", { email, password: "not-the-password-42" });

  it("one event per burst of an account's failed sign-ins, with its user, count, window and IPs; nothing for an unknown address", async () => {
    const { endpoint, secret } = await call(admin, admin.createWebhookEndpoint, {
      url: `${receiver.origin}/bursts`,
      eventTypes: ["user.sign_in_failed_burst"],
      description: "bursts",
    });
    receiver.secrets.set("/bursts", secret);
    const email = uniqueEmail("burst");
    const signedUp = await platform.client().post("/sign-up/email", { name: "Burst", email, password: "password-123" });
    expect(signedUp.status).toBe(200);
    const userId = signedUp.body.user.id as string;
    // At the start of a window, so the failures below all fall in one.
    const windowMs = WINDOW_SECONDS * 1000;
    platform.clock.advance(windowMs - (Date.now() % windowMs) + 1);

    const unknown = uniqueEmail("nobody");
    const unknownAnswers = [];
    for (let i = 1; i <= 3; i++) unknownAnswers.push(await wrongSignIn(unknown, `198.51.100.${i}`));
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await wrongSignIn(email, `203.0.113.${i}`));
    // What the client sees is any wrong password's answer, for a known and an unknown address alike.
    for (const answer of [...unknownAnswers, ...answers]) expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });

    const delivered = await eventually(async () => {
      const got = receiver.received.filter((r) => r.path === "/bursts");
      expect(got).toHaveLength(1);
      return got[0]!;
    });
    expect(delivered.verified).toMatchObject({
      type: "user.sign_in_failed_burst",
      data: { userId, failures: 3, windowSeconds: WINDOW_SECONDS, ipAddresses: ["203.0.113.1", "203.0.113.2", "203.0.113.3"] },
    });
    expect(delivered.body).not.toContain("not-the-password-42");
    // Published from identity's outbox, which is empty once notification took it; the burst's later failures sent nothing more.
    await eventually(async () => expect(await platform.services.identity.deps.store.findUserEvents(userId)).toEqual([]));
    await eventually(async () =>
      expect((await call(admin, admin.listWebhookDeliveries, { endpointId: endpoint!.id, limit: 50 })).deliveries.map((d) => `${d.eventType} ${d.status}`)).toEqual([
        "user.sign_in_failed_burst delivered",
      ]),
    );
    expect(receiver.received.filter((r) => r.path === "/bursts")).toHaveLength(1);
  });
});
