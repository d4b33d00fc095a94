/**
 * API keys in the browser: a user creates a key on the account page, sees it once and copies it, the key
 * verifies, the list shows its start, last use and expiry (never the key), and revoking it after a
 * confirmation makes it invalid; an organization's owner manages the organization's keys on its page,
 * and a plain member sees no such section.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen } from "./browser-helpers.js";

const web = useWebApp();
const PASSWORD = "password-123";

async function apiPerson(name: string) {
  const email = uniqueEmail(`web-keys-${name.split(" ")[0]!.toLowerCase()}`);
  const c = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
  await eventually(async () => {
    const res = await c.post("/sign-up/email", { name, email, password: PASSWORD });
    if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
  });
  return { name, email, c };
}

const verify = (key: string) => new TestClient(`${web.origin}/api/auth`, { origin: web.origin }).post("/api-key/verify", { key });

describe("API keys in the browser", () => {
  it("a key is created on the account page, shown once and copied, listed by its start, and revoked", async () => {
    const ada = await apiPerson("Ada Keys");
    const page = await web.page();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
    await signInOnScreen(page, ada.email, PASSWORD);
    await page.goto(`${web.origin}/account`);
    const section = page.getByRole("region", { name: "API keys" });
    await poll(() => section.getByText("No API keys yet.").isVisible()).toBe(true);

    await section.getByLabel("Key name").fill("deploy");
    await section.getByLabel("Expires").selectOption({ label: "In 30 days" });
    await section.getByRole("button", { name: "Create key" }).click();
    const shown = section.getByRole("region", { name: "New key deploy" });
    await poll(() => shown.isVisible()).toBe(true);
    const key = await shown.getByTestId("new-api-key").innerText();
    await shown.getByRole("button", { name: "Copy the key deploy" }).click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    expect((await verify(key)).body).toMatchObject({ valid: true, key: { name: "deploy" } });
    await web.checkA11y(page, "account api keys");
    await web.screenshot(page, "account-api-keys");

    await shown.getByRole("button", { name: "Done, I copied it" }).click();
    await poll(() => page.getByText(key).count()).toBe(0);
    const list = section.getByRole("list", { name: "API keys" });
    await poll(() => list.getByRole("listitem").count()).toBe(1);
    const item = await list.getByRole("listitem").innerText();
    expect(item).toContain(`starts with ${key.slice(0, 6)}…`);
    expect(item).toMatch(/never used|last used/);
    expect(item).toMatch(/expires /);
    expect(item).not.toContain(key);

    await list.getByRole("button", { name: "Revoke deploy" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await poll(() => section.getByText("No API keys yet.").isVisible()).toBe(true);
    expect((await verify(key)).body).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
  });

  it("an owner manages the organization's keys; a member sees no Organization keys section", async () => {
    const owner = await apiPerson("Olga Owner");
    const member = await apiPerson("Mo Member");
    const created = await owner.c.post("/organization/create", { name: "Keys Org", slug: `keys-org-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);
    const invited = await owner.c.post("/organization/invite-member", { email: member.email, role: "member", organizationId: created.body.id });
    expect((await member.c.post("/organization/accept-invitation", { invitationId: invited.body.id })).status).toBe(200);

    const page = await web.page();
    await signInOnScreen(page, owner.email, PASSWORD);
    await page.getByRole("link", { name: "Organizations" }).click();
    await page.waitForURL("**/organizations");
    const section = page.getByRole("region", { name: "Organization keys" });
    await poll(() => section.getByText("No API keys yet.").isVisible()).toBe(true);
    await section.getByLabel("Key name").fill("ci");
    await section.getByRole("button", { name: "Create key" }).click();
    const key = await section.getByTestId("new-api-key").innerText();
    expect((await verify(key)).body).toMatchObject({ valid: true, key: { organizationId: created.body.id } });
    await web.checkA11y(page, "organization api keys");

    const other = await web.page();
    await signInOnScreen(other, member.email, PASSWORD);
    // The page asks for the organization's keys and is refused: only then is the section's absence telling.
    const refused = other.waitForResponse((res) => res.url().includes("/api-key/list?organizationId=") && res.status() === 403);
    await other.getByRole("link", { name: "Organizations" }).click();
    await other.waitForURL("**/organizations");
    await refused;
    await poll(() => other.getByRole("heading", { name: "Keys Org" }).count()).toBe(1);
    await poll(() => other.getByRole("region", { name: "Organization keys" }).count()).toBe(0);
  });
});
