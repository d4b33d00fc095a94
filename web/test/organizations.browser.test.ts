/**
 * Organizations in the browser: create one with the suggested slug, invite a second
 * person who signs up from the mailed link and accepts, change their role, remove them; a taken slug is
 * refused next to its field.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

/** Whether this build has the organization API; without it these tests are skipped, saying so. */
const hasOrganizationApi = async () => (await fetch(`${web.origin}/api/auth/organization/list`)).status !== 404;
const NO_API = "the organization API is not in this build";

describe("organizations", () => {
  it("creates an organization, invites someone who signs up from the mail and accepts, then changes their role and removes them", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const ownerEmail = uniqueEmail("web-org-owner");
    const inviteeEmail = uniqueEmail("web-org-invitee");
    await signUpByApi(web.origin, { name: "Olivia Owner", email: ownerEmail, password: "password-123" });
    const owner = await web.page();
    await signInOnScreen(owner, ownerEmail, "password-123");
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
    await poll(() => owner.getByLabel("Slug").getAttribute("aria-invalid")).toBe("true");

    await owner.getByLabel("Organization name").fill("");
    await owner.getByLabel("Email address to invite").fill(inviteeEmail);
    await owner.getByLabel("Role", { exact: true }).selectOption("admin");
    await owner.getByRole("button", { name: "Send invitation" }).click();
    const pending = owner.getByRole("list", { name: "Pending invitations" });
    await poll(() => pending.getByRole("listitem").innerText()).toContain(`${inviteeEmail} as admin`);
    await web.checkA11y(owner, "organizations");
    await web.screenshot(owner, "organizations");

    // Resend one invitation; send another and cancel it.
    await owner.getByRole("button", { name: `Resend the invitation to ${inviteeEmail}` }).click();
    await poll(() => owner.getByText(`Invitation sent again to ${inviteeEmail}.`).count()).toBe(1);
    const other = uniqueEmail("web-org-cancelled");
    await owner.getByLabel("Email address to invite").fill(other);
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await poll(() => pending.getByRole("listitem").count()).toBe(2);
    await owner.getByRole("button", { name: `Cancel the invitation to ${other}` }).click();
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
    const members = owner.getByRole("list", { name: "Members" });
    await poll(() => members.getByRole("listitem").count()).toBe(2);
    const role = owner.getByLabel(`Role of Ivan Invitee (${inviteeEmail})`);
    expect(await role.inputValue()).toBe("admin");
    await role.selectOption("member");
    await owner.reload();
    await poll(() => owner.getByLabel(`Role of Ivan Invitee (${inviteeEmail})`).inputValue()).toBe("member");
    await owner.getByRole("button", { name: `Remove Ivan Invitee (${inviteeEmail})` }).click();
    await poll(() => members.getByRole("listitem").count()).toBe(1);
  });

  it("declines an invitation from the mail link, then joins through another and leaves", async ({ skip }) => {
    if (!(await hasOrganizationApi())) return skip(NO_API);
    const ownerEmail = uniqueEmail("web-org-owner2");
    const guestEmail = uniqueEmail("web-org-guest");
    await signUpByApi(web.origin, { name: "Otto Owner", email: ownerEmail, password: "password-123" });
    await signUpByApi(web.origin, { name: "Gina Guest", email: guestEmail, password: "password-456" });
    const owner = await web.page();
    await signInOnScreen(owner, ownerEmail, "password-123");
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

    // Invited again, the guest accepts, then leaves from the organizations page.
    const second = await invite(first);
    await guest.goto(second);
    await guest.getByRole("button", { name: "Accept" }).click();
    await guest.waitForURL("**/organizations");
    await poll(() => guest.getByRole("list", { name: "Your organizations" }).innerText()).toMatch(new RegExp(`${name}.*Active`, "s"));
    await guest.getByRole("button", { name: `Leave ${name}` }).click();
    await poll(() => guest.getByText("You are not a member of any organization yet.").count()).toBe(1);
    await owner.reload();
    await poll(() => owner.getByRole("list", { name: "Members" }).getByRole("listitem").count()).toBe(1);
  });
});
