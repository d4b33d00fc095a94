/**
 * Passkeys in a real Chromium, with its virtual authenticator (CDP WebAuthn: a platform authenticator that
 * keeps discoverable credentials and verifies the user): added from the account page, signed in with from the
 * sign-in screen, renamed, deleted after a confirmation, and then refused and forgotten on the device; a
 * two-factor user answers the challenge with one. WebAuthn needs a domain, so the app runs on http://localhost.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ hostname: "localhost" });
const PASSWORD = "password-123";

/** Gives the page's browser context a platform authenticator that verifies the user (a fingerprint, say). */
async function withAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
    /**
     * The person touching the authenticator, or not. Off, a request waits: the sign-in screen's autofill
     * request stays pending as if no suggestion were picked (on, the virtual authenticator would answer it).
     */
    present: (enabled: boolean) => cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled }),
  };
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL("**/sign-in");
}

describe("passkeys in the browser", () => {
  it("are added from the account page, sign in, are renamed and deleted, and then sign no one in", async () => {
    const email = uniqueEmail("web-passkey");
    await signUpByApi(web.origin, { name: "Pia", email, password: PASSWORD });
    const page = await web.page();
    const authenticator = await withAuthenticator(page);
    await signInOnScreen(page, email, PASSWORD);

    const section = page.getByRole("region", { name: "Passkeys" });
    await poll(() => section.getByText("You have no passkeys yet.").isVisible()).toBe(true);
    await section.getByRole("button", { name: "Add a passkey" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toMatch(/^Passkey added\./);
    const list = section.getByRole("list", { name: "Passkeys" });
    await poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.getByRole("listitem").innerText()).toMatch(/Passkey\s+added .* · on one device/);
    expect(await authenticator.credentials()).toHaveLength(1);
    await web.checkA11y(page, "account passkeys");
    await web.screenshot(page, "account-passkeys");

    // The same authenticator again: the browser refuses (it holds one of the account's passkeys), and the
    // section says why instead of "not used".
    await section.getByRole("button", { name: "Add a passkey" }).click();
    await poll(() => section.getByRole("alert").first().innerText()).toMatch(/^This device already holds a passkey for this account/);
    expect(await list.getByRole("listitem").count()).toBe(1);
    expect(await authenticator.credentials()).toHaveLength(1);

    // The button: the screen's autofill request, started while no one touched the authenticator, stays
    // pending; the button's request replaces it and is answered.
    await authenticator.present(false);
    // The autofill request starts once its options came; started after the touch below, it would be answered.
    const autofillOptions = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith("/passkey/generate-authenticate-options"));
    await signOut(page);
    await autofillOptions;
    await web.checkA11y(page, "sign-in with a passkey button");
    expect(await page.getByLabel("Email or username").getAttribute("autocomplete")).toBe("username webauthn");
    await authenticator.present(true);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL("**/account");
    await poll(() =>
      page
        .getByText(/signed in with a passkey/)
        .first()
        .isVisible(),
    ).toBe(true);

    // Autofill: the virtual authenticator answers the screen's conditional request as a person picking the
    // passkey among the field's suggestions would, with no button pressed.
    await signOut(page);
    await page.waitForURL("**/account");

    await section.getByRole("button", { name: "Rename Passkey" }).click();
    await section.getByLabel("New name for Passkey").fill("Work laptop");
    await section.getByRole("button", { name: "Save" }).click();
    await poll(() => list.getByRole("listitem").first().innerText()).toMatch(/^Work laptop/);

    await section.getByRole("button", { name: "Delete Work laptop" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete the passkey Work laptop?" });
    await web.checkA11y(page, "delete passkey dialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toMatch(/^Passkey deleted\./);
    await poll(() => section.getByText("You have no passkeys yet.").isVisible()).toBe(true);

    // The authenticator still offers the credential; the platform no longer knows it. The sign-in screen's
    // autofill request is answered with it and refused. The device is told to forget it (WebAuthn's Signal
    // API), and the field asks for passkeys again, of which the device now has none.
    let asked: string[] = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/auth/passkey/")) asked.push(path.slice("/api/auth/passkey/".length));
    });
    await signOut(page);
    await poll(() => page.getByRole("alert").first().innerText()).toBe("Passkey not found");
    await poll(async () => (await authenticator.credentials()).length).toBe(0);
    await poll(() => asked).toEqual(["generate-authenticate-options", "verify-authentication", "generate-authenticate-options"]);
    expect(new URL(page.url()).pathname).toBe("/sign-in");

    // The button, with no passkey on the device: nothing was used, and the field offers passkeys again.
    asked = [];
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await poll(() => page.getByRole("alert").first().innerText()).toMatch(/^The passkey was not used/);
    await poll(() => asked).toEqual(["generate-authenticate-options", "generate-authenticate-options"]);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
  });

  it("answers the two-factor challenge with a passkey", async () => {
    const email = uniqueEmail("web-passkey-2fa");
    await signUpByApi(web.origin, { name: "Tom", email, password: PASSWORD });
    const page = await web.page();
    const authenticator = await withAuthenticator(page);
    await signInOnScreen(page, email, PASSWORD);
    await page.getByRole("region", { name: "Passkeys" }).getByRole("button", { name: "Add a passkey" }).click();
    await poll(() => page.getByRole("region", { name: "Passkeys" }).getByRole("listitem").count()).toBe(1);
    await authenticator.present(false);
    // Two-factor on, by the mailed-code method alone (no authenticator app): the API of the account section.
    const store = web.platform.services.identity.deps.store;
    const user = await store.findUserByEmail(email.toLowerCase());
    await store.updateUser(user!.id, { twoFactorEnabled: true });

    await signOut(page);
    await page.getByLabel("Email or username").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/two-factor?**");
    expect(await page.getByRole("radio", { name: "Use a passkey" }).isChecked()).toBe(true);
    await web.checkA11y(page, "two-factor challenge with a passkey");
    // The sign-in screen's autofill request ended with the screen: nothing else is pending.
    await authenticator.present(true);
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL("**/account");
    await poll(() =>
      page
        .getByText(/signed in with a password and a passkey/)
        .first()
        .isVisible(),
    ).toBe(true);
  });
});
