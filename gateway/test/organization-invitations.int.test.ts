/**
 * Invitations through the gateway with a real SMTP server: the mail carries the web app's invitation link,
 * the organization's name and the inviter; the invitee follows it, reads the invitation and accepts (the
 * organization becomes active). Also: only the recipient answers, answered and expired invitations are
 * gone, resend, and the races (two accepts of one invitation, two creates of one slug).
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { activeOf, join, organizationOf, person, refusal, uniqueSlug, verifyEmail } from "./organization-fixtures.js";

const APP_URL = "https://app.example.test";
const TWO_DAYS_MS = 172_800_000;

describe(`organization invitations (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true, env: { AUTH_APP_URL: APP_URL } });

  it("mails the invitation; the invitee follows its link, reads it and accepts", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const invited = await ada.c.post("/organization/invite-member", { email: grace.email.toUpperCase(), role: "admin" });
    expect(invited.body).toMatchObject({ email: grace.email, role: "admin", status: "pending", organizationId: org.id, inviterId: ada.user.id });
    expect(Date.parse(invited.body.expiresAt) - Date.parse(invited.body.createdAt)).toBe(TWO_DAYS_MS);

    const mail = await platform.smtp.waitFor(grace.email, (m) => m.text.includes("/accept-invitation/"));
    expect(mail.subject).toContain(`Ada invited you to join ${org.name}`);
    expect(mail.text).toContain(org.name);
    const link = linkIn(mail, "/accept-invitation/");
    expect(link).toBe(`${APP_URL}/accept-invitation/${invited.body.id}`);

    // The web app's invitation page reads the id from its path.
    const id = new URL(link).pathname.split("/").pop()!;
    const shown = await grace.c.get(`/organization/get-invitation?id=${id}`);
    expect(shown.body).toMatchObject({ id, organizationName: org.name, organizationSlug: org.slug, inviterEmail: ada.email, status: "pending" });
    // Her own list shows it once her address is verified.
    expect((await grace.c.get("/organization/list-user-invitations")).body).toEqual([]);
    await verifyEmail(platform, grace);
    expect((await grace.c.get("/organization/list-user-invitations")).body.map((i: any) => i.id)).toEqual([id]);
    expect((await ada.c.get("/organization/list-invitations")).body.map((i: any) => i.id)).toEqual([id]);

    const accepted = await grace.c.post("/organization/accept-invitation", { invitationId: id });
    expect(accepted.body).toMatchObject({ invitation: { id, status: "accepted" }, member: { userId: grace.user.id, role: "admin", organizationId: org.id } });
    expect(await activeOf(grace)).toBe(org.id);
    const full = await grace.c.get("/organization/get-full-organization");
    expect(full.body.members.map((m: any) => m.user.email).sort()).toEqual([ada.email, grace.email].sort());
  });

  it("only the recipient reads, accepts or rejects", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const mallory = await person(platform, "Mallory");
    await organizationOf(ada);
    const { body: invitation } = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" });
    const notYou = { status: 403, code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION", message: "You are not the recipient of the invitation" };
    expect(refusal(await mallory.c.get(`/organization/get-invitation?id=${invitation.id}`))).toEqual(notYou);
    expect(refusal(await mallory.c.post("/organization/accept-invitation", { invitationId: invitation.id }))).toEqual(notYou);
    expect(refusal(await mallory.c.post("/organization/reject-invitation", { invitationId: invitation.id }))).toEqual(notYou);
    expect((await platform.client().post("/organization/accept-invitation", { invitationId: invitation.id })).status).toBe(401);
  });

  it("answered invitations are gone: rejected, canceled, accepted", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const gone = { status: 400, code: "INVITATION_NOT_FOUND", message: "Invitation not found" };
    const rejected = (await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" })).body;
    expect((await grace.c.post("/organization/reject-invitation", { invitationId: rejected.id })).body).toEqual({
      invitation: expect.objectContaining({ id: rejected.id, status: "rejected" }),
      member: null,
    });
    expect(refusal(await grace.c.post("/organization/accept-invitation", { invitationId: rejected.id }))).toEqual(gone);
    expect(refusal(await grace.c.get(`/organization/get-invitation?id=${rejected.id}`))).toEqual(gone);

    const canceled = (await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" })).body;
    await ada.c.post("/organization/cancel-invitation", { invitationId: canceled.id });
    expect(refusal(await grace.c.post("/organization/accept-invitation", { invitationId: canceled.id }))).toEqual(gone);

    const accepted = (await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" })).body;
    expect((await grace.c.post("/organization/accept-invitation", { invitationId: accepted.id })).status).toBe(200);
    expect(refusal(await grace.c.post("/organization/reject-invitation", { invitationId: accepted.id }))).toEqual(gone);
    expect(refusal(await ada.c.post("/organization/invite-member", { email: grace.email, role: "member", organizationId: org.id }))).toMatchObject({
      status: 400,
      code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION",
    });
  });

  it("a second invitation is refused unless resend, which mails it again", async () => {
    const ada = await person(platform, "Ada");
    await organizationOf(ada);
    const email = `resend-${uniqueSlug()}@example.com`;
    const first = (await ada.c.post("/organization/invite-member", { email, role: "member" })).body;
    expect(refusal(await ada.c.post("/organization/invite-member", { email, role: "member" }))).toEqual({
      status: 400,
      code: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION",
      message: "User is already invited to this organization",
    });
    await platform.smtp.waitFor(email);
    const again = await ada.c.post("/organization/invite-member", { email, role: "member", resend: true });
    expect(again.body.id).toBe(first.id);
    await expect.poll(() => platform.smtp.mails.filter((m) => m.to.includes(email)).length, { timeout: 10_000 }).toBe(2);
  });

  it("an admin's invitation is refused once the admin is demoted, and works again when the owner resends it", async () => {
    const ada = await person(platform, "Ada");
    const mallory = await person(platform, "Mallory");
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const demoted = await join(ada, mallory, org.id, "admin");
    const { body: invitation } = await mallory.c.post("/organization/invite-member", { email: grace.email, role: "admin", organizationId: org.id });
    expect((await ada.c.post("/organization/update-member-role", { memberId: demoted.id, role: "member", organizationId: org.id })).status).toBe(200);

    expect(refusal(await grace.c.post("/organization/accept-invitation", { invitationId: invitation.id }))).toEqual({
      status: 400,
      code: "INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE",
      message: "Inviter may no longer give this role",
    });
    const members = (await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body;
    expect(members.members.map((m: any) => m.userId)).not.toContain(grace.user.id);

    expect((await ada.c.post("/organization/invite-member", { email: grace.email, role: "admin", organizationId: org.id, resend: true })).status).toBe(200);
    const accepted = await grace.c.post("/organization/accept-invitation", { invitationId: invitation.id });
    expect(accepted.status).toBe(200);
    expect(accepted.body.member.role).toBe("admin");
  });

  it("two accepts of one invitation at once make one membership", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const { body: invitation } = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" });
    const results = await Promise.all([1, 2, 3].map(() => grace.c.post("/organization/accept-invitation", { invitationId: invitation.id })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    const members = (await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body;
    expect(members.total).toBe(2);
    expect(members.members.filter((m: any) => m.userId === grace.user.id)).toHaveLength(1);
  });

  it("two creates of one slug at once make one organization", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const slug = uniqueSlug("race");
    const results = await Promise.all([ada, grace, ada, grace].map((p) => p.c.post("/organization/create", { name: "Race", slug })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.code === "ORGANIZATION_ALREADY_EXISTS")).toBe(true);
    const owners = [...(await ada.c.get("/organization/list")).body, ...(await grace.c.get("/organization/list")).body].filter((o: any) => o.slug === slug);
    expect(owners).toHaveLength(1);
  });

  // Last: it moves the platform's clock.
  it("an invitation expires after two days: it can no longer be read or accepted, and no longer blocks a new one", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    await organizationOf(ada);
    const { body: invitation } = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" });
    await verifyEmail(platform, grace);
    expect((await grace.c.get("/organization/list-user-invitations")).body.map((i: any) => i.id)).toEqual([invitation.id]);
    platform.clock.advance(TWO_DAYS_MS + 1_000);
    const gone = { status: 400, code: "INVITATION_NOT_FOUND", message: "Invitation not found" };
    expect(refusal(await grace.c.get(`/organization/get-invitation?id=${invitation.id}`))).toEqual(gone);
    expect(refusal(await grace.c.post("/organization/accept-invitation", { invitationId: invitation.id }))).toEqual(gone);
    expect(refusal(await grace.c.post("/organization/reject-invitation", { invitationId: invitation.id }))).toEqual(gone);
    expect((await grace.c.get("/organization/list-user-invitations")).body).toEqual([]);
    const renewed = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" });
    expect(renewed.status).toBe(200);
    expect(renewed.body.id).not.toBe(invitation.id);
  });
});

describe(`organization invitation limit (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true, env: { ORGANIZATION_INVITATION_LIMIT: "2" } });

  it("refuses a third pending invitation with better-auth's 403 INVITATION_LIMIT_REACHED and mails nothing; canceling one frees its place", async () => {
    const ada = await person(platform, "Ada");
    const org = await organizationOf(ada);
    const invite = (email: string) => ada.c.post("/organization/invite-member", { email, role: "member", organizationId: org.id });
    const first = await invite(`first-${uniqueSlug()}@example.com`);
    expect((await invite(`second-${uniqueSlug()}@example.com`)).status).toBe(200);
    const third = `third-${uniqueSlug()}@example.com`;
    expect(refusal(await invite(third))).toEqual({ status: 403, code: "INVITATION_LIMIT_REACHED", message: "Invitation limit reached" });
    expect((await ada.c.post("/organization/cancel-invitation", { invitationId: first.body.id })).status).toBe(200);
    expect((await invite(third)).status).toBe(200);
    await platform.smtp.waitFor(third);
    expect(platform.smtp.mails.filter((m) => m.to.includes(third))).toHaveLength(1);
  });
});
