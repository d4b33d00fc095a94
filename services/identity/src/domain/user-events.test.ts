import { describe, expect, it } from "vitest";
import { aSignedUpUser, T0, testRegistry, tokenIn } from "../../test/test-registry.js";
import { WRITER_DELIVERY_MS } from "../store/identity-store.js";
import { changeEmail } from "./change-email.js";
import { signInWithProvider } from "./provider-sign-in.js";
import { verifyEmail } from "./verification.js";

const client = { ipAddress: "203.0.113.9", userAgent: "user events test" };

describe("the user event outbox: a verified address reaches sso for domain auto-join", () => {
  it("tells sso of a sign-up's address once it is verified, not before", async () => {
    const deps = testRegistry();
    const { user, email } = await aSignedUpUser(deps, { email: "ada@acme.example" });
    expect(deps.domains.applied).toEqual([]);
    await deps.processMailRequests();
    deps.advance(1_000);
    await verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "email-verification")), client: {} });
    expect(deps.domains.applied).toEqual([{ userId: user.id, email, verifiedAt: deps.now() }]);
    await deps.backgroundSettled();
    expect(await deps.store.findUserEvents(user.id)).toEqual([]);
  });

  it("tells sso of a user created with a verified address (a provider that vouches)", async () => {
    const deps = testRegistry();
    const profile = { providerId: "github", accountId: "gh-1", email: "Bob@Acme.example", emailVerified: true, name: "Bob", scopes: [] };
    const { user } = await signInWithProvider(deps, { profile, trusted: false, disableImplicitLinking: false, client });
    expect(deps.domains.applied).toEqual([{ userId: user.id, email: "bob@acme.example", verifiedAt: new Date(T0) }]);
    // A provider that does not vouch: an unverified address, nothing told.
    await signInWithProvider(deps, {
      profile: { ...profile, accountId: "gh-2", email: "eve@acme.example", emailVerified: false },
      trusted: false,
      disableImplicitLinking: false,
      client,
    });
    expect(deps.domains.applied).toHaveLength(1);
  });

  it("tells sso of the new address of a verified email change, once the new address is verified", async () => {
    const deps = testRegistry();
    const { user, email } = await aSignedUpUser(deps, { email: "cy@old.example" });
    await deps.store.markEmailVerified(user.id, email);
    deps.domains.applied.length = 0;
    await changeEmail(deps, { userId: user.id, newEmail: "cy@acme.example" });
    const session = deps.sessions.of(user.id)[0]!;
    await verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "change-email")), client: {}, sessionUserId: session.userId });
    expect(deps.domains.applied).toEqual([]); // moved, not yet verified
    await verifyEmail(deps, { token: tokenIn(deps.mail.link("cy@acme.example", "change-email-new-address")), client: {} });
    expect(deps.domains.applied.map((a) => a.email)).toEqual(["cy@acme.example"]);
  });

  it("keeps the event while sso is unreachable, and the worker delivers it with backoff once it is back", async () => {
    const deps = testRegistry();
    const { user, email } = await aSignedUpUser(deps, { email: "dee@acme.example" });
    deps.domains.unreachable = true;
    const verifiedAt = deps.now();
    const verified = await deps.store.markEmailVerified(user.id, email);
    // The write is kept and answered; its event waits, the worker woken for it.
    expect(verified).toMatchObject({ emailVerified: true });
    expect(deps.userEventWakes).toBe(1);
    const [event] = await deps.store.findUserEvents(user.id);
    expect(event).toMatchObject({ type: "email-verified", payload: { email }, attempts: 1, leaseUntil: null });
    expect(event!.nextAttemptAt.getTime()).toBeLessThan(verifiedAt.getTime() + WRITER_DELIVERY_MS);
    // Still unreachable: the worker's attempt fails and backs off further.
    deps.advance(1_000);
    expect(await deps.processUserEvents()).toBe(1);
    const retried = (await deps.store.findUserEvents(user.id))[0]!;
    expect(retried.attempts).toBe(2);
    expect(await deps.processUserEvents()).toBe(0); // not due yet
    deps.domains.unreachable = false;
    deps.advance(60_000);
    expect(await deps.processUserEvents()).toBe(1);
    expect(deps.domains.applied).toEqual([{ userId: user.id, email, verifiedAt }]);
    expect(await deps.store.findUserEvents(user.id)).toEqual([]);
  });

  it("drops an event whose address the user no longer holds verified, or whose user is gone", async () => {
    const deps = testRegistry();
    const first = await aSignedUpUser(deps, { email: "eli@acme.example" });
    const second = await aSignedUpUser(deps, { email: "fay@acme.example" });
    deps.domains.unreachable = true;
    await deps.store.markEmailVerified(first.user.id, first.email);
    await deps.store.markEmailVerified(second.user.id, second.email);
    await deps.store.updateUser(first.user.id, { email: "eli@elsewhere.example", emailVerified: false });
    await deps.store.deleteUserAndAccounts(second.user.id);
    deps.domains.unreachable = false;
    deps.advance(60_000);
    // The update and the deletion each deliver the user's events before they answer: both are moot by then.
    await deps.processUserEvents();
    expect(deps.domains.applied).toEqual([]);
    expect(await deps.store.findUserEvents(first.user.id)).toEqual([]);
    expect(await deps.store.findUserEvents(second.user.id)).toEqual([]);
  });

  it("delivers an event once when the request and the worker reach it together", async () => {
    const deps = testRegistry();
    const { user, email } = await aSignedUpUser(deps, { email: "gus@acme.example" });
    deps.domains.unreachable = true;
    await deps.store.markEmailVerified(user.id, email);
    deps.domains.unreachable = false;
    deps.advance(60_000);
    await Promise.all([deps.processUserEvents(), deps.processUserEvents()]);
    expect(deps.domains.applied).toHaveLength(1);
  });
});

