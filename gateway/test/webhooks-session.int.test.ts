/**
 * The session service's webhook events on the whole platform (docs/adr/0077-signed-webhooks.md):
 * session.created and session.revoked written to the session service's outbox with the change and published
 * to the notification service, reaching a real receiver that verifies each with the `standardwebhooks`
 * package, once, with ids and public fields only. With the notification service stopped, a sign-in and a
 * sign-out are answered as usual and their events delivered once after it restarts.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { type RunningNotification, startNotification } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";

type SessionData = { session: { id: string; userId: string; authMethod: string | null; ipAddress: string | null; userAgent: string | null } };
type RevokedData = { userId: string; sessionIds: string[]; reason: string };

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  verified: { type: string; timestamp: string; data: SessionData | RevokedData } | Error;
}

/** A receiver verifying every delivery with the endpoint's secret. */
async function startReceiver() {
  const received: Received[] = [];
  const hook = { secret: "whsec_bm9uZQ==" };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let verified: Received["verified"];
      try {
        verified = new Webhook(hook.secret).verify(body, req.headers as Record<string, string>) as Received["verified"];
      } catch (error) {
        verified = error as Error;
      }
      received.push({ headers: req.headers, body, verified });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sessions`,
    received,
    hook,
    /** The verified events of this user, as [type, data]. */
    of(userId: string) {
      return received.flatMap((r) => {
        if (r.verified instanceof Error) return [];
        const data = r.verified.data;
        const owner = "session" in data ? data.session.userId : data.userId;
        return owner === userId ? [{ type: r.verified.type, data, id: r.headers["webhook-id"] as string, body: r.body }] : [];
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const receiver = await startReceiver();
let restarted: RunningNotification | undefined;

describe(`session webhook events (${backendLabel()})`, () => {
  const notificationEnv = { NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" };
  const platform = usePlatform({ serviceEnv: { notification: notificationEnv } });
  let admin: WebhookServiceClient;
  beforeAll(async () => {
    admin = createGrpcClient(WebhookServiceClient, platform.env.NOTIFICATION_SERVICE_URL!, { tls: platform.grpcTls("admin"), serverName: "notification" });
    const { secret } = await call(admin, admin.createWebhookEndpoint, { url: receiver.url, eventTypes: ["session.created", "session.revoked"], description: "sessions" });
    receiver.hook.secret = secret;
  });
  afterAll(async () => {
    admin?.close();
    await restarted?.close();
    await receiver.close();
  });

  /** A user signed up (its first session), then signed in again from a named browser: [userId, second client]. */
  async function signedInTwice() {
    const email = uniqueEmail("sess-hook");
    const first = platform.client();
    const up = await first.post("/sign-up/email", { name: "Hook", email, password: "password-123" });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const second = platform.client();
    const signIn = await second.post("/sign-in/email", { email, password: "password-123" }, { "user-agent": "HookTest/1.0" });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    const current = await second.get("/get-session");
    return { userId: up.body.user.id as string, sessionId: current.body.session.id as string, token: current.body.session.token as string, client: second };
  }

  it("a sign-in and a sign-out each reach the receiver once, signed, with ids and public fields and never the token", async () => {
    const { userId, sessionId, token, client } = await signedInTwice();
    expect((await client.post("/sign-out", {})).status).toBe(200);
    const events = await eventually(async () => {
      const got = receiver.of(userId);
      expect(got.map((e) => e.type).sort()).toEqual(["session.created", "session.created", "session.revoked"]);
      return got;
    });
    const created = events.find((e) => e.type === "session.created" && (e.data as SessionData).session.id === sessionId);
    expect(created?.data).toMatchObject({ session: { id: sessionId, userId, authMethod: "password", userAgent: "HookTest/1.0" } });
    expect(events.find((e) => e.type === "session.revoked")?.data).toEqual({ userId, sessionIds: [sessionId], reason: "sign-out" });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    for (const event of events) expect(event.body).not.toContain(token);
    // Published and removed from the session service's outbox.
    await eventually(async () => expect(await platform.services.session.deps.store.findSessionEvents(userId)).toEqual([]));
  });

  it("a password change that ends the other sessions says so", async () => {
    const { userId, sessionId, client } = await signedInTwice();
    const changed = await client.post("/change-password", { currentPassword: "password-123", newPassword: "password-456", revokeOtherSessions: true });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const revoked = await eventually(async () => {
      const got = receiver.of(userId).filter((e) => e.type === "session.revoked");
      expect(got).toHaveLength(1);
      return got[0]!.data as RevokedData;
    });
    expect(revoked).toMatchObject({ userId, reason: "password-changed" });
    expect(revoked.sessionIds).toHaveLength(2);
    expect(revoked.sessionIds).toContain(sessionId);
  });

  it("partition: with the notification service down a sign-in and a sign-out still answer, and their events arrive once after it is back", async () => {
    await platform.services.notification.close();
    const { userId, sessionId, client } = await signedInTwice();
    expect((await client.post("/sign-out", {})).status).toBe(200);
    // The session service holds them all: nothing could be published.
    const held = await eventually(async () => {
      const events = await platform.services.session.deps.store.findSessionEvents(userId);
      expect(events.map((e) => e.type)).toEqual(["session.created", "session.created", "session.revoked"]);
      return events;
    });
    expect(receiver.of(userId)).toEqual([]);
    restarted = await startNotification({ ...platform.env, ...notificationEnv });
    // The session service's retries backed off while notification was down: let them come due.
    platform.clock.advance(120_000);
    await eventually(async () =>
      expect(
        receiver
          .of(userId)
          .map((e) => e.id)
          .sort(),
      ).toEqual(held.map((e) => e.id).sort()),
    );
    expect(receiver.of(userId).find((e) => e.type === "session.revoked")?.data).toEqual({ userId, sessionIds: [sessionId], reason: "sign-out" });
    await eventually(async () => expect(await platform.services.session.deps.store.findSessionEvents(userId)).toEqual([]));
    // Delivered once each, however long we wait.
    platform.clock.advance(600_000);
    expect(receiver.of(userId)).toHaveLength(3);
  });
});
