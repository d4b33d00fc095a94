/**
 * The session webhook events (webhook-events.ts) on the memory store and the test clock: each change writes
 * its event with the change; the worker's pass publishes every due event in one call and forgets them; a
 * call that fails is tried event by event, and what still fails is retried after the backoff until it lands, once.
 */
import { describe, expect, it } from "vitest";
import { aUser, testRegistry, type TestRegistry } from "../../test/test-registry.js";
import { createSession, forgetUser, revokeSession, revokeUserSessions } from "./sessions.js";
import { deliverDueSessionEvents } from "./webhook-events.js";

async function signedIn(deps: TestRegistry) {
  const user = aUser(deps);
  await deps.lease.tick();
  return createSession(deps, { userId: user.id, rememberMe: true, user, authMethod: "password", ipAddress: "203.0.113.9", userAgent: "Test/1.0" });
}

const published = (deps: TestRegistry) => deps.webhooks.published.map((event) => ({ type: event.type, data: JSON.parse(event.payloadJson) as Record<string, unknown> }));

describe("session webhook events", () => {
  it("publishes session.created and session.revoked with ids and public fields in one call, then forgets them", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const other = await createSession(deps, { userId: session.userId, rememberMe: true });
    await revokeSession(deps, session.token);
    await revokeUserSessions(deps, session.userId);
    expect(deps.webhooks.published).toEqual([]);
    expect(await deliverDueSessionEvents(deps)).toBe(4);
    expect(deps.webhooks.calls).toEqual([4]);
    expect(published(deps)).toEqual([
      {
        type: "session.created",
        data: {
          session: expect.objectContaining({ id: session.id, userId: session.userId, authMethod: "password", ipAddress: "203.0.113.9", userAgent: "Test/1.0" }),
        },
      },
      { type: "session.created", data: { session: expect.objectContaining({ id: other.id }) } },
      { type: "session.revoked", data: { userId: session.userId, sessionIds: [session.id], reason: "sign-out" } },
      { type: "session.revoked", data: { userId: session.userId, sessionIds: [other.id], reason: "revoked" } },
    ]);
    for (const event of deps.webhooks.published) expect(event.payloadJson).not.toContain(session.token);
    expect(await deps.store.findSessionEvents(session.userId)).toEqual([]);
    expect(await deliverDueSessionEvents(deps)).toBe(0);
  });

  it("tells why: the caller's own revocations, a ban, a password change", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const kept = await createSession(deps, { userId: session.userId, rememberMe: true });
    const third = await createSession(deps, { userId: session.userId, rememberMe: true });
    await revokeSession(deps, third.token, { ownerId: session.userId, caller: { sessionId: session.id, userId: session.userId } });
    await revokeUserSessions(deps, session.userId, { caller: { sessionId: kept.id, userId: session.userId }, keepCallers: true });
    await revokeUserSessions(deps, session.userId, { user: aUser(deps, { id: session.userId, banned: true }) });
    // The ban lifted (a newer copy), a new session, then a password change.
    deps.clock.advance(1_000);
    await forgetUser(deps, session.userId, aUser(deps, { id: session.userId }));
    const later = await createSession(deps, { userId: session.userId, rememberMe: true });
    await revokeUserSessions(deps, session.userId, { reason: "password-changed" });
    await deliverDueSessionEvents(deps);
    expect(
      published(deps)
        .filter((event) => event.type === "session.revoked")
        .map((event) => event.data),
    ).toEqual([
      { userId: session.userId, sessionIds: [third.id], reason: "revoke-session" },
      { userId: session.userId, sessionIds: [session.id], reason: "revoke-other-sessions" },
      { userId: session.userId, sessionIds: [kept.id], reason: "banned" },
      { userId: session.userId, sessionIds: [later.id], reason: "password-changed" },
    ]);
  });

  it("leaves an event the notification service refused to a later pass, which delivers it once after the backoff", async () => {
    const deps = testRegistry();
    await signedIn(deps);
    const publish = deps.webhooks.publish;
    deps.webhooks.publish = async () => {
      throw new Error("14 UNAVAILABLE: notification down");
    };
    expect(await deliverDueSessionEvents(deps)).toBe(1);
    expect(await deliverDueSessionEvents(deps)).toBe(0);
    deps.webhooks.publish = publish;
    deps.clock.advance(60_000);
    expect(await deliverDueSessionEvents(deps)).toBe(1);
    expect(await deliverDueSessionEvents(deps)).toBe(0);
    expect(published(deps).map((event) => event.type)).toEqual(["session.created"]);
  });

  it("tries each event alone when the batch is refused, so one refused event holds back no other", async () => {
    const deps = testRegistry();
    const refused = await signedIn(deps);
    const delivered = await signedIn(deps);
    const publish = deps.webhooks.publish;
    // As notification refuses a whole call for one event it cannot take (an unknown type mid-upgrade).
    deps.webhooks.publish = async (events) => {
      if (events.some((event) => event.payloadJson.includes(refused.id))) throw new Error("3 INVALID_ARGUMENT: UNKNOWN_WEBHOOK_EVENT_TYPE");
      await publish(events);
    };
    expect(await deliverDueSessionEvents(deps)).toBe(2);
    expect(deps.webhooks.calls).toEqual([1]);
    expect(published(deps)).toEqual([{ type: "session.created", data: { session: expect.objectContaining({ id: delivered.id }) } }]);
    expect(await deps.store.findSessionEvents(refused.userId)).toEqual([expect.objectContaining({ attempts: 1, leaseUntil: null })]);
    expect(await deps.store.findSessionEvents(delivered.userId)).toEqual([]);
  });

  it("publishes again an event whose removal failed after it was published, once its lease runs out", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const remove = deps.store.deleteSessionEvents;
    deps.store.deleteSessionEvents = async () => {
      throw new Error("the store went away after the call");
    };
    expect(await deliverDueSessionEvents(deps)).toBe(1);
    deps.store.deleteSessionEvents = remove;
    // Held by its lease meanwhile: not published twice at once.
    expect(await deliverDueSessionEvents(deps)).toBe(0);
    deps.clock.advance(60_000);
    expect(await deliverDueSessionEvents(deps)).toBe(1);
    expect(deps.webhooks.calls).toEqual([1, 1]);
    expect(deps.webhooks.published.map((event) => event.id)).toEqual([deps.webhooks.published[0]!.id, deps.webhooks.published[0]!.id]);
    expect(await deps.store.findSessionEvents(session.userId)).toEqual([]);
  });
});
