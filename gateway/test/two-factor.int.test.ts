/**
 * Two-factor sign-in through the gateway with the real better-auth twoFactorClient, both generations (1.1
 * and 1.7), each client with its own cookie jar as a browser: enrolment, the sign-in challenge answered by
 * TOTP, by a code mailed to a real SMTP server and by backup codes, and trusted devices over simulated days.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { twoFactorClient as legacyTwoFactorClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { twoFactorClient as currentTwoFactorClient } from "better-auth-1.7/client/plugins";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";

const platform = usePlatform({ smtp: true });
const PASSWORD = "password-123";
const DAY = 86_400_000;
const BACKUP_CODE = /^[A-Za-z0-9]{5}-[A-Za-z0-9]{5}$/;

type CustomFetch = ReturnType<typeof browserFetch>["customFetchImpl"];
const currentClient = (baseURL: string, customFetchImpl: CustomFetch) => createCurrentClient({ baseURL, plugins: [currentTwoFactorClient()], fetchOptions: { customFetchImpl } });
type TwoFactorAuthClient = ReturnType<typeof currentClient>;
/** Typed through the current client's API, which both share for every call made here. */
const clientOf = (generation: ClientGeneration, baseURL: string, customFetchImpl: CustomFetch): TwoFactorAuthClient =>
  generation.current
    ? currentClient(baseURL, customFetchImpl)
    : (createLegacyClient({ baseURL, plugins: [legacyTwoFactorClient()], fetchOptions: { customFetchImpl } }) as unknown as TwoFactorAuthClient);

/** The current code of the secret in an otpauth URI, as an authenticator app shows it. */
function codeFor(totpURI: string, at = new Date()): string {
  return totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(at));
}

/** The next 30-second step, so a code differs from the last one used (each code is good once). */
const nextStep = () => platform.clock.advance(30_000);

