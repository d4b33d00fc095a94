import { describe, expect, it } from "vitest";
import { listUsers } from "./admin-users.js";
import { signInEmail, signInUsername } from "./sign-in.js";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const HOUR = 3_600_000;

describe("sign-in", () => {
  it("with the right password starts a session, by email (any case) or by username", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps, { email: "ada@example.com", username: "ada" });
    const byEmail = await signInEmail(deps, { email: " ADA@example.com", password: "password-123", rememberMe: false, client: {} });
    expect(byEmail.user.id).toBe(user.id);
    expect(byEmail.session!.userId).toBe(user.id);
    const byUsername = await signInUsername(deps, { username: "Ada", password: "password-123", rememberMe: true, client: {} });
    expect(byUsername.user.id).toBe(user.id);
    expect(deps.sessions.of(user.id)).toHaveLength(3);
  });

  it("notes the last sign-in for the admin list, without moving the user or queueing a copy for the session service", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const lastSignIn = async () => (await listUsers(deps, { searchValue: email })).lastSignInAt[user.id];
    // Sign-up signs in.
    expect(await lastSignIn()).toEqual(deps.now());
    const before = await deps.store.findUserById(user.id);
    const outboxBefore = await deps.store.findSessionOutbox(user.id);
    deps.advance(HOUR);
    await signInEmail(deps, { email, password: "password-123", rememberMe: true, client: {} });
    expect(await lastSignIn()).toEqual(deps.now());
    expect(await deps.store.findUserById(user.id)).toEqual(before);
    expect(await deps.store.findSessionOutbox(user.id)).toEqual(outboxBefore);
    // A refused sign-in is no sign-in.
    const signedInAt = deps.now();
    deps.advance(HOUR);
    expect(await errorCode(signInEmail(deps, { email, password: "wrong-password", rememberMe: true, client: {} }))).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await lastSignIn()).toEqual(signedInAt);
  });

  it("answers one generic error for a wrong password, an unknown address or a malformed one, and starts no session", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps, { username: "grace" });
    const attempt = (e: string, password = "password-123") => errorCode(signInEmail(deps, { email: e, password, rememberMe: true, client: {} }));
    expect(await attempt(email, "wrong-password")).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await attempt("nobody@example.com")).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await attempt("not-an-email")).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await errorCode(signInUsername(deps, { username: "grace", password: "nope-nope-nope", rememberMe: true, client: {} }))).toBe("INVALID_USERNAME_OR_PASSWORD");
    expect(await errorCode(signInUsername(deps, { username: "nobody", password: "password-123", rememberMe: true, client: {} }))).toBe("INVALID_USERNAME_OR_PASSWORD");
    expect(deps.sessions.of(user.id)).toHaveLength(1); // the sign-up's only
  });

  it("tells a banned user who gave the right password of the ban and its end, until it expires, then lifts it", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps, { username: "ada" });
    const ends = new Date(deps.now().getTime() + HOUR);
    await deps.store.updateUser(user.id, { banned: true, banReason: "spam", banExpires: ends });
    const attempt = (password = "password-123") => signInEmail(deps, { email, password, rememberMe: true, client: {} });
    await expect(attempt()).rejects.toMatchObject({ code: "BANNED_USER", http: 403, fields: { banExpires: ends.toISOString() } });
    await expect(signInUsername(deps, { username: "ada", password: "password-123", rememberMe: true, client: {} })).rejects.toMatchObject({ code: "BANNED_USER" });
    // A wrong password learns nothing of the ban: the generic failure, as for any address.
    expect(await errorCode(attempt("wrong-password"))).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await errorCode(signInUsername(deps, { username: "ada", password: "wrong-password", rememberMe: true, client: {} }))).toBe("INVALID_USERNAME_OR_PASSWORD");
    expect(deps.sessions.of(user.id)).toHaveLength(1); // the sign-up's only
    deps.advance(HOUR);
    expect((await attempt()).user).toMatchObject({ banned: false, banReason: null, banExpires: null });
    expect(await deps.store.findUserById(user.id)).toMatchObject({ banned: false });

    await deps.store.updateUser(user.id, { banned: true, banExpires: null });
    deps.advance(1_000 * HOUR);
    await expect(attempt()).rejects.toMatchObject({ code: "BANNED_USER", fields: { banExpires: null } });
  });

  it("with verification required, an unverified user who knows the password gets EMAIL_NOT_VERIFIED and a new link", async () => {
    const deps = testRegistry({ IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true" });
    const { email, user } = await aSignedUpUser(deps, { username: "ada" });
    expect(deps.mail.to(email, "email-verification")).toHaveLength(1);
    expect(await errorCode(signInEmail(deps, { email, password: "password-123", rememberMe: true, client: {} }))).toBe("EMAIL_NOT_VERIFIED");
    expect(deps.mail.to(email, "email-verification")).toHaveLength(2);
    // By username the failure stays generic (docs/http-api/sign-in.md), and a link is mailed all the same.
    expect(await errorCode(signInUsername(deps, { username: "ada", password: "password-123", rememberMe: true, client: {}, language: "es" }))).toBe("INVALID_USERNAME_OR_PASSWORD");
    expect(deps.mail.to(email, "email-verification")).toHaveLength(3);
    // In the language of the sign-in that asked.
    expect(deps.mail.to(email, "email-verification").at(-1)!.language).toBe("es");
    // A wrong password learns nothing and mails nothing.
    expect(await errorCode(signInEmail(deps, { email, password: "wrong-password", rememberMe: true, client: {} }))).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(deps.mail.to(email, "email-verification")).toHaveLength(3);
    expect(deps.sessions.of(user.id)).toEqual([]);

    await deps.store.updateUser(user.id, { emailVerified: true });
    expect((await signInEmail(deps, { email, password: "password-123", rememberMe: true, client: {} })).session!.userId).toBe(user.id);
  });
});
