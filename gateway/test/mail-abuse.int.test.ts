/**
 * Mail abuse and password reset end to end (gateway, identity, session and notification over real gRPC,
 * mail over real SMTP): the per-recipient mail limit against a flood, a newer reset token voiding older
 * ones, a reset ending the other sessions by default, mail requests surviving a notification outage, and
 * a development platform that refuses tokens signed with the old published secret.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { backendLabel, dropDatabases } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { openIdentityStore } from "../../services/identity/src/store/mikro-identity-store.js";
import { platformEnv, startGateway, startIdentity, startNotification, startSession } from "../../testing/platform.js";
import { linkIn, startSmtp, type TestSmtp } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";

/** The constant `secretFromEnv` used to return without AUTH_SECRET: public, in the repository's history. */
const PUBLISHED_DEV_SECRET = "development-secret-change-me-0000000000";

const mailsTo = (smtp: TestSmtp, email: string) => smtp.mails.filter((m) => m.to.includes(email));
const resetToken = (link: string) => new URL(link).pathname.split("/").pop()!;

describe(`mail abuse and password reset, default configuration (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const client = (headers?: Record<string, string>) => new TestClient(platform.baseURL, headers);
  async function signUp(email = uniqueEmail()) {
    const c = client();
    expect((await c.post("/sign-up/email", { name: "Victim", email, password: "password-123" })).status).toBe(200);
    await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
    return { c, email };
  }

  it("20 forget-password requests (from rotating client IPs) deliver at most 5 mails to the victim, and answer alike", async () => {
    const { email } = await signUp();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client({ "x-forwarded-for": `203.0.113.${i + 1}` }).post(i % 2 ? "/forget-password" : "/request-password-reset", { email, redirectTo: "/reset" }),
      ),
    );
    expect(answers[0]!.body).toMatchObject({ status: true });
    for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: answers[0]!.body });
    // The sign-up's verification mail counts too: 1 + 4 resets = the limit of 5 per 15 minutes.
    await expect.poll(() => mailsTo(platform.smtp, email).length, { timeout: 10_000 }).toBe(5);
    await platform.mailSettled();
    expect(mailsTo(platform.smtp, email).length).toBe(5);
    expect(mailsTo(platform.smtp, email).filter((m) => m.text.includes("/reset-password/"))).toHaveLength(4);
    // Other routes that mail are limited by the same count; the answer does not change.
    expect(await client().post("/send-verification-email", { email })).toMatchObject({ status: 200, body: { status: true } });
    await platform.mailSettled();
    expect(mailsTo(platform.smtp, email).length).toBe(5);
    // Another recipient is unaffected.
    const other = await signUp();
    await client().post("/forget-password", { email: other.email });
    await platform.smtp.waitFor(other.email, (m) => m.text.includes("/reset-password/"));
  });

  it("a newer reset link voids the older ones; the newest works once", async () => {
    const { email } = await signUp();
    await client().post("/forget-password", { email, redirectTo: "/reset" });
    const first = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    await client().post("/forget-password", { email, redirectTo: "/reset" });
    const second = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/") && !m.text.includes(first)), "/reset-password/");
    expect(resetToken(second)).not.toBe(resetToken(first));

    expect((await client().get(`/reset-password/${resetToken(first)}?callbackURL=/reset`)).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");
    expect(await client().post("/reset-password", { token: resetToken(first), newPassword: "attacker-pass-1" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect((await client().get(`/reset-password/${resetToken(second)}?callbackURL=/reset`)).headers.get("location")).toBe(`/reset?token=${resetToken(second)}`);
    expect(await client().post("/reset-password", { token: resetToken(second), newPassword: "new-password-456" })).toMatchObject({ status: 200, body: { status: true } });
    expect((await client().post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200);
    expect(await client().post("/reset-password", { token: resetToken(second), newPassword: "again-password-7" })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
  });

  it("a password reset ends the user's other sessions by default", async () => {
    const { c: laptop, email } = await signUp();
    const phone = client();
    expect((await phone.post("/sign-in/email", { email, password: "password-123" })).status).toBe(200);
    expect((await phone.get("/get-session")).body).not.toBeNull();
    await client().post("/forget-password", { email });
    const token = resetToken(linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/"));
    expect((await client().post("/reset-password", { token, newPassword: "brand-new-pass-1" })).status).toBe(200);
    expect((await phone.get("/get-session")).body).toBeNull();
    expect((await laptop.get("/get-session")).body).toBeNull();
  });
});

describe(`password reset keeping sessions when configured (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true, env: { IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" } });

  /** Signs a user up on a "phone", verified or not, and resets the password from elsewhere; answers the phone. */
  async function resetAway(label: string, verified: boolean): Promise<{ phone: TestClient; email: string }> {
    const email = uniqueEmail(label);
    const phone = new TestClient(platform.baseURL);
    const signedUp = await phone.post("/sign-up/email", { name: "K", email, password: "password-123" });
    expect(signedUp.status).toBe(200);
    if (verified) await platform.services.identity.deps.store.updateUser(signedUp.body.user.id, { emailVerified: true });
    await new TestClient(platform.baseURL).post("/forget-password", { email });
    const token = resetToken(linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/"));
    expect((await new TestClient(platform.baseURL).post("/reset-password", { token, newPassword: "brand-new-pass-1" })).status).toBe(200);
    return { phone, email };
  }

  it("IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET=false keeps a verified user's other sessions", async () => {
    const { phone, email } = await resetAway("keeper", true);
    expect((await phone.get("/get-session")).body).toMatchObject({ user: { email } });
  });

  it("but ends an unverified user's: whoever opened them never proved the mailbox the reset link did", async () => {
    const { phone } = await resetAway("squatted", false);
    expect((await phone.get("/get-session")).body).toBeNull();
  });
});

describe(`mail requests are durable (${backendLabel()})`, () => {
  it("a reset asked for while the notification service is down is mailed once it is back", async () => {
    const smtp = await startSmtp();
    const { env, databases } = await platformEnv({ env: { SMTP_URL: smtp.url } });
    const queue = await openIdentityStore(env.IDENTITY_DATABASE_URL!);
    let notification = await startNotification(env);
    // Session before identity: identity's start-up backfill calls it at once, and a refused connection
    // would leave identity's channel backing off into the first sign-up (it once answered 503).
    const session = await startSession(env);
    const identity = await startIdentity(env);
    const gateway = await startGateway(env);
    try {
      const c = new TestClient(`${gateway.origin}/api/auth`);
      const email = uniqueEmail("durable");
      expect((await c.post("/sign-up/email", { name: "D", email, password: "password-123" })).status).toBe(200);
      await smtp.waitFor(email);
      await notification.close();
      expect(await c.post("/forget-password", { email, redirectTo: "/reset" })).toMatchObject({ status: 200, body: { status: true } });
      // The worker tried, failed, and kept the request for a later attempt.
      await expect
        .poll(async () => (await queue.findDueMailRequests(new Date(Date.UTC(9999, 0, 1)), 10)).some((r) => r.attempts >= 1 && r.leaseUntil === null), { timeout: 10_000 })
        .toBe(true);
      expect(mailsTo(smtp, email).filter((m) => m.text.includes("/reset-password/"))).toHaveLength(0);
      notification = await startNotification(env);
      const mail = await smtp.waitFor(email, (m) => m.text.includes("/reset-password/"), 15_000);
      const token = resetToken(linkIn(mail, "/reset-password/"));
      expect((await c.post("/reset-password", { token, newPassword: "after-outage-1" })).status).toBe(200);
    } finally {
      await gateway.close();
      await session.close();
      await identity.close();
      await notification.close();
      await queue.close();
      await dropDatabases(databases);
      await smtp.stop();
    }
  });
});

describe(`development secret (${backendLabel()})`, () => {
  const dir = mkdtempSync(join(tmpdir(), "dev-secret-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // No AUTH_SECRET, as in `make dev`: every process reads (the first creates) the one secret file.
  const platform = usePlatform({ smtp: true, env: { AUTH_SECRET: "", AUTH_SECRET_FILE: join(dir, "auth-secret") } });

  it("generates a private secret file, and refuses email tokens forged with the old published constant", async () => {
    expect(statSync(join(dir, "auth-secret")).mode & 0o777).toBe(0o600);
    const email = uniqueEmail("forged");
    const browser = new TestClient(platform.baseURL);
    expect((await browser.post("/sign-up/email", { name: "F", email, password: "password-123" })).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, string>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(new TextEncoder().encode(PUBLISHED_DEV_SECRET));
    const anonymous = new TestClient(platform.baseURL);
    // A forged verification, and a forged email change to the attacker's address: both refused.
    expect(await anonymous.get(`/verify-email?token=${await sign({ email })}`)).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    const attacker = uniqueEmail("attacker");
    expect(await anonymous.get(`/verify-email?token=${await sign({ email, updateTo: attacker })}`)).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
    expect((await browser.get("/get-session")).body.user).toMatchObject({ email, emailVerified: false });
    expect((await anonymous.post("/sign-in/email", { email: attacker, password: "password-123" })).status).toBe(401);
    // The real link, signed with the generated secret, works.
    const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    // Mailed links carry callbackURL=/ by default: the link verifies, then redirects to the app root.
    expect(await browser.get(link.slice(platform.baseURL.length))).toMatchObject({ status: 302 });
    expect((await browser.get("/get-session")).body.user).toMatchObject({ email, emailVerified: true });
  });
});
