/**
 * Mail sign-in over HTTP, where it meets the other rules: a two-factor user still passes the second factor, a
 * banned user is told only after the proof, an unverified squatter loses the address to its owner, and the
 * per-IP rate limits hold (limiting on; every test from its own address).
 */
import { describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin } from "./admin-fixtures.js";
import { codeFor, MAIL_SIGN_IN_ENV, magicLinkFor, SIGN_IN_CODE } from "./mail-sign-in-helpers.js";

const PASSWORD = "password-123";
const platform = usePlatform({ smtp: true, rateLimit: true, env: MAIL_SIGN_IN_ENV });

let addresses = 0;
/** A client from its own documentation-range address, so no two tests share a rate-limit counter. */
function aClient(): TestClient {
  addresses += 1;
  return new TestClient(platform.baseURL, { "x-forwarded-for": `198.51.100.${addresses}` });
}

async function signedUp(client = aClient()) {
  const email = uniqueEmail("mail-rules");
  const res = await client.post("/sign-up/email", { name: "Ada", email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { client, email, id: res.body.user.id as string };
}

/** A verified user with two-factor on (an unverified one would lose it to the mailbox's owner, as below). */
async function withTwoFactor() {
  const { client, email, id } = await signedUp();
  const verify = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
  expect((await client.request("GET", verify.slice(platform.baseURL.length))).status).toBe(302);
  const enabled = await client.post("/two-factor/enable", { password: PASSWORD });
  const secret = base32Decode(new URL(enabled.body.totpURI).searchParams.get("secret")!);
  const totp = () => totpCode(secret, totpStep(new Date()));
  expect((await client.post("/two-factor/verify-totp", { code: totp() })).status).toBe(200);
  // The next code: each TOTP step is accepted once.
  platform.clock.advance(30_000);
  return { email, id, totp };
}

async function mailedCode(email: string) {
  const asking = aClient();
  expect((await asking.post("/email-otp/send-verification-otp", { email, type: "sign-in" })).status).toBe(200);
  return codeFor(platform.smtp, email, SIGN_IN_CODE);
}

async function mailedLink(email: string, body: Record<string, string> = {}) {
  expect((await aClient().post("/sign-in/magic-link", { email, ...body })).status).toBe(200);
  return magicLinkFor(platform.smtp, email);
}

describe(`mail sign-in and the other rules (${backendLabel()})`, () => {
  it("a two-factor user's right code gives the challenge, not a session; the second factor then signs in", async () => {
    const { email, id, totp } = await withTwoFactor();
    const otp = await mailedCode(email);
    const browser = aClient();
    const answer = await browser.post("/sign-in/email-otp", { email, otp });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp"] });
    expect(browser.cookies.has("better-auth.session_token")).toBe(false);
    expect((await browser.get("/get-session")).body).toBeNull();
    const verified = await browser.post("/two-factor/verify-totp", { code: totp() });
    expect(verified.status).toBe(200);
    expect((await browser.get("/get-session")).body).toMatchObject({ user: { id }, session: { authMethod: "email-otp", secondFactor: "totp" } });
  });

  it("a two-factor user's link lands with the challenge (twoFactorRedirect), not a session", async () => {
    const { email, id, totp } = await withTwoFactor();
    const link = await mailedLink(email, { callbackURL: "/dashboard" });
    const browser = aClient();
    const landing = await browser.request("GET", link.slice(platform.baseURL.length));
    expect(landing.status).toBe(302);
    const location = new URL(landing.headers.get("location")!, platform.origin);
    expect(location.pathname).toBe("/dashboard");
    expect(location.searchParams.get("twoFactorRedirect")).toBe("true");
    expect(browser.cookies.has("better-auth.two_factor")).toBe(true);
    expect((await browser.get("/get-session")).body).toBeNull();
    expect((await browser.post("/two-factor/verify-totp", { code: totp() })).status).toBe(200);
    expect((await browser.get("/get-session")).body).toMatchObject({ user: { id }, session: { authMethod: "magic-link", secondFactor: "totp" } });
  });

  it("a banned user is told the ban only with the right code or a live link", async () => {
    const { email, id } = await signedUp();
    const otp = await mailedCode(email);
    await platform.services.identity.deps.store.updateUser(id, { banned: true, banReason: "spam" });
    const browser = aClient();
    const wrong = await browser.post("/sign-in/email-otp", { email, otp: otp === "000000" ? "111111" : "000000" });
    expect(wrong).toMatchObject({ status: 400, body: { code: "INVALID_OTP" } });
    const right = await browser.post("/sign-in/email-otp", { email, otp });
    expect(right).toMatchObject({ status: 403, body: { code: "BANNED_USER", banExpires: null } });

    const forged = await browser.get("/magic-link/verify?token=forged&callbackURL=%2Fdashboard");
    expect(forged.headers.get("location")).toBe("/dashboard?error=INVALID_TOKEN");
    const link = await mailedLink(email, { callbackURL: "/dashboard" });
    const landing = await browser.request("GET", link.slice(platform.baseURL.length));
    expect(new URL(landing.headers.get("location")!, platform.origin).searchParams.get("error")).toBe("BANNED_USER");
    expect(browser.cookies.has("better-auth.session_token")).toBe(false);
  });

  it("the owner of the mailbox takes over an unverified account: the squatter's password and session end", async () => {
    const squatter = await signedUp();
    const otp = await mailedCode(squatter.email);
    const owner = aClient();
    const signedIn = await owner.post("/sign-in/email-otp", { email: squatter.email, otp });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ id: squatter.id, emailVerified: true });
    expect((await squatter.client.get("/get-session")).body).toBeNull();
    expect((await aClient().post("/sign-in/email", { email: squatter.email, password: PASSWORD })).status).toBe(401);
    expect((await owner.get("/get-session")).body.user.id).toBe(squatter.id);
  });

  it("a user created by a code sets a first password from a fresh session, then signs in with it", async () => {
    const email = uniqueEmail("first-password");
    const otp = await mailedCode(email);
    const browser = aClient();
    expect((await browser.post("/sign-in/email-otp", { email, otp })).status).toBe(200);
    expect((await browser.get("/list-accounts")).body).toEqual([]);
    expect(await browser.post("/set-password", { newPassword: "short" })).toMatchObject({ status: 400, body: { code: "PASSWORD_TOO_SHORT" } });
    expect(await browser.post("/set-password", { newPassword: "first-password-1" })).toMatchObject({ status: 200, body: { status: true } });
    expect(await browser.post("/set-password", { newPassword: "second-password-2" })).toMatchObject({ status: 400, body: { code: "USER_ALREADY_HAS_A_PASSWORD" } });
    expect((await aClient().post("/sign-in/email", { email, password: "first-password-1" })).status).toBe(200);
  });

  it("an admin impersonating a user without a password sets none: it would outlast the impersonation", async () => {
    const email = uniqueEmail("impersonated-password");
    const otp = await mailedCode(email);
    const browser = aClient();
    expect((await browser.post("/sign-in/email-otp", { email, otp })).status).toBe(200);
    const userId = (await browser.get("/get-session")).body.user.id;
    const admin = await anAdmin(platform);
    expect((await admin.c.post("/admin/impersonate-user", { userId })).status).toBe(200);
    expect(await admin.c.post("/set-password", { newPassword: "admins-password-1" })).toMatchObject({
      status: 403,
      body: { code: "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING" },
    });
    expect((await aClient().post("/sign-in/email", { email, password: "admins-password-1" })).status).toBe(401);
    expect((await browser.get("/list-accounts")).body).toEqual([]);
  });

  it("refuses a first password from a session older than SESSION_FRESH_AGE", async () => {
    const email = uniqueEmail("stale-password");
    const otp = await mailedCode(email);
    const browser = aClient();
    expect((await browser.post("/sign-in/email-otp", { email, otp })).status).toBe(200);
    platform.clock.advance(86_400_000 + 1_000);
    expect(await browser.post("/set-password", { newPassword: "first-password-1" })).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH" } });
    expect((await aClient().post("/sign-in/email", { email, password: "first-password-1" })).status).toBe(401);
  });

  it("limits each address to 3 code requests and 3 code sign-ins per 10 s", async () => {
    const { email } = await signedUp();
    const asking = aClient();
    for (let i = 0; i < 3; i++) expect((await asking.post("/email-otp/send-verification-otp", { email, type: "sign-in" })).status).toBe(200);
    expect((await asking.post("/email-otp/send-verification-otp", { email, type: "sign-in" })).status).toBe(429);
    const guessing = aClient();
    for (let i = 0; i < 3; i++) expect((await guessing.post("/sign-in/email-otp", { email, otp: "12345" })).status).toBe(400);
    expect((await guessing.post("/sign-in/email-otp", { email, otp: "12345" })).status).toBe(429);
    const linking = aClient();
    for (let i = 0; i < 3; i++) expect((await linking.post("/sign-in/magic-link", { email })).status).toBe(200);
    expect((await linking.post("/sign-in/magic-link", { email })).status).toBe(429);
  });
});
