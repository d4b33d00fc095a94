/**
 * The organization's Domains in the browser, against the whole platform and a real DNS server on loopback
 * (the sso service's SSO_DNS_SERVERS): an owner adds a domain, sees the TXT record to publish and copies
 * it, "Verify now" says the record is not found before it is published, the test publishes it, "Verify now"
 * verifies the domain, auto-join is switched on with its role, and the domain is removed after a
 * confirmation; a plain member sees no Domains section.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startDnsServer } from "../../testing/dns-server.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen } from "./browser-helpers.js";

const dns = await startDnsServer();
const web = useWebApp({ serviceEnv: { sso: { SSO_DNS_SERVERS: dns.servers.join(",") } } });
afterAll(() => dns.stop());
const PASSWORD = "password-123";

async function apiPerson(name: string) {
  const email = uniqueEmail(`web-domain-${name.split(" ")[0]!.toLowerCase()}`);
  const c = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
  await eventually(async () => {
    const res = await c.post("/sign-up/email", { name, email, password: PASSWORD });
    if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
  });
  return { name, email, c };
}

describe("organization domains", () => {
  it("an owner adds a domain, publishes its record, verifies it, turns auto-join on and removes it; a member sees none of it", async () => {
    const owner = await apiPerson("Dora Owner");
    const member = await apiPerson("Mo Member");
    const created = await owner.c.post("/organization/create", { name: "Domain Org", slug: `domain-org-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);
    const invited = await owner.c.post("/organization/invite-member", { email: member.email, role: "member", organizationId: created.body.id });
    expect((await member.c.post("/organization/accept-invitation", { invitationId: invited.body.id })).status).toBe(200);
    const domain = `acme-${Date.now().toString(36)}.example`;

    const page = await web.page();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
    await signInOnScreen(page, owner.email, PASSWORD);
    await page.getByRole("link", { name: "Organizations" }).click();
    await page.waitForURL("**/organizations");
    const domains = page.getByRole("list", { name: "Domains" });
    await poll(() => page.getByText("No domain yet.").count()).toBe(1);

    // A public suffix is refused, said on the form.
    await page.getByLabel("Domain", { exact: true }).fill("co.uk");
    await page.getByRole("button", { name: "Add domain" }).click();
    await poll(() => page.getByRole("alert").filter({ hasText: "Domain is a public suffix" }).count()).toBe(1);

    await page.getByLabel("Domain", { exact: true }).fill(domain.toUpperCase());
    await page.getByRole("button", { name: "Add domain" }).click();
    await poll(() =>
      page
        .getByRole("status")
        .filter({ hasText: `${domain} was added` })
        .count(),
    ).toBe(1);
    const row = domains.getByRole("listitem").filter({ hasText: domain });
    await poll(() => row.innerText()).toContain("Pending verification");
    expect(await row.innerText()).toMatch(/Verify by \w+/);
    const recordName = `_auth-platform-challenge.${domain}`;
    expect(await row.locator("dd code").first().innerText()).toBe(recordName);
    const recordValue = await row.locator("dd code").nth(2).innerText();
    expect(recordValue).toMatch(/^auth-platform-domain-verification=[A-Za-z0-9_-]{32}$/);

    // Each part of the record has its copy button.
    await page.getByRole("button", { name: `Copy the record value for ${domain}` }).click();
    await poll(() => row.getByRole("status").filter({ hasText: "Copied." }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(recordValue);
    await page.getByRole("button", { name: `Copy the record name for ${domain}` }).click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(recordName);
    await web.checkA11y(page, "organization domains, pending");
    await web.screenshot(page, "organization-domains-pending");

    // Before the record is published, "Verify now" says so in words.
    await page.getByRole("button", { name: `Verify ${domain} now` }).click();
    await poll(() => row.getByRole("alert").innerText()).toContain("The record was not found yet.");
    expect(await row.innerText()).toContain("Pending verification");

    // A DNS server that fails is said apart from a record not found.
    dns.failFor(recordName);
    await page.getByRole("button", { name: `Verify ${domain} now` }).click();
    await poll(() => row.getByRole("alert").innerText()).toBe("The DNS lookup failed: try again later.");

    dns.setTxt(recordName, [recordValue]);
    await page.getByRole("button", { name: `Verify ${domain} now` }).click();
    await poll(() =>
      row
        .getByRole("status")
        .filter({ hasText: `${domain} is verified.` })
        .count(),
    ).toBe(1);
    await poll(() => row.innerText()).toContain("Verified on");
    expect(await row.getByRole("button", { name: `Verify ${domain} now` }).count()).toBe(0);
    expect(await row.locator(".txt-record").count()).toBe(0);

    // Auto-join, with the role new users get.
    const autoJoin = page.getByRole("switch", { name: `Let new users with a verified address at ${domain} join` });
    expect(await autoJoin.isChecked()).toBe(false);
    await page.getByLabel(`Role of new users from ${domain}`).selectOption("admin");
    await autoJoin.click();
    await poll(() =>
      row
        .getByRole("status")
        .filter({ hasText: `New users with a verified address at ${domain} now join as admin.` })
        .count(),
    ).toBe(1);
    await poll(() => autoJoin.isChecked()).toBe(true);
    const listed = await owner.c.get(`/organization/list-domains?organizationId=${created.body.id}`);
    expect(listed.body).toMatchObject([{ domain, status: "verified", autoJoinRole: "admin" }]);
    await page.getByLabel(`Role of new users from ${domain}`).selectOption("member");
    await poll(async () => (await owner.c.get(`/organization/list-domains?organizationId=${created.body.id}`)).body[0].autoJoinRole).toBe("member");
    await web.checkA11y(page, "organization domains, verified");
    await web.screenshot(page, "organization-domains-verified");

    // A plain member sees no Domains section.
    const theirs = await web.page();
    await signInOnScreen(theirs, member.email, PASSWORD);
    await theirs.getByRole("link", { name: "Organizations" }).click();
    await theirs.waitForURL("**/organizations");
    await poll(() => theirs.getByRole("list", { name: "Members" }).innerText()).toContain(owner.email);
    expect(await theirs.getByRole("heading", { name: "Domains" }).count()).toBe(0);

    // Removal asks first.
    await page.getByRole("button", { name: `Remove ${domain}` }).click();
    await poll(() => page.getByRole("dialog").getByRole("heading").innerText()).toBe(`Remove ${domain}?`);
    await page.getByRole("dialog").getByRole("button", { name: "Remove domain" }).click();
    await poll(() => page.getByText("No domain yet.").count()).toBe(1);
    await poll(() => page.locator(".done-notice").innerText()).toContain(`${domain} was removed.`);
  });
});
