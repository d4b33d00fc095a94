/**
 * Two-factor in the browser: set up from the account page with the QR code's key,
 * backup codes shown once, the sign-in challenge answered with a TOTP code (trusting the device), with a
 * code by mail and with a backup code, trusted devices listed and revoked, and two-factor turned off (each
 * asked first, with the password in the dialog, and reported after). The challenge shows its newest refusal.
 */
import { createHmac } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

/**
 * Whether this build has the two-factor API; without it these tests are skipped, saying so;
 * once it has, they run in full.
 */
const hasTwoFactorApi = async () =>
  (await fetch(`${web.origin}/api/auth/two-factor/send-otp`, { method: "POST", headers: { "content-type": "application/json", origin: web.origin }, body: "{}" })).status !== 404;
const NO_API = "the two-factor API is not in this build";

/** RFC 4648 base32 (the otpauth secret) to bytes. */
function base32(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of text.replace(/=+$/, "").toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  return Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
}

/** RFC 6238 TOTP (SHA-1, 30 s, 6 digits) for the time step `offset` steps from now. */
function totp(secret: string, offset = 0): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + offset));
  const hmac = createHmac("sha1", base32(secret)).update(counter).digest();
  const start = hmac[hmac.length - 1]! & 0xf;
  return String((hmac.readUInt32BE(start) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

async function signInToChallenge(page: Page, email: string, password: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email or username").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/two-factor?**");
}

describe("two-factor authentication", () => {
  it("is set up from the account page and then asked for at sign-in, trusted devices skipping it until revoked", async ({ skip }) => {
    if (!(await hasTwoFactorApi())) return skip(NO_API);
    const email = uniqueEmail("web-2fa");
    await signUpByApi(web.origin, { name: "Tess", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");

    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByLabel("Password").fill("password-123");
    await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await poll(() => section.getByRole("img", { name: "QR code of your authenticator key" }).getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    const secret = await section.getByTestId("totp-secret").innerText();
    const backupCodes = await section.getByRole("list", { name: "Backup codes" }).getByRole("listitem").allInnerTexts();
    expect(backupCodes).toHaveLength(10);
    for (const code of backupCodes) expect(code).toMatch(/^[A-Za-z0-9]{5}-[A-Za-z0-9]{5}$/);
    const download = section.getByRole("link", { name: "Download codes" });
    expect(await download.getAttribute("download")).toBe("backup-codes.txt");
    await web.checkA11y(page, "two-factor setup");
    await web.screenshot(page, "two-factor-setup");

    await section.getByLabel("Code from your authenticator app").fill(totp(secret));
    await section.getByRole("button", { name: "Turn on two-factor authentication" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toBe("Two-factor authentication is on.");

    // Sign in again: the challenge, answered with the next TOTP step (one step of skew; the last code is spent).
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInToChallenge(page, email, "password-123");
    await web.checkA11y(page, "two-factor challenge");
    await web.screenshot(page, "two-factor-challenge");
    await page.getByLabel("Code from your authenticator app").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("invalid two factor authentication");
    await page.getByLabel("Code from your authenticator app").fill(totp(secret, 1));
    await page.getByLabel("Trust this device for 30 days").check();
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/account");

    // This browser is trusted now: no challenge.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInOnScreen(page, email, "password-123");
    const devices = page.getByRole("list", { name: "Trusted devices" });
    await poll(() => devices.getByRole("listitem").count()).toBe(1);

    // Another browser: a backup code, once.
    const other = await web.page();
    await signInToChallenge(other, email, "password-123");
    await other.getByRole("radio", { name: "Backup code" }).check();
    await other.getByRole("textbox", { name: "Backup code" }).fill(backupCodes[0]!);
    await other.getByRole("button", { name: "Verify" }).click();
    await other.waitForURL("**/account");

    // A third: a code by mail.
    const third = await web.page();
    await signInToChallenge(third, email, "password-123");
    await third.getByRole("radio", { name: "Code by email" }).check();
    await third.getByRole("button", { name: "Email me a code" }).click();
    const mail = await web.smtp.waitFor(email, (m) => /\b\d{6}\b/.test(m.text) && !m.text.includes("/verify-email"));
    await third.getByLabel("Code from the email").fill(mail.text.match(/\b(\d{6})\b/)![1]!);
    await third.getByRole("button", { name: "Verify" }).click();
    await third.waitForURL("**/account");

    // Revoke the trusted device: the next sign-in from the first browser is challenged again.
    await page.reload();
    await devices.getByRole("button", { name: /^Stop trusting/ }).click();
    await page
      .getByRole("dialog", { name: /^Stop trusting Chrome on Linux/ })
      .getByRole("button", { name: "Stop trusting" })
      .click();
    await poll(() => devices.getByRole("listitem").count()).toBe(0);
    await poll(() => page.getByRole("region", { name: "Two-factor authentication" }).getByRole("status").first().innerText()).toContain("Chrome on Linux is no longer trusted");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInToChallenge(page, email, "password-123");
  });

  it("turns off with the password", async ({ skip }) => {
    if (!(await hasTwoFactorApi())) return skip(NO_API);
    const email = uniqueEmail("web-2fa-off");
    await signUpByApi(web.origin, { name: "Otto", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByLabel("Password").fill("password-123");
    await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = await section.getByTestId("totp-secret").innerText();
    await section.getByLabel("Code from your authenticator app").fill(totp(secret));
    await section.getByRole("button", { name: "Turn on two-factor authentication" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toBe("Two-factor authentication is on.");

    // Asked first, the password in the dialog; a wrong one is refused there and nothing changes.
    await section.getByRole("button", { name: "Turn off two-factor authentication" }).click();
    const dialog = page.getByRole("dialog", { name: "Turn off two-factor authentication?" });
    await web.checkA11y(page, "turn off two-factor dialog");
    await dialog.getByLabel("Password").fill("wrong-password");
    await dialog.getByRole("button", { name: "Turn off", exact: true }).click();
    await poll(() => dialog.getByRole("alert").innerText()).toBe("Invalid password");
    await dialog.getByLabel("Password").fill("password-123");
    await dialog.getByRole("button", { name: "Turn off", exact: true }).click();
    await poll(() => section.getByRole("button", { name: "Set up two-factor authentication" }).count()).toBe(1);
    await poll(() => section.getByRole("status").first().innerText()).toContain("Two-factor authentication is off.");

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInOnScreen(page, email, "password-123");
  });

  it("shows the newest refusal of the challenge, and announces the same one again", async ({ skip }) => {
    if (!(await hasTwoFactorApi())) return skip(NO_API);
    const email = uniqueEmail("web-2fa-refusals");
    await signUpByApi(web.origin, { name: "Nia", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByLabel("Password").fill("password-123");
    await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = await section.getByTestId("totp-secret").innerText();
    await section.getByLabel("Code from your authenticator app").fill(totp(secret));
    await section.getByRole("button", { name: "Turn on two-factor authentication" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toBe("Two-factor authentication is on.");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInToChallenge(page, email, "password-123");

    const alert = page.getByRole("alert");
    await page.getByRole("radio", { name: "Code by email" }).check();
    await page.getByLabel("Code from the email").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await poll(() => alert.innerText()).toBe("invalid two factor authentication");
    // The challenge is gone from this browser: the code request is refused, and that newer refusal shows.
    await page.context().clearCookies();
    await page.getByRole("button", { name: "Email me a code" }).click();
    await poll(() => alert.innerText()).toBe("invalid two factor cookie");
    // The same refusal again is announced again: the alert takes the focus once more.
    await page.getByLabel("Code from the email").focus();
    await page.getByRole("button", { name: "Email me a code" }).click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    expect(await alert.innerText()).toBe("invalid two factor cookie");
  });
});
