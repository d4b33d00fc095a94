/**
 * Social sign-in in the browser against a real OpenID provider (oidc-provider on loopback) configured as
 * Google and as a generic provider ("Corp SSO"): the sign-in page shows a button for each (and for no provider
 * that is not configured, a generic one by the name its operator gave it), the person
 * signs in at the provider and comes back signed in to where they were going; on the account page a
 * password user links the provider, then unlinks it; a person who signed up through the provider sets a
 * password from the mailed link in the development mailbox and then signs in with it; a banned user comes back
 * to the sign-in screen, which says the account is suspended. Unlinking asks first, and its undo links the
 * provider again through the provider. Needs GET
 * /social-providers (skipped, saying so, on a build without that route).
 */
import { afterAll, describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { type OpenIdAccount, startOpenIdProvider, type TestOpenIdProvider } from "../../testing/openid-provider.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

let idp: TestOpenIdProvider | undefined;
const web = useWebApp({
  envFor: async (origin) => {
    idp = await startOpenIdProvider({ redirectUris: [`${origin}/api/auth/callback/google`, `${origin}/api/auth/oauth2/callback/corp-sso`] });
    return {
      GOOGLE_CLIENT_ID: idp.clientId,
      GOOGLE_CLIENT_SECRET: idp.clientSecret,
      GOOGLE_ISSUER: idp.issuer,
      // The same provider once more as a generic OpenID Connect provider, under the name its operator gave it.
      OAUTH_GENERIC_PROVIDERS: "corp-sso",
      OAUTH_GENERIC_CORP_SSO_CLIENT_ID: idp.clientId,
      OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET: idp.clientSecret,
      OAUTH_GENERIC_CORP_SSO_ISSUER: idp.issuer,
      OAUTH_GENERIC_CORP_SSO_NAME: "Corp SSO",
    };
  },
});
afterAll(async () => idp?.stop());

const hasProvidersRoute = async () => (await fetch(`${web.origin}/api/auth/social-providers`)).status !== 404;
const NO_ROUTE = "GET /social-providers is not in this build";

const account = (label: string): OpenIdAccount => {
  const id = `${label}-${Math.random().toString(36).slice(2, 10)}`;
  return { sub: `sub-${id}`, email: `${id}@example.com`, email_verified: true, name: `Sam ${label}` };
};

describe("social sign-in", () => {
  it("signs in with the configured provider and comes back to where the person was going", async ({ skip }) => {
    if (!(await hasProvidersRoute())) return skip(NO_ROUTE);
    const person = account("social");
    idp!.signInAs(person);
    const page = await web.page();
    await page.goto("/organizations");
    await page.waitForURL((url) => url.pathname === "/sign-in");
    const buttons = page.getByRole("list", { name: "Sign in with another service" }).getByRole("button");
    await poll(() => buttons.allInnerTexts()).toEqual(["Continue with Google", "Continue with Corp SSO"]);
    await web.checkA11y(page, "sign-in with social buttons");
    await buttons.first().click();
    await page.waitForURL((url) => url.pathname === "/organizations", { timeout: 30_000 });
    await page.goto("/account");
    await poll(() => page.locator("main").innerText()).toContain(person.email);
  });

  it("signs in with a generic provider by its display name, and the account page names it so", async ({ skip }) => {
    if (!(await hasProvidersRoute())) return skip(NO_ROUTE);
    const person = account("generic");
    idp!.signInAs(person);
    const page = await web.page();
    await page.goto("/sign-in?redirect=%2Faccount");
    await page.getByRole("button", { name: "Continue with Corp SSO" }).click();
    await page.waitForURL((url) => url.pathname === "/account", { timeout: 30_000 });
    await poll(() => page.locator("main").innerText()).toContain(person.email);
    const methods = page.getByRole("region", { name: "Sign-in methods" });
    await poll(() => methods.getByRole("button", { name: "Unlink Corp SSO" }).count()).toBe(1);
    // The other providers are offered for linking, the generic one no more.
    await poll(() => page.getByRole("button", { name: "Link Google", exact: true }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Link Corp SSO", exact: true }).count()).toBe(0);
    await web.checkA11y(page, "account signed in with a generic provider");
  });

  it("links the provider to a password account from the account page, unlinks it (asked first), and links it again from the undo", async ({ skip }) => {
    if (!(await hasProvidersRoute())) return skip(NO_ROUTE);
    const email = uniqueEmail("web-link");
    await signUpByApi(web.origin, { name: "Lin Ker", email, password: "password-123" });
    idp!.signInAs({ ...account("linked"), email });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    await page.getByRole("button", { name: "Link Google", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/account", { timeout: 30_000 });
    const unlink = page.getByRole("button", { name: "Unlink Google" });
    await poll(() => unlink.count()).toBe(1);
    expect(await page.getByRole("button", { name: "Link Google", exact: true }).count()).toBe(0);
    await unlink.click();
    const dialog = page.getByRole("dialog", { name: "Unlink Google?" });
    await poll(() => dialog.innerText()).toContain("You will no longer sign in with Google.");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await unlink.count()).toBe(1);
    await unlink.click();
    await dialog.getByRole("button", { name: "Unlink", exact: true }).click();
    await poll(() => page.getByRole("button", { name: "Link Google", exact: true }).count()).toBe(1);
    expect(await unlink.count()).toBe(0);
    const methods = page.getByRole("region", { name: "Sign-in methods" });
    await poll(() => methods.getByRole("status").innerText()).toContain("Google is unlinked.");
    await web.checkA11y(page, "account after an unlink");

    // The undo links the same provider account again, through the provider, and comes back here.
    await methods.getByRole("button", { name: "Link Google again" }).click();
    await page.waitForURL((url) => url.pathname === "/account", { timeout: 30_000 });
    await poll(() => unlink.count()).toBe(1);
  });

  it("lets a person who signed up through the provider set a first password on the account page, then sign in with it", async ({ skip }) => {
    if (!(await hasProvidersRoute())) return skip(NO_ROUTE);
    const person = account("set-password");
    idp!.signInAs(person);
    const page = await web.page({ mobile: true });
    await page.goto("/account");
    await page.waitForURL((url) => url.pathname === "/sign-in");
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await page.waitForURL((url) => url.pathname === "/account", { timeout: 30_000 });
    const password = page.getByRole("region", { name: "Password", exact: true });
    const setPassword = password.getByRole("button", { name: "Set a password" });
    await poll(() => setPassword.count()).toBe(1);
    expect(await password.getByLabel("Current password").count()).toBe(0);
    // Nothing else asks for the password there is not: two-factor says to set one first.
    expect(await page.getByText("Two-factor authentication asks for your password: set a password first.").count()).toBe(1);
    await web.checkA11y(page, "account without a password");
    await web.screenshot(page, "account-set-password");
    // The session is fresh (just signed in): the first password is set at once (POST /set-password).
    await password.getByLabel("New password", { exact: true }).fill("chosen-password-1");
    await setPassword.click();
    await poll(() => password.getByLabel("Current password").count()).toBe(1);
    await poll(() => page.getByRole("region", { name: "Sign-in methods" }).getByRole("button", { name: "Unlink Email and password" }).count()).toBe(1);

    const fresh = await web.page();
    await signInOnScreen(fresh, person.email, "chosen-password-1");
    await poll(() => fresh.getByRole("button", { name: "Set up two-factor authentication" }).count()).toBe(1);
  });

  it("brings a banned user back to the sign-in screen, which says the account is suspended", async ({ skip }) => {
    if (!(await hasProvidersRoute())) return skip(NO_ROUTE);
    const person = account("banned");
    idp!.signInAs(person);
    const page = await web.page();
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await page.waitForURL((url) => url.pathname === "/account", { timeout: 30_000 });
    const store = web.platform.services.identity.deps.store;
    const user = await store.findUserByEmail(person.email);
    await store.updateUser(user!.id, { banned: true, banReason: "spam" });
    await page.context().clearCookies();

    await page.goto("/sign-in?redirect=%2Faccount");
    await page.getByRole("button", { name: "Continue with Google" }).click();
    // Back on the sign-in screen (the redirect it had kept), with better-auth's code in the address.
    await page.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("error") === "BANNED_USER", { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get("redirect")).toBe("/account");
    await poll(() => page.getByRole("alert").innerText()).toBe("Your account is suspended.");
    await web.checkA11y(page, "sign-in of a banned social user");
  });
});