describe.each(CLIENT_GENERATIONS)(`two-factor with the better-auth $version twoFactorClient (${backendLabel()})`, (generation: ClientGeneration) => {
  function aBrowser() {
    const { cookies, customFetchImpl } = browserFetch(platform.origin);
    return { client: clientOf(generation, platform.baseURL, customFetchImpl), cookies };
  }

  /** A user with two-factor enabled and activated by a first code; signed out again. */
  async function enrolled() {
    const browser = aBrowser();
    const email = uniqueEmail("2fa");
    expect((await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD })).error).toBeNull();
    const { data, error } = await browser.client.twoFactor.enable({ password: PASSWORD });
    expect(error).toBeNull();
    const { totpURI, backupCodes } = data as { totpURI: string; backupCodes: string[] };
    expect((await browser.client.twoFactor.verifyTotp({ code: codeFor(totpURI) })).error).toBeNull();
    await browser.client.signOut();
    nextStep();
    return { ...browser, email, totpURI, backupCodes };
  }

  /** Signs in with the password: expects the challenge, no session. */
  async function challenged(browser: ReturnType<typeof aBrowser>, email: string) {
    const { data, error } = await browser.client.signIn.email({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data).toMatchObject({ twoFactorRedirect: true });
    if (generation.current) expect((data as { twoFactorMethods?: string[] }).twoFactorMethods).toEqual(["totp", "otp"]);
    expect(browser.cookies.has("better-auth.session_token")).toBe(false);
    expect(browser.cookies.has("better-auth.two_factor")).toBe(true);
    expect((await browser.client.getSession()).data).toBeNull();
  }

  it("enable answers an otpauth URI naming the app and the account and 10 backup codes; active only after a first code", async () => {
    const { client } = aBrowser();
    const email = uniqueEmail("2fa");
    await client.signUp.email({ name: "Ada", email, password: PASSWORD });
    const { data, error } = await client.twoFactor.enable({ password: PASSWORD });
    expect(error).toBeNull();
    const { totpURI, backupCodes } = data as { totpURI: string; backupCodes: string[] };
    const uri = new URL(totpURI);
    expect(uri.protocol).toBe("otpauth:");
    expect(decodeURIComponent(uri.pathname)).toBe(`/Auth Platform:${email.toLowerCase()}`);
    expect(uri.searchParams.get("issuer")).toBe("Auth Platform");
    expect(backupCodes).toHaveLength(10);
    for (const code of backupCodes) expect(code).toMatch(BACKUP_CODE);
    expect(new Set(backupCodes).size).toBe(10);

    expect((await client.getSession()).data!.user).toMatchObject({ twoFactorEnabled: false });
    const wrong = await client.twoFactor.verifyTotp({ code: "000000" === codeFor(totpURI) ? "111111" : "000000" });
    expect(wrong.error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    expect((await client.getSession()).data!.user).toMatchObject({ twoFactorEnabled: false });
    expect((await client.twoFactor.verifyTotp({ code: codeFor(totpURI) })).error).toBeNull();
    expect((await client.getSession()).data!.user).toMatchObject({ twoFactorEnabled: true });

    // Enabling again while active is refused; the URI is given again with the password only.
    expect((await client.twoFactor.enable({ password: PASSWORD })).error).toMatchObject({ status: 400, code: "TOTP_IS_ALREADY_ENABLED" });
    expect((await client.twoFactor.getTotpUri({ password: "wrong-password" })).error).toMatchObject({ status: 400, code: "INVALID_PASSWORD" });
    expect((await client.twoFactor.getTotpUri({ password: PASSWORD })).data).toEqual({ totpURI });
  });

  it("sign-in with two-factor on: a challenge, no session; a wrong code creates none; the TOTP code creates it, once", async () => {
    const { email, totpURI, ...browser } = await enrolled();
    await challenged(browser, email);

    const wrong = await browser.client.twoFactor.verifyTotp({ code: codeFor(totpURI, new Date(Date.now() - 120_000)) });
    expect(wrong.data).toBeNull();
    expect(wrong.error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION", message: "invalid two factor authentication" });
    expect(browser.cookies.has("better-auth.session_token")).toBe(false);
    expect((await browser.client.getSession()).data).toBeNull();

    const code = codeFor(totpURI);
    const { data, error } = await browser.client.twoFactor.verifyTotp({ code });
    expect(error).toBeNull();
    expect(data).toMatchObject({ token: expect.stringMatching(/^[A-Za-z0-9]{32}$/), user: { email: email.toLowerCase(), twoFactorEnabled: true } });
    expect((await browser.client.getSession()).data!.session.token).toBe((data as { token: string }).token);
    expect(browser.cookies.has("better-auth.two_factor")).toBe(false);

    // The same code again, on a new challenge: refused (each code is good once).
    await browser.client.signOut();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyTotp({ code })).error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    expect((await browser.client.getSession()).data).toBeNull();
  });

  it("a code mailed through the notification service, received by the SMTP server, signs in once", async () => {
    const { email, ...browser } = await enrolled();
    await challenged(browser, email);
    const since = platform.smtp.mails.length;
    expect((await browser.client.twoFactor.sendOtp()).error).toBeNull();
    const mail = await platform.smtp.waitFor(email.toLowerCase(), (m) => platform.smtp.mails.indexOf(m) >= since);
    expect(mail.subject).not.toMatch(/\d{6}/);
    const code = /\b(\d{6})\b/.exec(mail.text)![1]!;

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    expect((await browser.client.twoFactor.verifyOtp({ code: wrong })).error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    expect((await browser.client.getSession()).data).toBeNull();
    const { data, error } = await browser.client.twoFactor.verifyOtp({ code });
    expect(error).toBeNull();
    expect((data as { user: { email: string } }).user.email).toBe(email.toLowerCase());
    expect((await browser.client.getSession()).data!.user.email).toBe(email.toLowerCase());

    // The challenge is used up: its code cannot sign in a second browser that copied the cookie.
    await browser.client.signOut();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyOtp({ code })).error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
  });

  it("a backup code signs in once, then is refused; another one still works", async () => {
    const { email, backupCodes, ...browser } = await enrolled();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyBackupCode({ code: backupCodes[0]! })).error).toBeNull();
    expect((await browser.client.getSession()).data!.user.email).toBe(email.toLowerCase());

    await browser.client.signOut();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyBackupCode({ code: backupCodes[0]! })).error).toMatchObject({ status: 401, code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    expect((await browser.client.getSession()).data).toBeNull();
    expect((await browser.client.twoFactor.verifyBackupCode({ code: backupCodes[1]!.replace("-", "") })).error).toBeNull();
    expect((await browser.client.getSession()).data!.user.email).toBe(email.toLowerCase());

    // New codes replace the old ones.
    const { data } = await browser.client.twoFactor.generateBackupCodes({ password: PASSWORD });
    const fresh = (data as { backupCodes: string[] }).backupCodes;
    expect(fresh).toHaveLength(10);
    await browser.client.signOut();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyBackupCode({ code: backupCodes[2]! })).error).toMatchObject({ status: 401 });
    expect((await browser.client.twoFactor.verifyBackupCode({ code: fresh[0]! })).error).toBeNull();
  });

  it("a trusted device skips the second factor on every sign-in for 30 days, renewed on use, until revoked", async () => {
    const { email, totpURI, ...browser } = await enrolled();
    await challenged(browser, email);
    expect((await browser.client.twoFactor.verifyTotp({ code: codeFor(totpURI), trustDevice: true })).error).toBeNull();
    expect(browser.cookies.has("better-auth.trust_device")).toBe(true);

    // Three sign-ins, 10, 35 and 64 days later: each within 30 days of the previous use.
    for (const days of [10, 25, 29]) {
      await browser.client.signOut();
      platform.clock.advance(days * DAY);
      const { data, error } = await browser.client.signIn.email({ email, password: PASSWORD });
      expect(error).toBeNull();
      expect(data, `after ${days} more days`).toMatchObject({ token: expect.any(String), user: { email: email.toLowerCase() } });
      expect(data).not.toHaveProperty("twoFactorRedirect");
    }

    // Another browser of the same user is still challenged.
    await challenged(aBrowser(), email);

    // Listed, then revoked by the user: the next sign-in is challenged again.
    const listed = await fetchJson(browser, "GET", "/two-factor/list-trusted-devices");
    expect(listed.devices).toHaveLength(1);
    await fetchJson(browser, "POST", "/two-factor/revoke-trusted-device", { id: listed.devices[0].id });
    expect((await fetchJson(browser, "GET", "/two-factor/list-trusted-devices")).devices).toEqual([]);
    await browser.client.signOut();
    nextStep();
    await challenged(browser, email);
  });

  /** A call no client declares (our trusted-device routes), with the browser's cookies. */
  async function fetchJson(browser: ReturnType<typeof aBrowser>, method: string, path: string, body?: unknown) {
    const { data, error } = await (browser.client as unknown as { $fetch: (path: string, init: object) => Promise<{ data: any; error: unknown }> }).$fetch(path, {
      method,
      ...(body ? { body } : {}),
    });
    expect(error).toBeNull();
    return data;
  }
});
