/**
 * With no mail server (the development outbox): verify an address from the mailbox page. The error page
 * for every redirect code (docs/http-api.md#redirect-error-codes), and a code it does not know. Both in a
 * German browser: the page, the mail and the error in German.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll } from "./browser-helpers.js";

const web = useWebApp();

const SPEC_REDIRECT_CODES = [
  "token_expired",
  "invalid_token",
  "user_not_found",
  "unauthorized",
  "INVALID_TOKEN",
  "invalid_callback_request",
  "state_not_found",
  "no_code",
  "oauth_provider_not_found",
  "please_restart_the_process",
  "unable_to_get_user_info",
  "email_not_found",
  "email_doesn't_match",
  "unable_to_link_account",
  "internal_server_error",
  "account_not_linked",
  "unable_to_create_user",
  "unable_to_create_session",
];
const GENERIC = "Something went wrong and the request could not be completed.";

describe("development mailbox", () => {
  it("shows the verification mail, and its link verifies the address", async () => {
    const email = uniqueEmail("web-mailbox");
    const page = await web.page();
    await page.goto("/sign-up");
    await page.getByLabel("Name", { exact: true }).fill("Newcomer");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/account");

    await page.getByRole("link", { name: "Mailbox" }).click();
    await page.waitForURL("**/dev/mailbox");
    await page.getByLabel("Recipient").fill(email);
    await page.getByRole("button", { name: "Filter" }).click();
    const mail = page.getByRole("listitem").filter({ hasText: `To ${email}` });
    await poll(() => mail.count()).toBe(1);
    await web.checkA11y(page, "mailbox");
    await web.screenshot(page, "dev-mailbox");
    await mail.getByRole("link", { name: /\/api\/auth\/verify-email\?/ }).click();
    await page.waitForURL((url) => url.pathname === "/verify-email");
    await poll(() => page.getByRole("status").innerText()).toBe("Your email address is verified.");
  });

  it("wraps a long link inside its card on a phone, the page never wider than the screen", async () => {
    // A 400-character callback URL makes the verification link as long.
    const email = uniqueEmail("web-mailbox-long");
    const callbackURL = `/account?from=${"x".repeat(400)}`;
    const signUp = await fetch(`${web.origin}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin },
      body: JSON.stringify({ name: "Long link", email, password: "password-123", callbackURL }),
    });
    expect(signUp.status).toBe(200);
    const page = await web.page({ mobile: true });
    await page.goto("/dev/mailbox");
    await page.getByLabel("Recipient").fill(email);
    await page.getByRole("button", { name: "Filter" }).click();
    const link = page
      .getByRole("listitem")
      .filter({ hasText: `To ${email}` })
      .getByRole("link", { name: /\/api\/auth\/verify-email\?/ });
    await poll(() => link.count()).toBe(1);
    expect((await link.innerText()).length).toBeGreaterThan(400);
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    const card = await page.locator(".mail").first().boundingBox();
    const box = await link.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(card!.x + card!.width);
    await web.screenshot(page, "dev-mailbox-long-link");
  });
});

describe("error page", () => {
  it("has a sentence of its own for every redirect code, shows the code and links to the root", async () => {
    const page = await web.page();
    const sentences = new Set<string>();
    for (const code of SPEC_REDIRECT_CODES) {
      await page.goto(`/error?error=${encodeURIComponent(code)}`);
      const sentence = await page.getByRole("alert").innerText();
      expect(sentence, code).not.toBe(GENERIC);
      sentences.add(sentence);
      expect(await page.locator("code").innerText()).toBe(code);
      expect(await page.getByRole("link", { name: "Back to the application" }).getAttribute("href")).toBe("/");
    }
    expect(sentences.size).toBeGreaterThan(10);
    await page.goto("/error?error=token_expired");
    await web.checkA11y(page, "error page");
    await web.screenshot(page, "error-page");
  });

  it("shows an unknown code as text, with the general sentence", async () => {
    const page = await web.page();
    await page.goto(`/error?error=${encodeURIComponent("<img src=x onerror=alert(1)>")}`);
    expect(await page.getByRole("alert").innerText()).toBe(GENERIC);
    expect(await page.locator("code").innerText()).toBe("<img src=x onerror=alert(1)>");
    expect(await page.locator("main img").count()).toBe(0);
  });

  it("answers an unknown path with the not-found page, and loads no analytics script when none is configured", async () => {
    const page = await web.page();
    await page.goto("/no/such/page");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Page not found");
    const scripts = await page.locator("script[src]").evaluateAll((nodes) => nodes.map((n) => (n as HTMLScriptElement).src));
    expect(scripts.every((src) => new URL(src).pathname.startsWith("/assets/"))).toBe(true);
  });
});

describe("in a German browser", () => {
  it("shows the error page in German: its sentence, the code, the way back and the page's title and language", async () => {
    const page = await web.page({ locale: "de-DE" });
    await page.goto("/error?error=token_expired");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Etwas ist schiefgelaufen");
    expect(await page.getByRole("alert").innerText()).toBe("Dieser Link ist abgelaufen. Fordern Sie einen neuen an und verwenden Sie ihn innerhalb einer Stunde.");
    const codeLine = page.locator("main p").filter({ has: page.locator("code") });
    expect(await codeLine.innerText()).toBe("Fehlercode: token_expired");
    expect(await page.getByRole("link", { name: "Zurück zur Anwendung" }).getAttribute("href")).toBe("/");
    expect(await page.title()).toBe("Etwas ist schiefgelaufen · Auth Platform");
    expect(await page.locator("html").getAttribute("lang")).toBe("de");
    await page.goto(`/error?error=${encodeURIComponent("no_such_code")}`);
    await poll(() => page.getByRole("alert").innerText()).toBe("Etwas ist schiefgelaufen; die Anfrage konnte nicht abgeschlossen werden.");
    await web.checkA11y(page, "error page in German");
    await web.screenshot(page, "error-page-de");
  });

  it("shows the mailbox in German, with the verification mail a German sign-up got", async () => {
    const email = uniqueEmail("web-mailbox-de");
    const page = await web.page({ locale: "de-DE" });
    await page.goto("/dev/mailbox");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Entwicklungs-Postfach");
    // Signed up from this browser, which sends its language (Accept-Language: de-DE) as the app does.
    const status = await page.evaluate(async (address) => {
      const res = await fetch("/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Neuling", email: address, password: "password-123" }),
      });
      return res.status;
    }, email);
    expect(status).toBe(200);
    await page.getByLabel("Empfänger").fill(email);
    await page.getByRole("button", { name: "Filtern" }).click();
    const mail = page.getByRole("listitem").filter({ hasText: `An ${email}` });
    await poll(() => mail.count()).toBe(1);
    const subject = "Bestätigen Sie Ihre E-Mail-Adresse für Auth Platform";
    expect(await mail.getByRole("heading", { level: 2 }).innerText()).toBe(subject);
    expect(await mail.locator("pre").innerText()).toContain("Hallo Neuling,");
    const links = mail.getByRole("list", { name: `Links in „${subject}“` });
    expect(await links.getByRole("link").count()).toBe(1);
    // The date as a German reader writes it (28.11.2025, 22:41:53).
    expect(await mail.locator("time").innerText()).toMatch(/^\d{1,2}\.\d{1,2}\.\d{4}, \d{2}:\d{2}:\d{2}$/);
    await page.getByLabel("Empfänger").fill("nobody-yet@example.com");
    await page.getByRole("button", { name: "Filtern" }).click();
    await poll(() => page.getByRole("status").innerText()).toBe("Noch keine E-Mails an nobody-yet@example.com.");
    await web.checkA11y(page, "mailbox in German");
    await web.screenshot(page, "dev-mailbox-de");
  });
});
