/**
 * Single-use tokens under attack, over raw HTTP with real SMTP: a reset link kept past a password or email
 * change or the user's removal, reset and delete-account tokens read from a dump of identity's verification
 * table, a verification link followed again (or twice at once, or by a banned user) to sign in, a
 * password holder guessing second-factor codes over many sign-in challenges, an admin's password change
 * leaving reset links or sign-in challenges alive, and a provider account or a two-factor setup left by a
 * pre-registration squatter surviving the owner's reset.
 */
import { describe, expect, it } from "vitest";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { backendLabel } from "../../testing/databases.js";
import { dumpTable, stringsIn } from "../../testing/dumps.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";
import { linkIn } from "../../testing/smtp.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { accountHelpers } from "./accounts.js";
import { anAdmin } from "./admin-fixtures.js";

const PASSWORD = "password-123";
const resetTokenIn = (link: string) => new URL(link).pathname.split("/").pop()!;

describe(`single-use tokens, default configuration (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  async function resetToken(email: string): Promise<string> {
    await client().post("/forget-password", { email, redirectTo: "/reset" });
    return resetTokenIn(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/"));
  }

  it("a reset link mailed before a password change no longer resets the password", async () => {
    const { c, email } = await signUp();
    const token = await resetToken(email);
    expect((await c.post("/change-password", { currentPassword: PASSWORD, newPassword: "owner-new-pass-1" })).status).toBe(200);
    expect(await client().post("/reset-password", { token, newPassword: "attacker-pass-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect((await client().post("/sign-in/email", { email, password: "owner-new-pass-1" })).status).toBe(200);
  });

  it("a reset link mailed to the old address no longer resets the password once the address changed", async () => {
    const { c, email } = await signUp();
    const token = await resetToken(email);
    const newEmail = uniqueEmail("moved");
    expect((await c.post("/change-email", { newEmail })).status).toBe(200);
    expect((await c.get("/get-session")).body.user.email).toBe(newEmail);
    expect(await client().post("/reset-password", { token, newPassword: "attacker-pass-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect((await client().post("/sign-in/email", { email: newEmail, password: PASSWORD })).status).toBe(200);
  });

  it("a verified user's confirmed email change also ends the reset links mailed to the old address", async () => {
    const { c, email } = await signUp();
    await follow(c, linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email"));
    const token = await resetToken(email);
    const newEmail = uniqueEmail("confirmed");
    expect((await c.post("/change-email", { newEmail })).body).toEqual({ status: true });
    await follow(c, linkIn(await smtp.waitFor(email, (m) => m.text.includes(newEmail)), "/verify-email"));
    expect((await c.get("/get-session")).body.user.email).toBe(newEmail);
    expect(await client().post("/reset-password", { token, newPassword: "attacker-pass-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
  });

  it("a verification link for the old address verifies nothing once the address changed", async () => {
    const { c, email } = await signUp();
    const oldLink = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const newEmail = uniqueEmail("moved");
    expect((await c.post("/change-email", { newEmail })).status).toBe(200);
    expect((await follow(c, oldLink)).headers.get("location")).toBe("/?error=invalid_token");
    expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
  });

  it("a dump of the verification table holds no live reset or delete-account token", async () => {
    const { c, email } = await signUp();
    const reset = await resetToken(email);
    expect((await c.post("/delete-user", { password: PASSWORD })).status).toBe(200);
    const deleteToken = new URL(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback")).searchParams.get("token")!;
    const dumped = [...stringsIn(await dumpTable(platform.env.IDENTITY_DATABASE_URL!, "verification"))].join("\n");
    expect(dumped.includes(reset)).toBe(false);
    expect(dumped.includes(deleteToken)).toBe(false);
    // The tokens themselves still work, each once.
    expect((await client().get(`/reset-password/${reset}?callbackURL=/reset`)).headers.get("location")).toBe(`/reset?token=${reset}`);
    expect((await client().post("/reset-password", { token: reset, newPassword: "new-password-456" })).status).toBe(200);
    expect((await client().post("/reset-password", { token: reset, newPassword: "new-password-789" })).body).toMatchObject({ code: "INVALID_TOKEN" });
    const owner = client();
    expect((await owner.post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200);
    expect((await owner.get(`/delete-user/callback?token=${deleteToken}&callbackURL=/bye`)).headers.get("location")).toBe("/bye");
    expect((await client().post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(401);
  });

  it("a reset link of a removed user resets nothing and creates nothing", async () => {
    const admin = await anAdmin(platform);
    const { email, user } = await signUp();
    const token = await resetToken(email);
    expect((await admin.c.post("/admin/remove-user", { userId: user.id })).status).toBe(200);
    expect(await client().post("/reset-password", { token, newPassword: "ghost-password-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect(await platform.services.identity.deps.store.listAccounts(user.id)).toEqual([]);
  });

  it("two concurrent resets with one token: exactly one succeeds", async () => {
    const { email } = await signUp();
    const token = await resetToken(email);
    const answers = await Promise.all(["racer-pass-001", "racer-pass-002", "racer-pass-003"].map((newPassword) => client().post("/reset-password", { token, newPassword })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400]);
  });

  it("a token of one kind is refused where another kind is expected", async () => {
    const { c, email } = await signUp();
    const verification = new URL(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email")).searchParams.get("token")!;
    const reset = await resetToken(email);
    expect((await client().post("/reset-password", { token: verification, newPassword: "attacker-pass-1" })).body).toMatchObject({ code: "INVALID_TOKEN" });
    expect((await client().get(`/verify-email?token=${reset}`)).body).toMatchObject({ code: "INVALID_TOKEN" });
    expect((await c.get(`/delete-user/callback?token=${reset}`)).body).toMatchObject({ code: "INVALID_TOKEN" });
    expect((await client().get(`/delete-user/callback?token=${verification}`)).status).toBeGreaterThanOrEqual(400);
    expect((await c.get("/get-session")).body.user.email).toBe(email);
  });

  it("a reset link mailed before an admin sets the password no longer resets it", async () => {
    const admin = await anAdmin(platform);
    const { email, user } = await signUp();
    const token = await resetToken(email);
    expect((await admin.c.post("/admin/set-user-password", { userId: user.id, newPassword: "admin-set-pass-1" })).status).toBe(200);
    expect(await client().post("/reset-password", { token, newPassword: "attacker-pass-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect((await client().post("/sign-in/email", { email, password: "admin-set-pass-1" })).status).toBe(200);
  });

  it("admin update-user cannot move the address (the reset links keep going to the user's own mailbox)", async () => {
    const admin = await anAdmin(platform);
    const { email, user } = await signUp();
    const token = await resetToken(email);
    const moved = await admin.c.post("/admin/update-user", { userId: user.id, data: { email: uniqueEmail("admin-moved") } });
    expect(moved).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
    expect((await platform.services.identity.deps.store.findUserById(user.id))!.email).toBe(email);
    expect((await client().post("/reset-password", { token, newPassword: "owner-new-pass-1" })).status).toBe(200);
  });

  it("a reset link expires after an hour", async () => {
    const { email } = await signUp();
    const token = await resetToken(email);
    platform.clock.advance(3_600_000 + 1_000);
    expect((await client().post("/reset-password", { token, newPassword: "late-password-1" })).body).toMatchObject({ code: "INVALID_TOKEN" });
  });
});

describe(`verification links that sign in (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true, env: { IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true" } });
  const { client, follow, signUp, smtp } = accountHelpers(platform);
  const signedIn = async (c: ReturnType<typeof client>) => (await c.get("/get-session")).body !== null;

  it("signs in once: followed again, by anyone, the link verifies nothing more and creates no session", async () => {
    const { email } = await signUp();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const first = client();
    expect((await follow(first, link)).status).toBe(302);
    expect(await signedIn(first)).toBe(true);
    const later = client();
    const again = await follow(later, link);
    expect({ status: again.status, location: again.headers.get("location") }).toEqual({ status: 302, location: "/" });
    expect(await signedIn(later)).toBe(false);
  });

  it("followed twice at once, the link creates one session", async () => {
    const { email } = await signUp();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const browsers = Array.from({ length: 4 }, () => client());
    await Promise.all(browsers.map((b) => follow(b, link)));
    const sessions = await Promise.all(browsers.map(signedIn));
    expect(sessions.filter(Boolean)).toHaveLength(1);
  });

  it("a banned user's link verifies the address but signs no one in", async () => {
    const admin = await anAdmin(platform);
    const { email, user } = await signUp();
    expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
    // The banned user asks for a new link and follows one (the sign-up's, never used, would do as well).
    await client().post("/send-verification-email", { email });
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const banned = client();
    expect((await follow(banned, link)).status).toBe(302);
    expect(await signedIn(banned)).toBe(false);
    expect((await platform.services.identity.deps.store.findUserByEmail(email))!.emailVerified).toBe(true);
  });

  it("a link kept past a password reset signs no one in", async () => {
    const { email } = await signUp();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const owner = client();
    await follow(owner, link);
    await client().post("/forget-password", { email });
    const token = resetTokenIn(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/"));
    expect((await client().post("/reset-password", { token, newPassword: "owner-new-pass-1" })).status).toBe(200);
    const attacker = client();
    await follow(attacker, link);
    expect(await signedIn(attacker)).toBe(false);
  });
});

describe(`second-factor guessing over many challenges (${backendLabel()})`, () => {
  const platform = usePlatform();
  const secretOf = (totpURI: string) => base32Decode(new URL(totpURI).searchParams.get("secret")!);
  const codeNow = (secret: Buffer) => totpCode(secret, totpStep(new Date()));
  /** A code no authenticator shows now (none of the steps accepted either side). */
  function wrongNow(secret: Buffer): string {
    const step = totpStep(new Date());
    const accepted = new Set([step - 1, step, step + 1].map((s) => totpCode(secret, s)));
    for (let n = 0; ; n++) if (!accepted.has(String(n).padStart(6, "0"))) return String(n).padStart(6, "0");
  }

  /** A user with two-factor on; answers the email and the TOTP secret. */
  async function enrolled() {
    const owner = platform.client();
    const email = uniqueEmail("2fa-guess");
    await owner.post("/sign-up/email", { name: "Ada", email, password: PASSWORD });
    const secret = secretOf((await owner.post("/two-factor/enable", { password: PASSWORD })).body.totpURI);
    expect((await owner.post("/two-factor/verify-totp", { code: codeNow(secret) })).status).toBe(200);
    platform.clock.advance(30_000);
    return { email, secret };
  }

  it("guesses fired at once on many challenges still get only two challenges' worth checked", async () => {
    const { email, secret } = await enrolled();
    const browsers = Array.from({ length: 4 }, () => platform.client());
    for (const b of browsers) expect((await b.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    const answers = await Promise.all(browsers.flatMap((b) => Array.from({ length: 5 }, () => b.post("/two-factor/verify-totp", { code: wrongNow(secret) }))));
    const checked = answers.filter((res) => res.body.code === "INVALID_TWO_FACTOR_AUTHENTICATION");
    expect(checked.length).toBeLessThanOrEqual(10);
    // The rest are refused for the user (or the spent challenge), never taken for a gateway-wide outage.
    for (const res of answers.filter((r) => !checked.includes(r)))
      expect(["429 TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", "401 INVALID_TWO_FACTOR_COOKIE"]).toContain(`${res.status} ${res.body.code}`);
  });

  it("a password holder gets two challenges' worth of guesses per 10 minutes, however many sign-ins they start", async () => {
    const { email, secret } = await enrolled();
    const attacker = platform.client();
    for (let challenge = 0; challenge < 2; challenge++) {
      expect((await attacker.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
      for (let i = 0; i < 5; i++)
        expect((await attacker.post("/two-factor/verify-totp", { code: wrongNow(secret) })).body).toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    }
    // A third challenge takes no more guesses, not even the right code, from anyone, for now.
    for (const c of [attacker, platform.client()]) {
      expect((await c.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
      const refused = await c.post("/two-factor/verify-totp", { code: codeNow(secret) });
      expect(refused).toMatchObject({ status: 429, body: { code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." } });
      expect((await c.get("/get-session")).body).toBeNull();
    }
    // Another user's codes are checked meanwhile, as usual.
    const other = await enrolled();
    const bystander = platform.client();
    expect((await bystander.post("/sign-in/email", { email: other.email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    expect((await bystander.post("/two-factor/verify-totp", { code: codeNow(other.secret) })).status).toBe(200);
    // Once the guessed-on challenges have expired, the user signs in as usual.
    platform.clock.advance(10 * 60_000 + 1_000);
    const later = platform.client();
    expect((await later.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    expect((await later.post("/two-factor/verify-totp", { code: codeNow(secret) })).status).toBe(200);
    expect((await later.get("/get-session")).body.user.email).toBe(email);
  });
});

describe(`second-factor sign-ins waiting when the password changes (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, smtp } = accountHelpers(platform);
  const secretOf = (totpURI: string) => base32Decode(new URL(totpURI).searchParams.get("secret")!);
  const codeNow = (secret: Buffer) => totpCode(secret, totpStep(new Date()));

  /** A user with two-factor on (the owner's client keeps its session) and a challenge opened with the old password. */
  async function challengeWithOldPassword() {
    const owner = platform.client();
    const email = uniqueEmail("2fa-pending");
    const { body } = await owner.post("/sign-up/email", { name: "Ada", email, password: PASSWORD });
    const secret = secretOf((await owner.post("/two-factor/enable", { password: PASSWORD })).body.totpURI);
    expect((await owner.post("/two-factor/verify-totp", { code: codeNow(secret) })).status).toBe(200);
    platform.clock.advance(30_000);
    const attacker = platform.client();
    expect((await attacker.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    return { owner, attacker, email, secret, userId: body.user.id as string };
  }

  async function expectDeadChallenge(attacker: ReturnType<typeof client>, secret: Buffer) {
    expect(await attacker.post("/two-factor/verify-totp", { code: codeNow(secret) })).toMatchObject({ status: 401, body: { code: "INVALID_TWO_FACTOR_COOKIE" } });
    expect((await attacker.get("/get-session")).body).toBeNull();
  }

  it("the user's own password change ends it", async () => {
    const { owner, attacker, secret } = await challengeWithOldPassword();
    expect((await owner.post("/change-password", { currentPassword: PASSWORD, newPassword: "owner-new-pass-1" })).status).toBe(200);
    await expectDeadChallenge(attacker, secret);
  });

  it("a password reset ends it", async () => {
    const { attacker, email, secret } = await challengeWithOldPassword();
    await client().post("/forget-password", { email });
    const token = resetTokenIn(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/"));
    expect((await client().post("/reset-password", { token, newPassword: "owner-new-pass-1" })).status).toBe(200);
    await expectDeadChallenge(attacker, secret);
  });

  it("an admin's set-user-password ends it", async () => {
    const admin = await anAdmin(platform);
    const { attacker, secret, userId } = await challengeWithOldPassword();
    expect((await admin.c.post("/admin/set-user-password", { userId, newPassword: "admin-set-pass-1" })).status).toBe(200);
    await expectDeadChallenge(attacker, secret);
  });

  it("an admin's set-user-password also ends the trust given to browsers: the next sign-in asks for the second factor", async () => {
    const admin = await anAdmin(platform);
    const { email, secret, userId } = await challengeWithOldPassword();
    const trusted = platform.client();
    expect((await trusted.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    expect((await trusted.post("/two-factor/verify-totp", { code: codeNow(secret), trustDevice: true })).status).toBe(200);
    await trusted.post("/sign-out", {});
    // Trusted: the browser skips the second factor.
    expect((await trusted.post("/sign-in/email", { email, password: PASSWORD })).body).toMatchObject({ user: { id: userId } });
    await trusted.post("/sign-out", {});
    expect((await admin.c.post("/admin/set-user-password", { userId, newPassword: "admin-set-pass-1" })).status).toBe(200);
    expect((await trusted.post("/sign-in/email", { email, password: "admin-set-pass-1" })).body).toMatchObject({ twoFactorRedirect: true });
  });

  it("a challenge opened with the new password is answered as usual", async () => {
    const { owner, email, secret } = await challengeWithOldPassword();
    expect((await owner.post("/change-password", { currentPassword: PASSWORD, newPassword: "owner-new-pass-1" })).status).toBe(200);
    const later = platform.client();
    expect((await later.post("/sign-in/email", { email, password: "owner-new-pass-1" })).body).toMatchObject({ twoFactorRedirect: true });
    expect((await later.post("/two-factor/verify-totp", { code: codeNow(secret) })).status).toBe(200);
  });
});

describe("what a pre-registration squatter set up (a provider account, two-factor), at the owner's reset", () => {
  const social = useSocialPlatform();
  const api = (path: string) => `${social.platform.baseURL}${path}`;
  const at = (path: string) => `${social.platform.origin}${path}`;

  /** Signs the browser out of the provider first, so its login is the account the test names. */
  async function googleSignIn(flow: BrowserFlow, account: OpenIdAccount): Promise<string> {
    for (const name of [...flow.jar.cookies.keys()]) if (name.startsWith("_session") || name.startsWith("_interaction")) flow.jar.cookies.delete(name);
    social.idp.signInAs(account);
    const res = await postJson(flow, api("/sign-in/social"), { provider: "google", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    expect(res.status).toBe(200);
    return (await flow.follow(res.body.url)).url.href;
  }

  /** The newest reset link to `to` in the development outbox (no SMTP_URL here). */
  async function resetLinkFor(to: string): Promise<string> {
    return eventually(async () => {
      const { messages } = (await (await fetch(api(`/dev/outbox?to=${encodeURIComponent(to)}`))).json()) as { messages: { links: string[] }[] };
      const link = messages.flatMap((m) => m.links).find((url) => url.includes("/reset-password/"));
      if (!link) throw new Error(`no reset mail to ${to}`);
      return link;
    });
  }

  /** The owner of the address asks for a reset link and sets a password through it. */
  async function ownerResets(email: string, newPassword: string) {
    const owner = social.browser();
    expect((await postJson(owner, api("/request-password-reset"), { email, redirectTo: "/reset-password" }, social.platform.origin)).status).toBe(200);
    const token = (await owner.follow(await resetLinkFor(email))).url.searchParams.get("token")!;
    expect((await postJson(owner, api("/reset-password"), { token, newPassword })).status).toBe(200);
  }

  const providersOf = async (flow: BrowserFlow) => ((await (await flow.request(api("/list-accounts"))).json()) as Array<{ provider: string }>).map((a) => a.provider).sort();
  const sessionUser = async (flow: BrowserFlow) => ((await (await flow.request(api("/get-session"))).json()) as { user: { id: string } } | null)?.user.id;

  it("an unverified user's reset removes the provider accounts: the squatter's provider sign-in answers account_not_linked", async () => {
    // The squatter's provider does not verify addresses: its profile says the owner's address, unverified.
    const squatted = social.anAccount("squatted", { email_verified: false });
    const squatter = social.browser();
    expect(await googleSignIn(squatter, squatted)).toBe(at("/dashboard"));
    const userId = await sessionUser(squatter);
    expect((await social.platform.services.identity.deps.store.findUserById(userId!))!.emailVerified).toBe(false);
    // The owner cannot sign up (the address is taken) and resets the password instead.
    expect((await postJson(social.browser(), api("/sign-up/email"), { email: squatted.email, password: "owner-password-1", name: "Owner" })).status).toBe(422);
    await ownerResets(squatted.email, "owner-password-1");

    // The linking rules (docs/http-api/social.md#linking-rules): a user with the address exists, the provider is not linked and does not vouch for it.
    const again = social.browser();
    expect(await googleSignIn(again, squatted)).toBe(at("/oops?error=account_not_linked"));
    expect(await sessionUser(again)).toBeUndefined();
    expect(await sessionUser(squatter)).toBeUndefined();

    const owner = social.browser();
    const signedIn = await postJson(owner, api("/sign-in/email"), { email: squatted.email, password: "owner-password-1" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(userId);
    expect(await providersOf(owner)).toEqual(["credential"]);
  });

  it("a verified user's reset keeps the provider accounts", async () => {
    const account = social.anAccount("verified-reset");
    const flow = social.browser();
    expect(await googleSignIn(flow, account)).toBe(at("/dashboard"));
    const userId = await sessionUser(flow);
    await ownerResets(account.email, "owner-password-1");

    const byProvider = social.browser();
    expect(await googleSignIn(byProvider, account)).toBe(at("/dashboard"));
    expect(await sessionUser(byProvider)).toBe(userId);
    expect(await providersOf(byProvider)).toEqual(["credential", "google"]);
    expect((await postJson(social.browser(), api("/sign-in/email"), { email: account.email, password: "owner-password-1" })).status).toBe(200);
  });

  /** Signs a user up with a password and turns two-factor on in that session; answers the user's id. */
  async function signUpWithTwoFactor(email: string, password: string): Promise<string> {
    const flow = social.browser();
    const signedUp = await postJson(flow, api("/sign-up/email"), { email, password, name: "Squatter" }, social.platform.origin);
    expect(signedUp.status).toBe(200);
    const enabled = await postJson(flow, api("/two-factor/enable"), { password }, social.platform.origin);
    const secret = base32Decode(new URL(enabled.body.totpURI).searchParams.get("secret")!);
    expect((await postJson(flow, api("/two-factor/verify-totp"), { code: totpCode(secret, totpStep(new Date())) }, social.platform.origin)).status).toBe(200);
    expect((await postJson(social.browser(), api("/sign-in/email"), { email, password })).body).toMatchObject({ twoFactorRedirect: true });
    return signedUp.body.user.id;
  }

  it("an unverified user's reset turns the squatter's two-factor off: the owner signs in with the new password alone", async () => {
    const email = social.anAccount("squatted-2fa").email;
    const userId = await signUpWithTwoFactor(email, "squatter-pass-1");
    await ownerResets(email, "owner-password-1");

    const owner = social.browser();
    const signedIn = await postJson(owner, api("/sign-in/email"), { email, password: "owner-password-1" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.twoFactorRedirect).toBeUndefined();
    expect(signedIn.body.user).toMatchObject({ id: userId, twoFactorEnabled: false });
    expect(await sessionUser(owner)).toBe(userId);
    // Nothing of the squatter's setup is left to answer a second factor with.
    const { store } = social.platform.services.identity.deps;
    expect(await store.findTwoFactor(userId)).toBeNull();
    expect(await store.countBackupCodes(userId)).toBe(0);
  });

  it("a verified user's reset keeps two-factor: the sign-in with the new password asks for the second factor", async () => {
    const email = social.anAccount("verified-2fa").email;
    const userId = await signUpWithTwoFactor(email, "password-123");
    await social.platform.services.identity.deps.store.updateUser(userId, { emailVerified: true });
    await ownerResets(email, "owner-password-1");

    const owner = social.browser();
    expect((await postJson(owner, api("/sign-in/email"), { email, password: "owner-password-1" })).body).toMatchObject({ twoFactorRedirect: true });
    expect(await sessionUser(owner)).toBeUndefined();
  });
});
