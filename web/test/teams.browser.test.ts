/**
 * Teams in the browser, in the organization area: an owner creates a team, renames it, adds a member and
 * removes them (asked first), makes a team their active one, deletes one (asked first); a plain member sees
 * only their own teams' members and no management controls.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen } from "./browser-helpers.js";

const web = useWebApp();
const PASSWORD = "password-123";

async function apiPerson(name: string) {
  const email = uniqueEmail(`web-team-${name.split(" ")[0]!.toLowerCase()}`);
  const c = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
  await eventually(async () => {
    const res = await c.post("/sign-up/email", { name, email, password: PASSWORD });
    if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
  });
  return { name, email, c };
}

describe("teams", () => {
  it("an owner creates, renames, staffs, activates and deletes teams; a member only sees them", async () => {
    const owner = await apiPerson("Tara Owner");
    const member = await apiPerson("Milo Member");
    const created = await owner.c.post("/organization/create", { name: "Team Org", slug: `team-org-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);
    const invited = await owner.c.post("/organization/invite-member", { email: member.email, role: "member", organizationId: created.body.id });
    expect((await member.c.post("/organization/accept-invitation", { invitationId: invited.body.id })).status).toBe(200);

    const page = await web.page();
    await signInOnScreen(page, owner.email, PASSWORD);
    await page.getByRole("link", { name: "Organizations" }).click();
    await page.waitForURL("**/organizations");
    const teams = page.getByRole("list", { name: "Teams" });
    await poll(() => page.getByText("No teams yet.").count()).toBe(1);

    await page.getByLabel("Team name").fill("Looms");
    await page.getByRole("button", { name: "Create team" }).click();
    await poll(() => teams.getByRole("listitem").first().innerText()).toContain("Looms");
    // The same name again is refused, said on the form.
    await page.getByLabel("Team name").fill("Looms");
    await page.getByRole("button", { name: "Create team" }).click();
    await poll(() => page.getByRole("alert").filter({ hasText: "Team already exists" }).count()).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Rename Looms" }).click();
    await page.getByLabel("New name for Looms").fill("Mills");
    await teams.getByRole("button", { name: "Save", exact: true }).click();
    await poll(() => teams.innerText()).toContain("Mills");

    await page.getByLabel("Add a member to Mills").selectOption({ label: `${member.name} (${member.email})` });
    await page.getByRole("button", { name: "Add a member to Mills" }).click();
    const staff = page.getByRole("list", { name: "Members of Mills" });
    await poll(() => staff.innerText()).toContain(member.email);
    await web.checkA11y(page, "teams");

    await page.getByLabel("Add a member to Mills").selectOption({ label: `${owner.name} (${owner.email})` });
    await page.getByRole("button", { name: "Add a member to Mills" }).click();
    await poll(() => staff.innerText()).toContain(owner.email);
    await page.getByRole("button", { name: "Make Mills your active team" }).click();
    await poll(() => teams.innerText()).toContain("Active team");

    await page.getByRole("button", { name: `Remove ${member.name} (${member.email}) from Mills` }).click();
    await poll(() => page.getByRole("dialog").getByRole("heading").innerText()).toBe(`Remove ${member.name} (${member.email}) from Mills?`);
    await web.checkA11y(page, "teams confirm dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Remove from team" }).click();
    await poll(() => staff.innerText()).not.toContain(member.email);

    // A plain member sees the team, no management, and no members of a team they are not in.
    const theirs = await web.page();
    await signInOnScreen(theirs, member.email, PASSWORD);
    await theirs.getByRole("link", { name: "Organizations" }).click();
    await theirs.waitForURL("**/organizations");
    await poll(() => theirs.getByRole("list", { name: "Teams" }).innerText()).toContain("Mills");
    expect(await theirs.getByRole("button", { name: "Create team" }).count()).toBe(0);
    expect(await theirs.getByRole("button", { name: "Delete Mills" }).count()).toBe(0);
    expect(await theirs.getByRole("list", { name: "Members of Mills" }).count()).toBe(0);

    await page.getByRole("button", { name: "Delete Mills" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete team" }).click();
    await poll(() => page.getByText("No teams yet.").count()).toBe(1);
  });
});
