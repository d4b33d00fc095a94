/**
 * Two-factor and the session, over raw HTTP: turning two-factor on (the first TOTP code in a session) and
 * off rotates the caller's session (a new token in a fresh cookie, the old session ended, the user's other
 * sessions kept, the remember-me choice kept); an impersonation session may not change factors; the
 * challenge and trust-device cookies carry exactly their lifetimes; a challenge clears the session cookies
 * the browser still holds.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type JsonResponse, type TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { anAdmin } from "./admin-fixtures.js";

const platform = usePlatform();
const PASSWORD = "password-123";
const SESSION_COOKIE = "better-auth.session_token";
const DONT_REMEMBER_COOKIE = "better-auth.dont_remember";
const TWO_FACTOR_COOKIE = "better-auth.two_factor";
const TRUST_COOKIE = "better-auth.trust_device";

const codeFor = (totpURI: string) => totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(new Date()));
const setCookie = (res: JsonResponse, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
const tokenOf = (cookie: string) => decodeURIComponent(cookie).split(".")[0];

/** A signed-up user (remembered, or not) with an enrolment waiting for its first code; the client holds the session. */
async function enrolling(options: { rememberMe?: boolean } = {}) {
  const client = platform.client();
  const email = uniqueEmail("2fa-session");
  expect((await client.post("/sign-up/email", { name: "Ada", email, password: PASSWORD })).status).toBe(200);
  if (options.rememberMe === false) {
    expect((await client.post("/sign-in/email", { email, password: PASSWORD, rememberMe: false })).status).toBe(200);
    expect(client.cookies.has(DONT_REMEMBER_COOKIE)).toBe(true);
  }
  const enabled = await client.post("/two-factor/enable", { password: PASSWORD });
  expect(enabled.status).toBe(200);
  return { client, email, totpURI: enabled.body.totpURI as string };
}

/** The session a cookie header names, as /get-session answers it. */
const sessionWith = async (cookie: string) => (await platform.client().request("GET", "/get-session", { headers: { cookie } })).body;

async function rotates(client: TestClient, act: () => Promise<JsonResponse>, options: { remembered: boolean }) {
  const before = (await client.get("/get-session")).body.session.token as string;
  const oldCookie = client.cookieHeader();
  const res = await act();
  expect(res.status).toBe(200);
  const cookie = setCookie(res, SESSION_COOKIE)!;
  expect(cookie).toBeDefined();
  const token = tokenOf(cookie.split(";")[0]!.slice(SESSION_COOKIE.length + 1));
  expect(token).not.toBe(before);
  if (options.remembered) expect(cookie).toMatch(/Max-Age=604800(;|$)/);
  else {
    expect(cookie).not.toMatch(/Max-Age/i);
    expect(setCookie(res, DONT_REMEMBER_COOKIE)).not.toMatch(/Max-Age=0/);
  }
  // The old session is over; the new cookie works.
  expect(await sessionWith(oldCookie)).toBeNull();
  const now = (await client.get("/get-session")).body;
  expect(now.session.token).toBe(token);
  return { res, token, before };
}

