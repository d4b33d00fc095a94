/**
 * The session service serves each session's user from its own copy, pushed by identity, and never calls
 * identity: get-session on a cache miss answers with identity stopped; every profile change shows at once,
 * from the cache and on a miss; a session whose user has no copy (created before copies were kept) is
 * signed out on a miss until identity's backfill pushes the user.
 */
import { describe, expect, it } from "vitest";
import { backfillSessionUsers } from "../../services/identity/src/domain/session-users.js";
import { backendLabel } from "../../testing/databases.js";
import type { TestClient } from "../../testing/http.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { type PlatformUnderTest, usePlatform } from "../../testing/use-platform.js";
import { signUpThrough } from "./accounts.js";

/** The session's token and user as get-session shows them. */
async function current(c: TestClient) {
  const res = await c.get("/get-session");
  expect(res.status).toBe(200);
  return res.body as { session: { token: string; userId: string }; user: Record<string, unknown> } | null;
}

/**
 * get-session once from the cache and once on a miss (the entry dropped first, then checked to be filled
 * again by the session service, so the second read really was a miss); both answers must agree.
 */
async function warmAndCold(platform: PlatformUnderTest, c: TestClient) {
  const warm = (await current(c))!;
  const { cache, tokens } = platform.services.session.deps;
  const key = `session:${tokens.lookup(warm.session.token)}`;
  await cache.del(key);
  platform.gateway.sessionMemory?.clear();
  expect(await cache.get(key)).toBeNull();
  const cold = (await current(c))!;
  expect(await cache.get(key)).not.toBeNull();
  expect(cold.user).toEqual(warm.user);
  return warm.user;
}

describe(`the session's user after profile changes (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  it("update-user, change-email and verify-email show in get-session at once, warm and on a miss", async () => {
    const { c, user } = await signUpThrough(platform);
    expect(await warmAndCold(platform, c)).toMatchObject({ id: user.id, name: "Grace", emailVerified: false });

    expect((await c.post("/update-user", { name: "Grace Hopper", image: "https://example.com/g.png" })).status).toBe(200);
    expect(await warmAndCold(platform, c)).toMatchObject({ name: "Grace Hopper", image: "https://example.com/g.png" });

    const newEmail = uniqueEmail("moved");
    expect((await c.post("/change-email", { newEmail })).status).toBe(200);
    expect(await warmAndCold(platform, c)).toMatchObject({ email: newEmail, emailVerified: false, name: "Grace Hopper" });

    const mail = await platform.smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
    expect((await platform.follow(c, linkIn(mail, "/verify-email"))).status).toBe(302);
    expect(await warmAndCold(platform, c)).toMatchObject({ email: newEmail, emailVerified: true, name: "Grace Hopper" });
  });

  it("right after concurrent updates of one user, get-session shows the user as stored, warm and on a miss", async () => {
    const { c, user } = await signUpThrough(platform);
    const { store } = platform.services.identity.deps;
    // Racing updates land within one millisecond and their copies reach the session service in any order: the
    // copy kept must be the last write's, with no later change to correct it.
    for (let round = 1; round <= 20; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => c.post("/update-user", { name: `Grace ${round}.${i}` })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      const stored = (await store.findUserById(user.id))!;
      expect(await warmAndCold(platform, c)).toMatchObject({ name: stored.name, updatedAt: stored.updatedAt.toISOString() });
    }
  });

  it("a session whose user has no copy is signed out on a miss, and back once identity's backfill pushes the user", async () => {
    const { c, user } = await signUpThrough(platform);
    const { session: sessionService, identity } = platform.services;
    const { token } = (await current(c))!.session;
    // A fresh client per read with the same cookie: a signed-out answer clears the cookie of its client.
    const cookie = c.cookieHeader();
    const read = async () => (await platform.client().get("/get-session", { cookie })).body;
    // As a session created before the session service kept users: no copy, no cache entry.
    await sessionService.deps.store.deleteUser(user.id);
    await sessionService.deps.cache.del(`session:${sessionService.deps.tokens.lookup(token)}`);
    platform.gateway.sessionMemory?.clear();
    expect(await read()).toBeNull();
    expect(await sessionService.deps.store.findByToken(token)).not.toBeNull();

    // What each identity replica runs at start, over the real internal API.
    expect(await backfillSessionUsers(identity.deps)).toBeGreaterThanOrEqual(1);
    expect((await read())?.user).toMatchObject({ id: user.id, name: "Grace" });
    expect(await sessionService.deps.store.usersMissingSnapshot("", 1_000)).toEqual([]);
  });

  it("delete-user removes the copy with the sessions", async () => {
    const { c, user, password, email } = await signUpThrough(platform);
    expect(await platform.services.session.deps.store.findUser(user.id)).not.toBeNull();
    expect((await c.post("/delete-user", { password })).body).toMatchObject({ success: true });
    const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
    expect((await platform.follow(c, link)).status).toBe(302);
    expect(await platform.services.session.deps.store.findUser(user.id)).toBeNull();
    expect(await current(c)).toBeNull();
  });
});

describe(`get-session with identity stopped (${backendLabel()})`, () => {
  const platform = usePlatform();

  it("a cache miss still answers with the user: the session service does not call identity", async () => {
    const { c, user } = await signUpThrough(platform);
    const { token } = (await current(c))!.session;
    await platform.services.identity.close();
    const { cache, tokens } = platform.services.session.deps;
    await cache.del(`session:${tokens.lookup(token)}`);
    const res = await c.get("/get-session");
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, email: user.email, name: "Grace" });
    // Sign-in needs identity: that one is refused, as it must be.
    expect((await platform.client().post("/sign-in/email", { email: user.email, password: "password-123" })).status).toBe(503);
  });
});