describe("the user event outbox: webhook events reach the notification service", () => {
  it("publishes user.created, user.updated, user.banned, user.unbanned and user.deleted with the user as written, each once", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps, { email: "hal@acme.example" });
    await deps.store.updateUser(user.id, { name: "Hal 9000" });
    await deps.store.updateUser(user.id, { banned: true, banReason: "spam" });
    await deps.store.updateUser(user.id, { banned: false });
    await deps.store.deleteUserAndAccounts(user.id);
    // Published after each write returned: none made its caller wait.
    await deps.backgroundSettled();
    const published = deps.webhooks.published.map((e) => ({ type: e.type, user: (JSON.parse(e.payloadJson) as { user: { id: string; name: string; banned: boolean } }).user }));
    expect(published).toEqual([
      { type: "user.created", user: expect.objectContaining({ id: user.id, banned: false }) },
      { type: "user.updated", user: expect.objectContaining({ name: "Hal 9000" }) },
      { type: "user.banned", user: expect.objectContaining({ banned: true }) },
      { type: "user.unbanned", user: expect.objectContaining({ banned: false }) },
      { type: "user.deleted", user: expect.objectContaining({ id: user.id, name: "Hal 9000" }) },
    ]);
    expect(new Set(deps.webhooks.published.map((e) => e.id)).size).toBe(5);
    // One read of the outbox per write (sign-up, three updates, deletion): the webhooks go out from it.
    expect(deps.userEventReads).toBe(5);
    expect(await deps.store.findUserEvents(user.id)).toEqual([]);
  });

  it("keeps a webhook event while the notification service is unreachable; the worker publishes it later, under the same id", async () => {
    const deps = testRegistry();
    deps.webhooks.unreachable = true;
    const { user } = await aSignedUpUser(deps, { email: "ivy@acme.example" });
    await deps.backgroundSettled();
    const [event] = await deps.store.findUserEvents(user.id);
    expect(event).toMatchObject({ type: "user.created", attempts: 1 });
    expect(deps.webhooks.published).toEqual([]);
    deps.webhooks.unreachable = false;
    deps.advance(60_000);
    expect(await deps.processUserEvents()).toBe(1);
    expect(deps.webhooks.published.map((e) => [e.id, e.type])).toEqual([[event!.id, "user.created"]]);
    expect(await deps.store.findUserEvents(user.id)).toEqual([]);
  });
});
