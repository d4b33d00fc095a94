/**
 * Signed webhooks on the whole platform (docs/adr/0077-signed-webhooks.md): endpoints registered through the
 * notification service's WebhookService (as the admin service calls it), a real HTTP receiver on loopback
 * verifying every delivery with the `standardwebhooks` package, identity's user events end to end. The
 * receiver failing (500, then refused connections) is retried on the test clock, dead-lettered after the
 * last attempt and delivered on resend; the notification service stopped while users sign up loses none of
 * their events, and delivers each once after its restart.
 */
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { freePorts, type RunningNotification, startNotification } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin, aUser } from "./admin-fixtures.js";
import { startReceiver } from "./webhook-receiver.js";

const receiver = await startReceiver();
let restarted: RunningNotification | undefined;

describe(`signed webhooks (${backendLabel()})`, () => {
  // Loopback receivers are allowed here only; a short schedule: 4 attempts, 5 s, 60 s and 300 s apart.
  const notificationEnv = { NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true", NOTIFICATION_WEBHOOK_RETRY_SCHEDULE: "5,60,300" };
  const platform = usePlatform({ serviceEnv: { notification: notificationEnv } });
  let admin: WebhookServiceClient;
  let identity: WebhookServiceClient;
  const created: string[] = [];
  beforeAll(() => {
    const dial = (workload: "admin" | "identity") =>
      createGrpcClient(WebhookServiceClient, platform.env.NOTIFICATION_SERVICE_URL!, { tls: platform.grpcTls(workload), serverName: "notification" });
    admin = dial("admin");
    identity = dial("identity");
  });
  afterEach(async () => {
    // Each test's endpoints go, so the next test's sign-ups reach only its own.
    for (const id of created.splice(0)) await call(admin, admin.deleteWebhookEndpoint, { id }).catch(() => undefined);
  });
  afterAll(async () => {
    admin?.close();
    identity?.close();
    await restarted?.close();
    await receiver.close();
  });

  async function endpointAt(path: string, url = `${receiver.origin}${path}`) {
    const { endpoint, secret } = await call(admin, admin.createWebhookEndpoint, { url, eventTypes: ["user.created"], description: path });
    created.push(endpoint!.id);
    receiver.secrets.set(path, secret);
    return { id: endpoint!.id, secret };
  }

  async function signUp(): Promise<{ email: string; id: string }> {
    const email = uniqueEmail("hook");
    const res = await platform.client().post("/sign-up/email", { name: "Hook", email, password: "password-123" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { email, id: res.body.user.id };
  }

  const deliveries = async (endpointId: string) => (await call(admin, admin.listWebhookDeliveries, { endpointId, limit: 50 })).deliveries;

  /**
   * Waits until the endpoint's one delivery matches `expected` with its latest attempt over. A claimed
   * attempt counts at once, while its retry is set when it ends: until then a pending delivery is still due,
   * and a clock moved meanwhile would push that retry past the test's next step.
   */
  const afterAttempt = (endpointId: string, expected: Record<string, unknown>) =>
    eventually(async () => {
      const found = await deliveries(endpointId);
      expect(found).toEqual([expect.objectContaining(expected)]);
      if (found[0]!.status === "pending") expect(found[0]!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
    });

  it("a sign-up reaches a subscribed endpoint once, signed per Standard Webhooks, with the user as data; the secret is shown once", async () => {
    const { id, secret } = await endpointAt("/signups");
    expect(secret).toMatch(/^whsec_/);
    // Listed without its secret.
    const listed = (await call(admin, admin.listWebhookEndpoints, {})).endpoints.find((e) => e.id === id);
    expect(listed).toMatchObject({ url: `${receiver.origin}/signups`, eventTypes: ["user.created"], enabled: true });
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));

    const user = await signUp();
    const [delivery] = await eventually(async () => {
      const got = receiver.of("/signups", user.email);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(delivery!.verified).toMatchObject({ type: "user.created", data: { user: { id: user.id, email: user.email, emailVerified: false } } });
    expect(delivery!.headers["content-type"]).toBe("application/json");
    expect(delivery!.headers["webhook-signature"]).toMatch(/^v1,/);
    await eventually(async () =>
      expect(await deliveries(id)).toEqual([expect.objectContaining({ eventType: "user.created", status: "delivered", attempts: 1, lastResponseCode: 200 })]),
    );
    // Identity's outbox row is gone once published.
    await eventually(async () => expect(await platform.services.identity.deps.store.findUserEvents(user.id)).toEqual([]));

    // The same event published again (a source's redelivery) is not stored or sent twice.
    const eventId = delivery!.headers["webhook-id"] as string;
    const again = await call(identity, identity.publishEvents, {
      events: [{ id: eventId, type: "user.created", occurredAt: new Date(), payloadJson: JSON.stringify({ user: { email: user.email } }) }],
    });
    expect(again.accepted).toBe(0);
    expect(await deliveries(id)).toHaveLength(1);

    // Rotated: the old secret no longer verifies, the new one does (a test event).
    const rotated = await call(admin, admin.rotateWebhookSecret, { id });
    expect(rotated.secret).not.toBe(secret);
    const test = await call(admin, admin.sendTestWebhookEvent, { id });
    const testEvent = await eventually(async () => {
      const got = receiver.received.find((r) => r.headers["webhook-id"] === test.delivery!.eventId);
      expect(got).toBeDefined();
      return got!;
    });
    expect(() => new Webhook(secret).verify(testEvent.body, testEvent.headers as Record<string, string>)).toThrow();
    expect(new Webhook(rotated.secret).verify(testEvent.body, testEvent.headers as Record<string, string>)).toMatchObject({ type: "webhook.test" });
  });

  it("a receiver answering 500 is retried on the schedule, each attempt in the log, until it answers 2xx", async () => {
    const { id } = await endpointAt("/flaky");
    receiver.statuses.set("/flaky", 500);
    const user = await signUp();
    await afterAttempt(id, { status: "pending", attempts: 1, lastResponseCode: 500, lastError: "HTTP 500" });
    platform.clock.advance(5_000);
    await afterAttempt(id, { status: "pending", attempts: 2, lastResponseCode: 500 });
    receiver.statuses.set("/flaky", 204);
    platform.clock.advance(60_000);
    await eventually(async () => expect(await deliveries(id)).toEqual([expect.objectContaining({ status: "delivered", attempts: 3, lastResponseCode: 204 })]));
    const attempts = receiver.of("/flaky", user.email);
    expect(attempts).toHaveLength(3);
    // One event, one id across its attempts: the receiver can drop a repeat.
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    // Three deliveries, each waiting on a worker's poll: a loaded machine needs more than the default 30 s.
  }, 60_000);

  it("a receiver that refuses connections is dead-lettered after the last attempt; a resend delivers it", async () => {
    const [closedPort] = await freePorts(1);
    const { id } = await endpointAt("/late", `http://127.0.0.1:${closedPort}/late`);
    const user = await signUp();
    const attempted = (attempts: number, status = "pending") => afterAttempt(id, { status, attempts, lastResponseCode: undefined });
    await attempted(1);
    expect((await deliveries(id))[0]!.lastError).toMatch(/ECONNREFUSED/);
    platform.clock.advance(5_000);
    await attempted(2);
    platform.clock.advance(60_000);
    await attempted(3);
    platform.clock.advance(300_000);
    await attempted(4, "dead");
    // Dead stays dead, however long.
    platform.clock.advance(3_600_000);
    expect((await deliveries(id))[0]).toMatchObject({ status: "dead", attempts: 4 });

    // The receiver moves to a live address; the operator resends.
    await call(admin, admin.updateWebhookEndpoint, { id, url: `${receiver.origin}/late`, eventTypes: [], updateEventTypes: false });
    const [dead] = await deliveries(id);
    const resent = await call(admin, admin.resendWebhookDelivery, { id: dead!.id });
    expect(resent.delivery).toMatchObject({ status: "pending", attempts: 0 });
    await eventually(async () => expect(await deliveries(id)).toEqual([expect.objectContaining({ status: "delivered", attempts: 1, lastResponseCode: 200 })]));
    expect(receiver.of("/late", user.email)).toHaveLength(1);
  });

  it("the admin routes: an admin registers an endpoint, reads its delivery log and resends; a non-admin is refused", async () => {
    const ada = await anAdmin(platform);
    const grace = await aUser(platform);
    expect((await grace.c.get("/admin/list-webhook-endpoints")).status).toBe(403);
    expect((await grace.c.post("/admin/create-webhook-endpoint", { url: `${receiver.origin}/admin`, eventTypes: ["user.created"] })).status).toBe(403);

    const refused = await ada.c.post("/admin/create-webhook-endpoint", { url: "javascript:alert(1)", eventTypes: ["user.created"] });
    expect([refused.status, refused.body.code]).toEqual([400, "INVALID_WEBHOOK_URL"]);
    const unknown = await ada.c.post("/admin/create-webhook-endpoint", { url: `${receiver.origin}/admin`, eventTypes: ["user.exploded"] });
    expect([unknown.status, unknown.body.code]).toEqual([400, "UNKNOWN_WEBHOOK_EVENT_TYPE"]);

    const createdHook = await ada.c.post("/admin/create-webhook-endpoint", { url: `${receiver.origin}/admin`, eventTypes: ["user.created"], description: "CRM" });
    expect(createdHook.status, JSON.stringify(createdHook.body)).toBe(200);
    const endpointId = createdHook.body.endpoint.id as string;
    created.push(endpointId);
    receiver.secrets.set("/admin", createdHook.body.secret);
    expect(createdHook.body.endpoint).toMatchObject({ url: `${receiver.origin}/admin`, eventTypes: ["user.created"], description: "CRM", enabled: true });
    const listed = await ada.c.get("/admin/list-webhook-endpoints");
    expect(listed.body.endpoints.find((e: { id: string }) => e.id === endpointId)).toBeDefined();
    expect(JSON.stringify(listed.body)).not.toContain(createdHook.body.secret);

    const user = await signUp();
    await eventually(async () => expect(receiver.of("/admin", user.email)).toHaveLength(1));
    const log = await eventually(async () => {
      const res = await ada.c.get(`/admin/list-webhook-deliveries?endpointId=${endpointId}`);
      expect(res.body.deliveries).toEqual([expect.objectContaining({ eventType: "user.created", status: "delivered", attempts: 1, lastResponseCode: 200 })]);
      return res.body.deliveries as Array<{ id: string }>;
    });
    const resent = await ada.c.post("/admin/resend-webhook-delivery", { id: log[0]!.id });
    expect(resent.body.delivery).toMatchObject({ status: "pending", attempts: 0 });
    await eventually(async () => expect(receiver.of("/admin", user.email)).toHaveLength(2));
    // A resend is the same event: the receiver can tell it by its id.
    expect(new Set(receiver.of("/admin", user.email).map((r) => r.headers["webhook-id"])).size).toBe(1);
    // Each change is in the audit log, never the secret.
    const audited = async (targetId: string) => {
      const audit = await ada.c.get(`/admin/list-audit-events?targetId=${targetId}`);
      expect(JSON.stringify(audit.body)).not.toContain(createdHook.body.secret);
      return audit.body.events.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`);
    };
    expect(await audited(endpointId)).toEqual(["webhook.create success"]);
    expect(await audited(log[0]!.id)).toEqual(["webhook.resend success"]);

    expect((await ada.c.post("/admin/update-webhook-endpoint", { id: endpointId, enabled: false })).body.endpoint).toMatchObject({ enabled: false });
    expect((await ada.c.post("/admin/delete-webhook-endpoint", { id: endpointId })).body).toEqual({ success: true });
    const gone = await ada.c.post("/admin/delete-webhook-endpoint", { id: endpointId });
    expect([gone.status, gone.body.code]).toEqual([404, "WEBHOOK_ENDPOINT_NOT_FOUND"]);
  });

  it("refuses a URL that is not http(s), an unknown event type, and an unknown endpoint, with the catalogue's errors", async () => {
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AuthError);
      return { code: (error as AuthError).code, http: (error as AuthError).http };
    };
    expect(await refusal(call(admin, admin.createWebhookEndpoint, { url: "ftp://hooks.example.com/in", eventTypes: ["user.created"], description: "" }))).toEqual({
      code: "INVALID_WEBHOOK_URL",
      http: 400,
    });
    expect(await refusal(call(admin, admin.createWebhookEndpoint, { url: "https://hooks.example.com/in", eventTypes: ["user.exploded"], description: "" }))).toEqual({
      code: "UNKNOWN_WEBHOOK_EVENT_TYPE",
      http: 400,
    });
    expect(await refusal(call(admin, admin.listWebhookDeliveries, { endpointId: "nope", limit: 10 }))).toEqual({ code: "WEBHOOK_ENDPOINT_NOT_FOUND", http: 404 });
    expect(await refusal(call(identity, identity.publishEvents, { events: [{ id: "evt-x", type: "user.exploded", occurredAt: new Date(), payloadJson: "{}" }] }))).toEqual({
      code: "UNKNOWN_WEBHOOK_EVENT_TYPE",
      http: 400,
    });
  });

  it("partition: users who sign up while the notification service is down each get their user.created delivered once after it is back", async () => {
    const { id } = await endpointAt("/outage");
    await platform.services.notification.close();
    const users = [await signUp(), await signUp(), await signUp()];
    // identity holds every event; nothing could be published.
    for (const user of users) {
      expect((await platform.services.identity.deps.store.findUserEvents(user.id)).map((e) => e.type)).toEqual(["user.created"]);
    }
    restarted = await startNotification({ ...platform.env, ...notificationEnv });
    // identity's retries backed off while notification was down: let them come due.
    platform.clock.advance(120_000);
    for (const user of users) await eventually(async () => expect(receiver.of("/outage", user.email)).toHaveLength(1));
    await eventually(async () => expect((await deliveries(id)).map((d) => `${d.status} ${d.attempts}`)).toEqual(["delivered 1", "delivered 1", "delivered 1"]));
    for (const user of users) await eventually(async () => expect(await platform.services.identity.deps.store.findUserEvents(user.id)).toEqual([]));
  });
});
