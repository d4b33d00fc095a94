/**
 * Organizations in the browser: create one with the suggested slug, invite a second person who signs up
 * from the mailed link and accepts; each destructive or privileged action asks first, says what it did and
 * offers its undo (a role change, the owner role, a removal, a withdrawn invitation, leaving); each role is
 * offered only what it may do, and the newest refusal shows; the settings (a taken slug said next to its
 * field, undo, deletion); the header's switcher, whose choice the next sign-in starts in.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

/** Whether this build has the organization API; without it these tests are skipped, saying so. */
const hasOrganizationApi = async () => (await fetch(`${web.origin}/api/auth/organization/list`)).status !== 404;
const NO_API = "the organization API is not in this build";
const PASSWORD = "password-123";

interface Person {
  name: string;
  email: string;
  /** A client holding the person's own session (set-up through the API, without a browser). */
  c: TestClient;
}

/** Signs a person up through the web app's API; their client keeps the session. A 503 (busy hashing) is tried again. */
async function apiPerson(name: string): Promise<Person> {
  const email = uniqueEmail(`web-org-${name.split(" ")[0]!.toLowerCase()}`);
  const c = new TestClient(`${web.origin}/api/auth`, { origin: web.origin });
  await eventually(async () => {
    const res = await c.post("/sign-up/email", { name, email, password: PASSWORD });
    if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
  });
  return { name, email, c };
}

/** An organization `owner` creates through the API (it becomes their active one). */
async function organizationBy(owner: Person, name: string): Promise<{ id: string; slug: string; name: string }> {
  const slug = `${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now().toString(36)}`;
  const res = await owner.c.post("/organization/create", { name, slug });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Makes `who` a member with `role` through an invitation from `inviter`, accepted through the API; answers the member id. */
async function joinByApi(inviter: Person, who: Person, organizationId: string, role: string): Promise<string> {
  const invited = await inviter.c.post("/organization/invite-member", { email: who.email, role, organizationId });
  expect(invited.status, JSON.stringify(invited.body)).toBe(200);
  const accepted = await who.c.post("/organization/accept-invitation", { invitationId: invited.body.id });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return accepted.body.member.id;
}

const who = (person: { name: string; email: string }) => `${person.name} (${person.email})`;

/** The open confirmation dialog. */
const dialog = (page: Page) => page.getByRole("dialog");

/** The page's "what happened" notice (DoneNotice). */
const notice = (page: Page) => page.locator(".done-notice");

/** How many status messages say `text` (an undo's outcome replaces its notice with one). */
const said = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).count();

