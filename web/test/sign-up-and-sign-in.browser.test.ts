/**
 * Sign up, verify the address from the mailed link, sign out and sign in again (with the username), as a
 * person does in Chromium against the real platform and a real SMTP server; axe on each screen. The sign-in
 * screen loads none of the code of the admin area, the organization screens or the QR code library.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { mailLink, poll, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

describe("sign up, verify, sign out and in", () => {
  it("creates an account with the password rules shown as one types, verifies it from the mail and signs in with the username", async () => {
    const page = await web.page();
    const email = uniqueEmail("web-signup");
    const username = `ada${Date.now().toString(36)}`;

    await page.goto("/sign-up");
    await poll(() => page.title()).toContain("Create an account");
    await web.checkA11y(page, "sign up");
    await page.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Username (optional)").fill(username);
    const password = page.getByLabel("Password", { exact: true });
    await password.fill("short");
    expect(await page.locator(".rules li.met").allInnerTexts()).toEqual([expect.stringContaining("At most 128 characters")]);
    expect(await page.locator(".rules li.unmet").allInnerTexts()).toEqual([expect.stringContaining("At least 8 characters")]);
    await page.getByRole("button", { name: "Create account" }).click();
    await poll(() => page.getByRole("alert").first().innerText()).toContain("Choose a password that meets the rules");
    await password.fill("correct horse battery");
    expect(await page.locator(".rules li.unmet").count()).toBe(0);
    await web.screenshot(page, "sign-up");
    await page.getByRole("button", { name: "Create account" }).click();

    // Signed in at once (auto sign-in), on the account page, the address not yet verified.
    await page.waitForURL("**/account");
    await poll(() => page.getByText(`Email: ${email} (not verified)`).count()).toBe(1);

    const mail = await web.smtp.waitFor(email);
    const link = mailLink(mail.text, "/verify-email");
    expect(link.startsWith(`${web.origin}/api/auth/verify-email?`)).toBe(true);
    await page.goto(link);
    await page.waitForURL("**/verify-email");
    await poll(() => page.getByRole("status").innerText()).toBe("Your email address is verified.");
    await web.checkA11y(page, "verify email");
    await web.screenshot(page, "verify-email");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    await web.checkA11y(page, "sign in");
    await web.screenshot(page, "sign-in");

    // The wrong password: the catalogue's message, at the top of the form, and no session.
    await page.getByLabel("Email or username").fill(username);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("invalid username or password");
    await web.checkA11y(page, "sign in with an error");

    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/account");
    await poll(() => page.getByText(`Email: ${email} (verified)`).count()).toBe(1);
  });

  it("signs in with the email address, and a signed-out visit to the account page comes back to it after signing in", async () => {
    const email = uniqueEmail("web-guard");
    await signUpByApi(web.origin, { name: "Grace", email, password: "password-123" });

    const page = await web.page();
    await page.goto("/account");
    await page.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("redirect") === "/account");
    await page.getByLabel("Email or username").fill(email.toUpperCase());
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByLabel("Remember me on this device").uncheck();
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/account");
    // Remember me off: the session cookie lives only as long as the browser.
    const cookies = await page.context().cookies();
    const sessionCookie = cookies.find((c) => c.name.endsWith("session_token"));
    expect(sessionCookie?.expires).toBe(-1);
  });

  it("never follows a redirect to another site after signing in", async () => {
    const email = uniqueEmail("web-redirect");
    await signUpByApi(web.origin, { name: "Mallory's target", email, password: "password-123" });
    const page = await web.page();
    for (const target of ["//evil.example/x", "https://evil.example/x", "/\\evil.example"]) {
      await page.context().clearCookies();
      await page.goto(`/sign-in?redirect=${encodeURIComponent(target)}`);
      await page.getByLabel("Email or username").fill(email);
      await page.getByLabel("Password", { exact: true }).fill("password-123");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL(`${web.origin}/account`);
    }
  });

  it("loads the sign-in screen without the admin area, the organization screens or the QR code library", async () => {
    const page = await web.page();
    const scripts: Promise<string>[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname.endsWith(".js")) scripts.push(response.text());
    });
    await page.goto("/sign-in");
    await poll(() => page.getByRole("button", { name: "Sign in", exact: true }).count()).toBe(1);
    await page.waitForLoadState("networkidle");
    const code = (await Promise.all(scripts)).join("\n");
    // A mark of each: the sign-in form's label; the audit log table's and the invitations list's message keys
    // (the English messages themselves are in the first chunk); the QR encoder's error.
    expect(code).toContain("Email or username");
    for (const marker of ["admin.audit.tableLabel", "organizations.invitations.pendingTitle", "Invalid QR Code version"]) expect(code, marker).not.toContain(marker);
  });
});
