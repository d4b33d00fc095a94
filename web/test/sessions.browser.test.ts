/**
 * Active sessions on the account page: devices named, this one marked, revoke one, revoke others, everywhere;
 * each asks first (cancelling ends nothing) and says what it did.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

// No session from the sign-up call itself: the list holds only the browsers' sessions.
const web = useWebApp({ env: { IDENTITY_AUTO_SIGN_IN: "false" } });

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** Whether the page's browser still holds a session (asked the way the app asks). */
const signedIn = (page: Page) =>
  page.evaluate(() =>
    fetch("/api/auth/get-session")
      .then((r) => r.json())
      .then((body) => body !== null),
  );

describe("active sessions", () => {
  it("names each device, marks this one, and signs out one, the others, then everywhere", async () => {
    const email = uniqueEmail("web-sessions");
    await signUpByApi(web.origin, { name: "Sam", email, password: "password-123" });
    const desktop = await web.page();
    const phone = await web.page({ mobile: true, userAgent: IPHONE });
    await signInOnScreen(phone, email, "password-123");
    await signInOnScreen(desktop, email, "password-123");

    const sessions = desktop.getByRole("list", { name: "Sessions" });
    await poll(() => sessions.getByRole("listitem").count()).toBe(2);
    const items = await sessions.getByRole("listitem").allInnerTexts();
    expect(items[0]).toMatch(/Chrome on Linux\s*This device/);
    expect(items[0]).toContain("127.0.0.1");
    expect(items[1]).toContain("Safari on iPhone");
    expect(items[1]).not.toContain("This device");
    // How each was opened: both with the password (the sign-up's session was never listed: signed up by API).
    for (const item of items) expect(item).toContain("signed in with a password");
    await web.checkA11y(desktop, "account sessions");
    await web.screenshot(desktop, "account-sessions");
    await web.screenshot(phone, "account-390px");
    // Usable 390 px wide: nothing wider than the screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Asked first: cancelling signs nothing out.
    await desktop.getByRole("button", { name: /^Sign out Safari on iPhone/ }).click();
    const askOne = desktop.getByRole("dialog", { name: "Sign out Safari on iPhone?" });
    await poll(() => askOne.innerText()).toContain("Safari on iPhone (127.0.0.1) is signed out at once.");
    await web.checkA11y(desktop, "sign out one device dialog");
    await askOne.getByRole("button", { name: "Cancel" }).click();
    await poll(() => askOne.isVisible()).toBe(false);
    expect(await signedIn(phone)).toBe(true);
    await desktop.getByRole("button", { name: /^Sign out Safari on iPhone/ }).click();
    await askOne.getByRole("button", { name: "Sign out", exact: true }).click();
    await poll(() => sessions.getByRole("listitem").count()).toBe(1);
    await poll(() => desktop.getByRole("region", { name: "Active sessions" }).getByRole("status").innerText()).toContain("Safari on iPhone has been signed out.");
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(desktop)).toBe(true);
    // The phone's account page, reloaded, sends it to sign-in (and back to the account page after).
    await phone.reload();
    await phone.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("redirect") === "/account");

    await signInOnScreen(phone, email, "password-123");
    await desktop.reload();
    await poll(() => sessions.getByRole("listitem").count()).toBe(2);
    await desktop.getByRole("button", { name: "Sign out other devices" }).click();
    await desktop.getByRole("dialog", { name: "Sign out your other devices?" }).getByRole("button", { name: "Sign out other devices" }).click();
    await poll(() => desktop.getByRole("region", { name: "Active sessions" }).getByRole("status").innerText()).toContain("Your other devices have been signed out.");
    await poll(() => sessions.getByRole("listitem").count()).toBe(1);
    expect(await signedIn(phone)).toBe(false);

    await signInOnScreen(phone, email, "password-123");
    await desktop.getByRole("button", { name: "Sign out everywhere" }).click();
    await desktop.getByRole("dialog", { name: "Sign out everywhere?" }).getByRole("button", { name: "Sign out everywhere" }).click();
    await desktop.waitForURL("**/sign-in");
    await poll(() => desktop.getByRole("status").innerText()).toContain("You have been signed out on every device, this one included.");
    expect(await signedIn(desktop)).toBe(false);
    expect(await signedIn(phone)).toBe(false);
  });
});