describe("organizations", () => {
  it("creates an organization, invites someone who signs up from the mail and accepts; withdrawing an invitation asks first and can be undone", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const ownerEmail = uniqueEmail("web-org-owner");
    const inviteeEmail = uniqueEmail("web-org-invitee");
    await signUpByApi(web.origin, { name: "Olivia Owner", email: ownerEmail, password: PASSWORD });
    const owner = await web.page();
    await signInOnScreen(owner, ownerEmail, PASSWORD);
    await owner.getByRole("link", { name: "Organizations" }).click();
    await owner.waitForURL("**/organizations");

    const name = `Acme Web ${Date.now().toString(36)}`;
    const slug = name.toLowerCase().replace(/ /g, "-");
    await owner.getByLabel("Organization name").fill(name);
    await poll(() => owner.getByLabel("Slug").inputValue()).toBe(slug);
    await poll(() => owner.getByText(`“${slug}” is available.`).count()).toBe(1);
    await owner.getByRole("button", { name: "Create organization" }).click();
    await poll(() => owner.getByRole("status").first().innerText()).toBe(`${name} has been created and is now your active organization.`);
    const yours = owner.getByRole("list", { name: "Your organizations" });
    await poll(() => yours.getByRole("listitem").innerText()).toMatch(new RegExp(`${name}.*Active`, "s"));

    // The same name again: the slug is taken, said next to the field.
    await owner.getByLabel("Organization name").fill(name);
    await poll(() => owner.getByLabel("Slug", { exact: true }).first().getAttribute("aria-invalid")).toBe("true");

    await owner.getByLabel("Organization name").fill("");
    await owner.getByLabel("Email address to invite").fill(inviteeEmail);
    await owner.getByLabel("Role", { exact: true }).selectOption("admin");
    await owner.getByRole("button", { name: "Send invitation" }).click();
    const pending = owner.getByRole("list", { name: "Pending invitations" });
    await poll(() => pending.getByRole("listitem").innerText()).toContain(`${inviteeEmail} as admin`);
    await web.checkA11y(owner, "organizations");
    await web.screenshot(owner, "organizations");

    // Resend one invitation; send another, withdraw it (asked first), undo that, and withdraw it again.
    await owner.getByRole("button", { name: `Resend the invitation to ${inviteeEmail}` }).click();
    await poll(() => notice(owner).innerText()).toContain(`Invitation sent again to ${inviteeEmail}.`);
    const other = uniqueEmail("web-org-withdrawn");
    await owner.getByLabel("Email address to invite").fill(other);
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await poll(() => pending.getByRole("listitem").count()).toBe(2);
    await owner.getByRole("button", { name: `Withdraw the invitation to ${other}` }).click();
    await poll(() => dialog(owner).getByRole("heading").innerText()).toBe(`Withdraw the invitation to ${other}?`);
    await web.checkA11y(owner, "organizations confirm dialog");
    expect(await pending.getByRole("listitem").count()).toBe(2);
    await dialog(owner).getByRole("button", { name: "Withdraw invitation" }).click();
    await poll(() => pending.getByRole("listitem").count()).toBe(1);
    await poll(() => notice(owner).innerText()).toContain(`The invitation to ${other} has been withdrawn.`);
    await notice(owner).getByRole("button", { name: "Undo" }).click();
    await poll(() => said(owner, `The invitation has been sent to ${other} again.`)).toBe(1);
    await poll(() => pending.getByRole("listitem").count()).toBe(2);
    await owner.getByRole("button", { name: `Withdraw the invitation to ${other}` }).click();
    await dialog(owner).getByRole("button", { name: "Withdraw invitation" }).click();
    await poll(() => pending.getByRole("listitem").count()).toBe(1);

    const mail = await web.smtp.waitFor(inviteeEmail);
    const link = mail.text.match(/https?:\/\/\S+\/accept-invitation\/\S+/)?.[0];
    expect(link?.startsWith(`${web.origin}/accept-invitation/`)).toBe(true);

    // The invitee has no account yet: sign-in, then sign-up, then back to the invitation.
    const invitee = await web.page();
    await invitee.goto(link!);
    await invitee.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("redirect") === new URL(link!).pathname);
    await invitee.getByRole("link", { name: "Create an account" }).click();
    await invitee.getByLabel("Name", { exact: true }).fill("Ivan Invitee");
    await invitee.getByLabel("Email", { exact: true }).fill(inviteeEmail);
    await invitee.getByLabel("Password", { exact: true }).fill("password-456");
    await invitee.getByRole("button", { name: "Create account" }).click();
    await invitee.waitForURL((url) => url.pathname === new URL(link!).pathname);
    await poll(() => invitee.locator("main").innerText()).toContain(`${ownerEmail} invited you to join ${name} as admin.`);
    await web.checkA11y(invitee, "invitation");
    await web.screenshot(invitee, "accept-invitation");
    await invitee.getByRole("button", { name: "Accept" }).click();
    await invitee.waitForURL("**/organizations");
    await poll(() => invitee.getByRole("list", { name: "Your organizations" }).innerText()).toMatch(new RegExp(`${name}.*Active`, "s"));

    await owner.reload();
    await poll(() => owner.getByRole("list", { name: "Members" }).getByRole("listitem").count()).toBe(2);
    expect(await owner.getByLabel(`Role of Ivan Invitee (${inviteeEmail})`, { exact: true }).inputValue()).toBe("admin");
  });

  it("a role change (the owner role most of all) and a removal ask first, say what they did, and can be undone", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    const invitee = await apiPerson("Ivan Invitee");
    const { id, name } = await organizationBy(olga, "Roles Web");
    await joinByApi(olga, invitee, id, "admin");
    const owner = await web.page();
    await signInOnScreen(owner, olga.email, PASSWORD);
    await owner.goto("/organizations");
    const members = owner.getByRole("list", { name: "Members" });
    await poll(() => members.getByRole("listitem").count()).toBe(2);
    const ivan = who(invitee);
    const role = owner.getByLabel(`Role of ${ivan}`, { exact: true });
    expect(await role.inputValue()).toBe("admin");
    const changeRole = owner.getByRole("button", { name: `Change the role of ${ivan}` });
    expect(await changeRole.isDisabled()).toBe(true);

    // To owner: the dialog says what that means; nothing changes until confirmed; undo gives the old role back.
    await role.selectOption("owner");
    await changeRole.click();
    await poll(() => dialog(owner).getByRole("heading").innerText()).toBe(`Make ${ivan} an owner?`);
    expect(await dialog(owner).innerText()).toContain("Only an owner can take this back.");
    await dialog(owner).getByRole("button", { name: "Cancel" }).click();
    await owner.reload();
    await poll(() => owner.getByLabel(`Role of ${ivan}`, { exact: true }).inputValue()).toBe("admin");
    await owner.getByLabel(`Role of ${ivan}`, { exact: true }).selectOption("owner");
    await changeRole.click();
    await dialog(owner).getByRole("button", { name: "Make owner" }).click();
    await poll(() => notice(owner).innerText()).toContain(`${ivan} is now owner.`);
    await poll(() => owner.getByLabel(`Role of ${ivan}`, { exact: true }).inputValue()).toBe("owner");
    await notice(owner).getByRole("button", { name: "Undo" }).click();
    await poll(() => said(owner, `${ivan} is admin again.`)).toBe(1);
    await owner.reload();
    await poll(() => owner.getByLabel(`Role of ${ivan}`, { exact: true }).inputValue()).toBe("admin");

    // To member, confirmed.
    await owner.getByLabel(`Role of ${ivan}`, { exact: true }).selectOption("member");
    await changeRole.click();
    expect(await dialog(owner).innerText()).toContain(`${ivan} will be member instead of admin`);
    await dialog(owner).getByRole("button", { name: "Change role" }).click();
    // Told first: a reload before the answer would abort the change in flight.
    await poll(() => notice(owner).innerText()).toContain(`${ivan} is now member.`);
    await owner.reload();
    await poll(() => owner.getByLabel(`Role of ${ivan}`, { exact: true }).inputValue()).toBe("member");

    // Removed, asked first; "Invite again" sends a new invitation with the role they had.
    await owner.getByRole("button", { name: `Remove ${ivan}` }).click();
    await poll(() => dialog(owner).getByRole("heading").innerText()).toBe(`Remove ${ivan}?`);
    await dialog(owner).getByRole("button", { name: "Remove" }).click();
    await poll(() => members.getByRole("listitem").count()).toBe(1);
    await poll(() => notice(owner).innerText()).toContain(`${ivan} has been removed from ${name}.`);
    await notice(owner).getByRole("button", { name: "Invite again" }).click();
    await poll(() => owner.getByRole("list", { name: "Pending invitations" }).getByRole("listitem").innerText()).toContain(`${invitee.email} as member`);
  });

  it("declines an invitation from the mail link, then joins through another and leaves, asked first", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const ownerEmail = uniqueEmail("web-org-owner2");
    const guestEmail = uniqueEmail("web-org-guest");
    await signUpByApi(web.origin, { name: "Otto Owner", email: ownerEmail, password: PASSWORD });
    await signUpByApi(web.origin, { name: "Gina Guest", email: guestEmail, password: "password-456" });
    const owner = await web.page();
    await signInOnScreen(owner, ownerEmail, PASSWORD);
    await owner.goto("/organizations");
    const name = `Decline Co ${Date.now().toString(36)}`;
    await owner.getByLabel("Organization name").fill(name);
    await poll(() => owner.getByText(/is available\.$/).count()).toBe(1);
    await owner.getByRole("button", { name: "Create organization" }).click();
    await poll(() => owner.getByRole("heading", { name, level: 2 }).count()).toBe(1);
    const linkOf = (text: string) => text.match(/https?:\/\/\S+\/accept-invitation\/\S+/)?.[0];
    /** Invites the guest and returns the link of the new mail (not the one given). */
    const invite = async (previous?: string) => {
      await owner.getByLabel("Email address to invite").fill(guestEmail);
      await owner.getByRole("button", { name: "Send invitation" }).click();
      const mail = await web.smtp.waitFor(guestEmail, (m) => linkOf(m.text) !== undefined && linkOf(m.text) !== previous, 15_000);
      return linkOf(mail.text)!;
    };

    const guest = await web.page({ mobile: true });
    await signInOnScreen(guest, guestEmail, "password-456");
    const first = await invite();
    await guest.goto(first);
    await poll(() => guest.locator("main").innerText()).toContain(`${ownerEmail} invited you to join ${name} as member.`);
    await guest.getByRole("button", { name: "Decline" }).click();
    await poll(() => guest.getByRole("status").innerText()).toBe("You declined the invitation.");
    expect(await guest.getByRole("button", { name: "Accept" }).count()).toBe(0);
    // The owner no longer sees it pending; the declined link cannot be accepted afterwards.
    await owner.reload();
    await poll(() => owner.getByText("No pending invitations.").count()).toBe(1);
    await guest.reload();
    await poll(() => guest.getByRole("alert").count()).toBe(1);
    expect(await guest.getByRole("button", { name: "Accept" }).count()).toBe(0);

    // Invited again, the guest accepts, then leaves from the organizations page: asked first, then told.
    const second = await invite(first);
    await guest.goto(second);
    await guest.getByRole("button", { name: "Accept" }).click();
    await guest.waitForURL("**/organizations");
    await poll(() => guest.getByRole("list", { name: "Your organizations" }).innerText()).toMatch(new RegExp(`${name}.*Active`, "s"));
    await guest.getByRole("button", { name: `Leave ${name}` }).click();
    await poll(() => dialog(guest).getByRole("heading").innerText()).toBe(`Leave ${name}?`);
    await dialog(guest).getByRole("button", { name: "Leave", exact: true }).click();
    await poll(() => guest.getByText("You are not a member of any organization yet.").count()).toBe(1);
    expect(await notice(guest).innerText()).toContain(`You have left ${name}.`);
    await owner.reload();
    await poll(() => owner.getByRole("list", { name: "Members" }).getByRole("listitem").count()).toBe(1);
  });

  it("offers each role only what it may do, and shows the newest refusal, announced again when it repeats", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    const adam = await apiPerson("Adam Admin");
    const mia = await apiPerson("Mia Member");
    const other = await organizationBy(olga, "Other Co");
    await joinByApi(olga, adam, other.id, "member");
    const org = await organizationBy(olga, "Roles Co");
    const adamId = await joinByApi(olga, adam, org.id, "admin");
    await joinByApi(olga, mia, org.id, "member");
    const guestEmail = uniqueEmail("web-org-pending");
    expect((await olga.c.post("/organization/invite-member", { email: guestEmail, role: "member", organizationId: org.id })).status).toBe(200);

    // The admin: no owner role to give, no control over the owner, the settings but not the deletion.
    const admin = await web.page();
    await signInOnScreen(admin, adam.email, PASSWORD);
    await admin.goto("/organizations");
    await poll(() => admin.getByRole("heading", { name: "Roles Co", level: 2 }).count()).toBe(1);
    const members = admin.getByRole("list", { name: "Members" });
    await poll(() => members.getByRole("listitem").count()).toBe(3);
    expect(await admin.getByLabel(`Role of ${who(olga)}`, { exact: true }).count()).toBe(0);
    expect(await admin.getByRole("button", { name: `Remove ${who(olga)}` }).count()).toBe(0);
    expect(
      await admin
        .getByLabel(`Role of ${who(mia)}`, { exact: true })
        .locator("option")
        .allInnerTexts(),
    ).toEqual(["member", "admin"]);
    expect(await admin.getByLabel("Role", { exact: true }).locator("option").allInnerTexts()).toEqual(["admin", "member"]);
    expect(await admin.getByRole("button", { name: `Remove ${who(mia)}` }).count()).toBe(1);
    expect(await admin.getByLabel("Name", { exact: true }).inputValue()).toBe("Roles Co");
    expect(await admin.getByRole("button", { name: "Delete organization" }).count()).toBe(0);
    await web.checkA11y(admin, "organizations as admin");

    // The member: no member management at all, no invitations, no settings; only leaving.
    const member = await web.page();
    await signInOnScreen(member, mia.email, PASSWORD);
    await member.goto("/organizations");
    await poll(() => member.getByRole("list", { name: "Members" }).getByRole("listitem").count()).toBe(3);
    const main = member.locator("main");
    expect(await main.getByRole("list", { name: "Members" }).getByRole("combobox").count()).toBe(0);
    expect(await main.getByRole("button", { name: /^(Remove|Change the role)/ }).count()).toBe(0);
    for (const heading of ["Invite someone", "Pending invitations", "Settings"]) expect(await main.getByRole("heading", { name: heading }).count(), heading).toBe(0);
    expect(await member.getByRole("button", { name: "Leave Roles Co" }).count()).toBe(1);
    await web.checkA11y(member, "organizations as member");

    // Demoted behind the admin's back: resending is refused, twice, and the repeat is announced again.
    expect((await olga.c.post("/organization/update-member-role", { memberId: adamId, role: "member", organizationId: org.id })).status).toBe(200);
    const resend = admin.getByRole("button", { name: `Resend the invitation to ${guestEmail}` });
    const alert = admin.locator("main").getByRole("alert");
    await resend.click();
    await poll(() => alert.innerText()).toBe("You are not allowed to invite users to this organization");
    await admin.getByRole("heading", { level: 1 }).focus();
    await resend.click();
    await poll(() => admin.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    // Removed from the other organization meanwhile: switching to it is refused, and that message replaces the first.
    expect((await olga.c.post("/organization/remove-member", { memberIdOrEmail: adam.email, organizationId: other.id })).status).toBe(200);
    await admin.getByRole("button", { name: "Switch to Other Co" }).click();
    await poll(() => alert.allInnerTexts()).toEqual(["User is not a member of the organization"]);
  });

  it("an owner generates a SCIM token shown once, sees the base URL, and revokes it asked first; an admin sees no SCIM section", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    const adam = await apiPerson("Adam Admin");
    const org = await organizationBy(olga, "Scim Co");
    await joinByApi(olga, adam, org.id, "admin");
    const owner = await web.page();
    await signInOnScreen(owner, olga.email, PASSWORD);
    await owner.goto("/organizations");
    await poll(() => owner.getByRole("heading", { name: "SCIM provisioning" }).count()).toBe(1);
    expect(await owner.locator("main code").first().innerText()).toBe(`${web.origin}/api/auth/scim/v2`);
    await poll(() => owner.getByText("No SCIM token yet.").count()).toBe(1);
    await owner.getByLabel("Token name").fill("Okta");
    await owner.getByRole("button", { name: "Generate token" }).click();
    const shown = owner.getByRole("status").filter({ hasText: "Copy this token now" });
    await poll(() => shown.count()).toBe(1);
    const token = await shown.locator("code").innerText();
    expect(token).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    expect(await shown.getByRole("button", { name: "Copy token" }).count()).toBe(1);
    const tokens = owner.getByRole("list", { name: "Tokens" });
    await poll(() => tokens.getByRole("listitem").count()).toBe(1);
    expect(await tokens.innerText()).toContain(token.slice(0, 9));
    expect(await tokens.innerText()).not.toContain(token);
    await web.checkA11y(owner, "organizations SCIM tokens");
    const scimUsers = () => fetch(`${web.origin}/api/auth/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
    expect(await scimUsers()).toBe(200);

    await tokens.getByRole("button", { name: "Revoke the token Okta" }).click();
    await dialog(owner).getByRole("button", { name: "Revoke token" }).click();
    await poll(() => owner.getByText("The token Okta was revoked.").count()).toBe(1);
    await poll(() => tokens.getByRole("listitem").count()).toBe(0);
    expect(await scimUsers()).toBe(401);

    const admin = await web.page();
    await signInOnScreen(admin, adam.email, PASSWORD);
    await admin.goto("/organizations");
    await poll(() => admin.getByRole("heading", { name: "Scim Co", level: 2 }).count()).toBe(1);
    expect(await admin.getByRole("heading", { name: "SCIM provisioning" }).count()).toBe(0);
  });

  it("settings: rename, a taken slug said next to its field, a logo, undo, and deletion asked first", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    const taken = await organizationBy(olga, "Taken Co");
    await organizationBy(olga, "Settings Co");
    const owner = await web.page();
    await signInOnScreen(owner, olga.email, PASSWORD);
    await owner.goto("/organizations");
    await poll(() => owner.getByRole("heading", { name: "Settings Co", level: 2 }).count()).toBe(1);
    const slug = owner.getByLabel("Slug", { exact: true }).last();
    await slug.fill(taken.slug);
    await owner.getByRole("button", { name: "Save changes" }).click();
    await poll(() => slug.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await slug.getAttribute("aria-describedby"))!;
    expect(await owner.locator(`[id="${describedBy}"]`).innerText()).toBe("Organization already exists");

    const renamedSlug = `renamed-${Date.now().toString(36)}`;
    await owner.getByLabel("Name", { exact: true }).fill("Renamed Co");
    await owner.getByLabel("Slug", { exact: true }).last().fill(renamedSlug);
    await owner.getByLabel("Logo (image address)").fill("https://example.com/logo.png");
    await owner.getByRole("button", { name: "Save changes" }).click();
    await poll(() => notice(owner).innerText()).toContain("The settings have been saved.");
    await poll(() => owner.getByRole("heading", { name: "Renamed Co", level: 2 }).count()).toBe(1);
    expect(await owner.locator("h2 img").getAttribute("src")).toBe("https://example.com/logo.png");
    expect(await owner.getByRole("list", { name: "Your organizations" }).innerText()).toContain(`(${renamedSlug})`);
    await poll(() => owner.getByLabel("Organization", { exact: true }).locator("option:checked").innerText()).toBe("Renamed Co");
    await notice(owner).getByRole("button", { name: "Undo" }).click();
    await poll(() => owner.getByRole("heading", { name: "Settings Co", level: 2 }).count()).toBe(1);
    // The heading follows the refetch; the notice comes once the undo has returned, a moment later.
    await poll(() => said(owner, "The previous settings are back.")).toBe(1);
    expect(await owner.locator("h2 img").count()).toBe(0);

    await owner.getByRole("button", { name: "Delete organization" }).click();
    await poll(() => dialog(owner).getByRole("heading").innerText()).toBe("Delete Settings Co?");
    await web.checkA11y(owner, "delete organization dialog");
    // Confirmed only once the organization's name is typed.
    const deleteForGood = dialog(owner).getByRole("button", { name: "Delete for good" });
    expect(await deleteForGood.isDisabled()).toBe(true);
    await dialog(owner).getByLabel("Type Settings Co to confirm").fill("Settings");
    expect(await deleteForGood.isDisabled()).toBe(true);
    await dialog(owner).getByLabel("Type Settings Co to confirm").fill("Settings Co");
    await deleteForGood.click();
    await poll(() => notice(owner).innerText()).toContain("Settings Co has been deleted.");
    await poll(() => owner.getByRole("list", { name: "Your organizations" }).getByRole("listitem").allInnerTexts()).toEqual([expect.stringContaining("Taken Co")]);
    expect(await owner.getByRole("heading", { name: "Settings Co", level: 2 }).count()).toBe(0);
  });

  it("roles: created with the permission checklist, offered in the role picker, edited, deleted once no one holds it", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    const invitee = await apiPerson("Rita Recruiter");
    const { id } = await organizationBy(olga, "Custom Roles Co");
    await joinByApi(olga, invitee, id, "member");
    const owner = await web.page();
    await signInOnScreen(owner, olga.email, PASSWORD);
    await owner.goto("/organizations");
    const roles = owner.getByRole("list", { name: "Roles" });
    await poll(() => owner.getByText("No custom roles yet: members have the built-in ones.").count()).toBe(1);

    const create = owner.getByRole("region", { name: "New role" });
    await create.getByLabel("Role name").fill("recruiter");
    await create.getByRole("group", { name: "Invitations" }).getByLabel("create").check();
    await create.getByRole("group", { name: "Invitations" }).getByLabel("cancel").check();
    // The team permissions are on the one list too.
    await create.getByRole("group", { name: "Teams" }).getByLabel("create").check();
    await web.checkA11y(owner, "roles screen");
    await create.getByRole("button", { name: "Create role" }).click();
    await poll(() => notice(owner).innerText()).toContain("The role recruiter has been created.");
    await poll(() => roles.getByRole("listitem").allInnerTexts()).toEqual([expect.stringContaining("Invitations: create, cancel; Teams: create")]);

    // A built-in name is refused, with the catalogue's message. The form clears once the create has
    // returned, after the notice and the refetched list: typing before that would be wiped.
    await poll(() => create.getByLabel("Role name").inputValue()).toBe("");
    await create.getByLabel("Role name").fill("admin");
    await create.getByRole("button", { name: "Create role" }).click();
    await poll(() => create.getByRole("alert").innerText()).toBe("That role name is already taken");

    // The role picker offers it; the member gets it.
    const rita = who(invitee);
    const picker = owner.getByLabel(`Role of ${rita}`, { exact: true });
    await poll(() => picker.locator("option").allInnerTexts()).toContain("recruiter");
    await picker.selectOption("recruiter");
    await owner.getByRole("button", { name: `Change the role of ${rita}` }).click();
    await dialog(owner).getByRole("button", { name: "Change role" }).click();
    await poll(() => notice(owner).innerText()).toContain(`${rita} is now recruiter.`);
    const mayInvite = async () => (await invitee.c.post("/organization/has-permission", { organizationId: id, permissions: { invitation: ["create"] } })).body;
    expect(await mayInvite()).toEqual({ error: null, success: true });
    const mayCreateTeams = async () => (await invitee.c.post("/organization/has-permission", { organizationId: id, permissions: { team: ["create"] } })).body;
    expect(await mayCreateTeams()).toEqual({ error: null, success: true });

    // Edited: it now grants cancel only.
    await owner.getByRole("button", { name: "Edit recruiter" }).click();
    await roles.getByRole("group", { name: "Invitations" }).getByLabel("create").uncheck();
    await roles.getByRole("button", { name: "Save role" }).click();
    await poll(() => roles.getByRole("listitem").allInnerTexts()).toEqual([expect.stringContaining("Invitations: cancel; Teams: create")]);
    await poll(() => notice(owner).innerText()).toContain("The role recruiter has been saved.");
    expect(await mayInvite()).toEqual({ error: null, success: false });

    // Held by Rita: deletion is refused, said in the dialog; once she is a member again, it goes.
    await owner.getByRole("button", { name: "Delete recruiter" }).click();
    await dialog(owner).getByRole("button", { name: "Delete role" }).click();
    await poll(() => dialog(owner).getByRole("alert").innerText()).toContain("assigned to members");
    await dialog(owner).getByRole("button", { name: "Cancel" }).click();
    await owner.getByLabel(`Role of ${rita}`, { exact: true }).selectOption("member");
    await owner.getByRole("button", { name: `Change the role of ${rita}` }).click();
    await dialog(owner).getByRole("button", { name: "Change role" }).click();
    await poll(() => notice(owner).innerText()).toContain(`${rita} is now member.`);
    await owner.getByRole("button", { name: "Delete recruiter" }).click();
    await dialog(owner).getByRole("button", { name: "Delete role" }).click();
    await poll(() => notice(owner).innerText()).toContain("The role recruiter has been deleted.");
    await poll(() => roles.getByRole("listitem").count()).toBe(0);

    // A plain member is offered no Roles screen.
    const member = await web.page();
    await signInOnScreen(member, invitee.email, PASSWORD);
    await member.goto("/organizations");
    await poll(() => member.getByRole("heading", { name: "Custom Roles Co", level: 2 }).count()).toBe(1);
    expect(await member.getByRole("heading", { name: "Roles", exact: true }).count()).toBe(0);
    expect(await member.getByRole("heading", { name: "Members", exact: true }).count()).toBe(1);
  });

  it("the header's switcher changes the active organization, the page follows, and the next sign-in starts there", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const olga = await apiPerson("Olga Owner");
    await organizationBy(olga, "First Co");
    await organizationBy(olga, "Second Co");
    const page = await web.page();
    await signInOnScreen(page, olga.email, PASSWORD);
    const switcher = page.getByRole("banner").getByLabel("Organization", { exact: true });
    const chosen = () => switcher.locator("option:checked").innerText();
    await poll(chosen).toBe("Second Co");
    await page.goto("/organizations");
    await poll(() => page.getByRole("heading", { level: 2, name: "Second Co" }).count()).toBe(1);
    await web.checkA11y(page, "header with organization switcher");

    await switcher.selectOption({ label: "First Co" });
    await poll(() => page.getByRole("heading", { level: 2, name: "First Co" }).count()).toBe(1);
    await poll(() => page.getByRole("list", { name: "Your organizations" }).getByRole("listitem").filter({ hasText: "Active" }).innerText()).toContain("First Co");

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInOnScreen(page, olga.email, PASSWORD);
    await poll(chosen).toBe("First Co");

    // None is a choice too.
    await switcher.selectOption({ label: "No organization" });
    await poll(chosen).toBe("No organization");
    // The select shows the choice while it is being saved (and is disabled meanwhile); leaving the page
    // before the answer would cancel the request.
    await poll(() => switcher.isEnabled()).toBe(true);
    await page.goto("/organizations");
    await poll(() => page.getByRole("list", { name: "Your organizations" }).getByRole("listitem").count()).toBe(2);
    expect(await page.getByRole("list", { name: "Members" }).count()).toBe(0);
  });
});
