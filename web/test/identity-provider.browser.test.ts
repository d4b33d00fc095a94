/**
 * The Identity provider section and email-first sign-in, in the browser against a real OpenID provider
 * (oidc-provider on loopback): an organization's owner registers the provider through the screen (it starts
 * off), copies the redirect URI, tests the connection (every check shown), and turns sign-in on; then, in a
 * fresh browser, a person at the organization's domain types only their address on the sign-in screen, is
 * sent through the provider and lands signed in, by single sign-on, as a member of the organization. The
 * domain is trusted by the operator (SSO_TRUSTED_DOMAINS), so it routes sign-in without a DNS record.
 */
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { startOpenIdProvider, type TestOpenIdProvider } from "../../testing/openid-provider.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen } from "./browser-helpers.js";

const DOMAIN = "idp-web.example";
const PROVIDER = "corp-idp";
const PASSWORD = "password-123";

let idp: TestOpenIdProvider | undefined;
const web = useWebApp({
  envFor: async (origin) => {
    idp = await startOpenIdProvider({ redirectUris: [`${origin}/api/auth/sso/callback/${PROVIDER}`] });
    return {};
  },
  serviceEnv: { sso: { SSO_TRUSTED_DOMAINS: DOMAIN } },
});
afterAll(async () => idp?.stop());

describe("identity provider", () => {
  it("an owner registers, tests and turns on an OpenID provider; a person at the domain signs in through it by their address", async () => {
    const email = uniqueEmail("web-idp-owner");
    const owner = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
    await eventually(async () => {
      const res = await owner.post("/sign-up/email", { name: "Olga Owner", email, password: PASSWORD });
      if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
    });
    const organization = `Idp Org ${Date.now().toString(36)}`;
    const created = await owner.post("/organization/create", { name: organization, slug: `idp-org-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);

    const page = await web.page();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
    await signInOnScreen(page, email, PASSWORD);
    await page.getByRole("link", { name: "Organizations" }).click();
    await page.waitForURL("**/organizations");
    const section = page.getByRole("region", { name: "Identity provider" });
    await poll(() => section.getByText("No identity provider yet.").count()).toBe(1);

    // OpenID Connect is the protocol offered first; PKCE is on unless turned off.
    expect(await section.getByLabel("OpenID Connect").isChecked()).toBe(true);
    expect(await section.getByLabel("Use PKCE (recommended)").isChecked()).toBe(true);
    await section.getByLabel("Provider ID").fill(PROVIDER);
    await section.getByLabel("Email domain").fill(DOMAIN);
    await section.getByLabel("Issuer URL").fill(idp!.issuer);
    await section.getByLabel("Client ID").fill(idp!.clientId);
    await section.getByLabel("Client secret").fill(idp!.clientSecret);
    await section.getByRole("button", { name: "Register provider" }).click();
    await poll(() => section.getByRole("status").first().innerText()).toContain(`${PROVIDER} is registered, with sign-in off.`);

    const providers = section.getByRole("list", { name: "Identity providers" });
    const redirectUri = `${web.origin}/api/auth/sso/callback/${PROVIDER}`;
    await poll(() => providers.innerText()).toContain(redirectUri);
    expect(await providers.innerText()).toContain(`${DOMAIN} (verified)`);
    const signInSwitch = section.getByRole("switch", { name: `Sign-in through ${PROVIDER} is on` });
    expect(await signInSwitch.isChecked()).toBe(false);

    await section.getByRole("button", { name: "Copy Redirect URI" }).click();
    await poll(() => providers.innerText()).toContain("Redirect URI copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(redirectUri);

    await section.getByRole("button", { name: `Test the connection of ${PROVIDER}` }).click();
    const checks = section.getByRole("list", { name: `Connection checks of ${PROVIDER}` });
    await poll(() => checks.getByRole("listitem").count()).toBe(4);
    expect(await section.getByText("Every check passed.").count()).toBe(1);
    expect(await checks.getByRole("listitem").allInnerTexts()).toEqual([
      expect.stringContaining("Discovery document: passed"),
      expect.stringContaining("Issuer: passed"),
      expect.stringContaining("Token endpoint: passed"),
      expect.stringContaining("Key set (JWKS) endpoint: passed"),
    ]);
    await web.checkA11y(page, "identity provider section");

    // Off, the domain's people are not sent to it yet: an address there is asked for its password.
    const early = await web.page();
    await early.goto("/sign-in");
    await early.getByLabel("Email or username").fill(`early@${DOMAIN}`);
    await early.getByRole("button", { name: "Sign in", exact: true }).click();
    await poll(() => early.getByRole("alert").innerText()).toBe("Enter your password.");

    // The switch shows the platform's answer: it turns once the provider is saved on.
    await signInSwitch.click();
    await poll(() =>
      page
        .getByRole("status")
        .filter({ hasText: `Sign-in through ${PROVIDER} is on.` })
        .count(),
    ).toBe(1);
    await poll(() => signInSwitch.isChecked()).toBe(true);

    // A person at the domain, in a browser of their own, types only their address.
    const person = { sub: `sub-${Date.now().toString(36)}`, email: `sam-${Date.now().toString(36)}@${DOMAIN}`, email_verified: true, name: "Sam Sso" };
    idp!.signInAs(person);
    const theirs = await web.page();
    await theirs.goto("/sign-in?redirect=%2Forganizations");
    await theirs.getByLabel("Email or username").fill(person.email);
    await theirs.getByRole("button", { name: "Sign in", exact: true }).click();
    await theirs.waitForURL((url) => url.origin === web.origin && url.pathname === "/organizations", { timeout: 30_000 });
    const session = await (await theirs.request.get(`${web.origin}/api/auth/get-session`)).json();
    expect(session.user).toMatchObject({ email: person.email, emailVerified: true });
    expect(session.session).toMatchObject({ authMethod: "sso" });
    await poll(() => theirs.getByRole("list", { name: "Your organizations" }).innerText()).toContain(organization);
    await theirs.goto("/account");
    await poll(() => theirs.locator("main").innerText()).toContain("your organization's single sign-on");

    // Deleting asks for the provider's id typed out.
    await section.getByRole("button", { name: `Delete ${PROVIDER}` }).click();
    const dialog = page.getByRole("dialog", { name: `Delete ${PROVIDER}?` });
    const confirm = dialog.getByRole("button", { name: "Delete provider" });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${PROVIDER} to confirm`).fill(PROVIDER);
    await confirm.click();
    await poll(() => section.getByText("No identity provider yet.").count()).toBe(1);
  });
});
