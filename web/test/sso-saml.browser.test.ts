/**
 * SAML single sign-on end to end in a real browser: a person at an organization's domain types only their
 * address on the sign-in screen, the browser goes to the SAML identity provider (testing/saml-idp.ts, on
 * 127.0.0.1 while the app is on localhost: another site), whose page posts the signed response to our ACS
 * cross-site, as Okta's and Entra ID's do. That POST carries none of our SameSite=Lax cookies; the ACS's
 * 303 to the callback does, and the person lands signed in by single sign-on, a member of the organization.
 */
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { createSamlIdp, type TestSamlIdp } from "../../testing/saml-idp.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll } from "./browser-helpers.js";

const DOMAIN = "saml-web.example";
const PROVIDER = "saml-web";

let idp: TestSamlIdp | undefined;
const web = useWebApp({
  hostname: "localhost",
  serviceEnv: { sso: { SSO_TRUSTED_DOMAINS: DOMAIN } },
});
afterAll(async () => idp?.stop());

describe("SAML single sign-on in the browser", () => {
  it("a person at the domain types their address and lands signed in through the SAML IdP", async () => {
    const owner = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
    await eventually(async () => {
      const res = await owner.post("/sign-up/email", { name: "Olga Owner", email: uniqueEmail("saml-web-owner"), password: "password-123" });
      if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
    });
    const organization = `Saml Org ${Date.now().toString(36)}`;
    const created = await owner.post("/organization/create", { name: organization, slug: `saml-org-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);

    const person = { nameId: `sam-${Date.now().toString(36)}@${DOMAIN}`, name: "Sam Saml" };
    idp = await createSamlIdp();
    const seen: string[] = [];
    await idp.listen((request) => {
      seen.push(request.acsUrl ?? "");
      return { nameId: person.nameId, email: person.nameId, name: person.name };
    });
    const registered = await owner.post("/sso/register", {
      providerId: PROVIDER,
      issuer: idp.entityId,
      domain: DOMAIN,
      organizationId: created.body.id,
      samlConfig: { idpMetadata: { metadata: idp.metadataXml() } },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(new URL(idp.ssoUrl).hostname).toBe("127.0.0.1");

    const page = await web.page();
    await page.goto("/sign-in?redirect=%2Forganizations");
    await page.getByLabel("Email or username").fill(person.nameId);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.origin === web.origin && url.pathname === "/organizations", { timeout: 30_000 });
    expect(seen).toEqual([`${web.origin}/api/auth/sso/saml2/sp/acs/${PROVIDER}`]);

    const session = await (await page.request.get(`${web.origin}/api/auth/get-session`)).json();
    expect(session.user).toMatchObject({ email: person.nameId, name: person.name, emailVerified: true });
    expect(session.session).toMatchObject({ authMethod: "sso" });
    await poll(() => page.getByRole("list", { name: "Your organizations" }).innerText()).toContain(organization);
  });
});