describe(`two-factor and the session (${backendLabel()})`, () => {
  it("the first TOTP code in a session rotates it: { token, user } of the new one, the old ended, other sessions kept", async () => {
    const { client, email, totpURI } = await enrolling();
    const other = platform.client();
    expect((await other.post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
    const { res, token } = await rotates(client, () => client.post("/two-factor/verify-totp", { code: codeFor(totpURI) }), { remembered: true });
    expect(res.body).toMatchObject({ token, user: { email: email.toLowerCase(), twoFactorEnabled: true } });
    expect(res.headers.get("set-auth-token")).toMatch(new RegExp(`^${token}\\.`));
    expect((await client.get("/get-session")).body.user).toMatchObject({ twoFactorEnabled: true });
    // Only the caller's session rotates, as in better-auth.
    expect((await other.get("/get-session")).body.user.email).toBe(email.toLowerCase());

    // A code checked once two-factor is on changes no factor: the session stays.
    platform.clock.advance(30_000);
    const again = await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) });
    expect(again.status).toBe(200);
    expect(again.body.token).toBe(token);
    expect(setCookie(again, SESSION_COOKIE)).toBeUndefined();
  });

  it("disable rotates the session and answers { status: true }", async () => {
    const { client, email, totpURI } = await enrolling();
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    const signedIn = platform.client();
    platform.clock.advance(30_000);
    await signedIn.post("/sign-in/email", { email, password: PASSWORD });
    expect((await signedIn.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);

    const { res } = await rotates(client, () => client.post("/two-factor/disable", { password: PASSWORD }), { remembered: true });
    expect(res.body).toEqual({ status: true });
    expect((await client.get("/get-session")).body.user).toMatchObject({ twoFactorEnabled: false });
    expect((await signedIn.get("/get-session")).body.user.email).toBe(email.toLowerCase());
  });

  it("a dont-remember session stays one: the rotated cookie is a browser-session cookie with its marker", async () => {
    const { client, totpURI } = await enrolling({ rememberMe: false });
    await rotates(client, () => client.post("/two-factor/verify-totp", { code: codeFor(totpURI) }), { remembered: false });
    expect(client.cookies.has(DONT_REMEMBER_COOKIE)).toBe(true);
    await rotates(client, () => client.post("/two-factor/disable", { password: PASSWORD }), { remembered: false });
  });

  it("a wrong password or code rotates nothing", async () => {
    const { client, totpURI } = await enrolling();
    const before = (await client.get("/get-session")).body.session.token;
    const wrong = await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(401);
    expect(setCookie(wrong, SESSION_COOKIE)).toBeUndefined();
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    const refused = await client.post("/two-factor/disable", { password: "wrong-password" });
    expect(refused.status).toBe(400);
    expect(setCookie(refused, SESSION_COOKIE)).toBeUndefined();
    expect((await client.get("/get-session")).body.session.token).not.toBe(before);
  });

  it("an impersonating admin may not turn two-factor on or off: 403, nothing changed, the session kept", async () => {
    const { client, totpURI } = await enrolling();
    const userId = (await client.get("/get-session")).body.user.id;
    const admin = await anAdmin(platform);
    expect((await admin.c.post("/admin/impersonate-user", { userId })).status).toBe(200);
    const code = codeFor(totpURI);
    const on = await admin.c.post("/two-factor/verify-totp", { code });
    expect(on.status).toBe(403);
    expect(on.body).toMatchObject({ code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" });
    expect((await admin.c.get("/get-session")).body.session).toMatchObject({ impersonatedBy: admin.id });
    expect((await admin.c.get("/get-session")).body.user).toMatchObject({ twoFactorEnabled: false });
    // The refused code was not used up: the user's own session activates with it.
    expect((await client.post("/two-factor/verify-totp", { code })).status).toBe(200);
    const off = await admin.c.post("/two-factor/disable", { password: PASSWORD });
    expect(off.status).toBe(403);
    expect(off.body).toMatchObject({ code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" });
    expect((await admin.c.get("/get-session")).body.user).toMatchObject({ twoFactorEnabled: true });
  });

  it("the challenge cookie lives exactly 600 s, the trust-device cookie exactly 2592000 s; a challenge clears the session cookies", async () => {
    const { client, email, totpURI } = await enrolling({ rememberMe: false });
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
    expect(client.cookies.has(DONT_REMEMBER_COOKIE)).toBe(true);

    // Signing in again from a browser that still holds a session: the answer is the challenge, and the old
    // session's cookies go.
    platform.clock.advance(30_000);
    const challenged = await client.post("/sign-in/email", { email, password: PASSWORD });
    expect(challenged.body).toMatchObject({ twoFactorRedirect: true });
    expect(setCookie(challenged, TWO_FACTOR_COOKIE)).toMatch(/Max-Age=600(;|$)/);
    expect(setCookie(challenged, SESSION_COOKIE)).toMatch(/Max-Age=0(;|$)/);
    expect(setCookie(challenged, DONT_REMEMBER_COOKIE)).toMatch(/Max-Age=0(;|$)/);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);

    const verified = await client.post("/two-factor/verify-totp", { code: codeFor(totpURI), trustDevice: true });
    expect(verified.status).toBe(200);
    expect(setCookie(verified, TRUST_COOKIE)).toMatch(/Max-Age=2592000(;|$)/);
    // Renewed at the next sign-in, for exactly 30 days again.
    await client.post("/sign-out");
    platform.clock.advance(60_000);
    const trusted = await client.post("/sign-in/email", { email, password: PASSWORD });
    expect(trusted.body.token).toBeTruthy();
    expect(setCookie(trusted, TRUST_COOKIE)).toMatch(/Max-Age=2592000(;|$)/);
  });

  it("every session says how it was opened, through get-session and list-sessions; a rotation keeps it", async () => {
    const { client, email, totpURI } = await enrolling();
    const signedUp = (await client.get("/get-session")).body.session;
    expect(signedUp).toMatchObject({ authMethod: "password", secondFactor: null });
    expect(Date.parse(signedUp.authenticatedAt)).toBe(Date.parse(signedUp.createdAt));
    platform.clock.advance(30_000);
    // The first code rotates the session: the new one keeps the sign-up's method and time.
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    const rotated = (await client.get("/get-session")).body.session;
    expect(rotated.id).not.toBe(signedUp.id);
    expect(rotated).toMatchObject({ authMethod: "password", secondFactor: null, authenticatedAt: signedUp.authenticatedAt });

    const other = platform.client();
    expect((await other.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    platform.clock.advance(30_000);
    expect((await other.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    const challenged = (await other.get("/get-session")).body.session;
    expect(challenged).toMatchObject({ authMethod: "password", secondFactor: "totp" });
    const listed = (await other.get("/list-sessions")).body as Array<{ id: string; authMethod: string | null; secondFactor: string | null }>;
    expect(listed.find((s) => s.id === challenged.id)).toMatchObject({ authMethod: "password", secondFactor: "totp" });
    expect(listed.find((s) => s.id === rotated.id)).toMatchObject({ authMethod: "password", secondFactor: null });

    const admin = await anAdmin(platform);
    const userId = (await client.get("/get-session")).body.user.id;
    expect((await admin.c.post("/admin/impersonate-user", { userId })).status).toBe(200);
    expect((await admin.c.get("/get-session")).body.session).toMatchObject({ authMethod: "impersonation", impersonatedBy: admin.id });
  });
});
