/**
 * Authorization attacks on organizations and the admin area, tried through the gateway: a member handing on
 * permissions their own role does not hold (custom ORGANIZATION_ROLES), an admin renewing an owner's
 * invitation by re-sending it, permission names that are the names of built-in object properties, and an
 * unverified user who takes on an invited address to read the invitation's id from list-user-invitations.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin } from "./admin-fixtures.js";
import { join, organizationOf, person, refusal, verifyEmail } from "./organization-fixtures.js";

describe("with the default roles", () => {
  const platform = usePlatform();

  it("an admin cannot renew an owner's invitation by re-sending it with another role", async () => {
    const ada = await person(platform);
    const alan = await person(platform, "Alan");
    const org = await organizationOf(ada);
    await join(ada, alan, org.id, "admin");
    const invited = await ada.c.post("/organization/invite-member", { email: "boss@example.com", role: "owner", organizationId: org.id });
    expect(invited.status).toBe(200);
    platform.clock.advance(60_000);
    const resent = await alan.c.post("/organization/invite-member", { email: "boss@example.com", role: "member", organizationId: org.id, resend: true });
    expect(refusal(resent)).toEqual({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE", message: "you are not allowed to invite user with this role" });
    const stored = await platform.services.organization.deps.store.findInvitation(invited.body.id);
    expect(stored!.expiresAt.toISOString()).toBe(invited.body.expiresAt);
    // The owner may re-send it, and an admin may re-send an invitation with a role they may give.
    expect((await ada.c.post("/organization/invite-member", { email: "boss@example.com", role: "owner", organizationId: org.id, resend: true })).status).toBe(200);
    await ada.c.post("/organization/invite-member", { email: "staff@example.com", role: "admin", organizationId: org.id });
    expect((await alan.c.post("/organization/invite-member", { email: "staff@example.com", role: "admin", organizationId: org.id, resend: true })).status).toBe(200);
  });

  it("has-permission with resource names of built-in object properties answers false, not 500", async () => {
    const ada = await person(platform);
    await organizationOf(ada);
    const admin = await anAdmin(platform);
    for (const resource of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const asked = { permissions: { [resource]: ["update"] } };
      expect((await ada.c.post("/organization/has-permission", asked)).body, resource).toEqual({ error: null, success: false });
      expect((await admin.c.post("/admin/has-permission", asked)).body, resource).toEqual({ error: null, success: false });
    }
  });
});

/** "manager" may change roles and invite; "treasurer" may also delete the organization, which a manager may not. */
const ROLES = {
  owner: { organization: ["update", "delete"], member: ["create", "update", "delete"], invitation: ["create", "cancel"] },
  manager: { member: ["update"], invitation: ["create"] },
  treasurer: { organization: ["update", "delete"] },
  member: {},
};

describe("with custom roles, a member hands on only what their own role grants", () => {
  const platform = usePlatform({ env: { ORGANIZATION_ROLES: JSON.stringify(ROLES) } });

  it("a manager can neither give themselves nor anyone else a role that may delete the organization", async () => {
    const ada = await person(platform);
    const mona = await person(platform, "Mona");
    const joan = await person(platform, "Joan");
    const org = await organizationOf(ada);
    const manager = await join(ada, mona, org.id, "manager");
    const member = await join(ada, joan, org.id, "member");
    const denied = { status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", message: "You are not allowed to update this member" };
    expect(refusal(await mona.c.post("/organization/update-member-role", { memberId: manager.id, role: "treasurer", organizationId: org.id }))).toEqual(denied);
    expect(refusal(await mona.c.post("/organization/update-member-role", { memberId: manager.id, role: ["manager", "treasurer"], organizationId: org.id }))).toEqual(denied);
    expect(refusal(await mona.c.post("/organization/update-member-role", { memberId: member.id, role: "treasurer", organizationId: org.id }))).toEqual(denied);
    expect(refusal(await mona.c.post("/organization/invite-member", { email: "accomplice@example.com", role: "treasurer", organizationId: org.id }))).toEqual({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
      message: "you are not allowed to invite user with this role",
    });
    expect(refusal(await mona.c.post("/organization/delete", { organizationId: org.id }))).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION" });
    const members = (await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body.members;
    expect(Object.fromEntries(members.map((m: { id: string; role: string }) => [m.id, m.role]))).toMatchObject({ [manager.id]: "manager", [member.id]: "member" });

    // What the manager holds, they may give; the owner gives any role.
    expect((await mona.c.post("/organization/update-member-role", { memberId: member.id, role: "manager", organizationId: org.id })).body.role).toBe("manager");
    expect((await mona.c.post("/organization/invite-member", { email: "helper@example.com", role: "manager", organizationId: org.id })).status).toBe(200);
    expect((await ada.c.post("/organization/update-member-role", { memberId: member.id, role: "treasurer", organizationId: org.id })).body.role).toBe("treasurer");
  });
});

describe("an invitation to an address without an account (default: verification not required)", () => {
  const platform = usePlatform({ smtp: true });

  it("an unverified user who changes her address to the invited one is not shown the invitation", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const invitedAddress = uniqueEmail("boss");
    const invited = await ada.c.post("/organization/invite-member", { email: invitedAddress, role: "admin", organizationId: org.id });
    expect(invited.status).toBe(200);

    // Unverified, Mallory's change of address applies at once (docs/http-api/account.md#post-change-email): she now carries the invited address.
    const mallory = await person(platform, "Mallory");
    expect((await mallory.c.post("/change-email", { newEmail: invitedAddress })).status).toBe(200);
    expect((await mallory.c.get("/get-session")).body.user).toMatchObject({ email: invitedAddress, emailVerified: false });
    // The list would hand her the id; without it she cannot accept.
    expect((await mallory.c.get("/organization/list-user-invitations")).body).toEqual([]);
    expect((await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body.members.map((m: any) => m.userId)).toEqual([ada.user.id]);
    expect(await platform.services.organization.deps.store.findInvitation(invited.body.id)).toMatchObject({ status: "pending" });
  });

  it("the invitee lists her invitation once she has verified the address; the mailed link works before", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const grace = await person(platform, "Grace");
    const first = await ada.c.post("/organization/invite-member", { email: grace.email, role: "admin", organizationId: org.id });
    const other = await organizationOf(ada);
    const second = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member", organizationId: other.id });
    expect((await grace.c.get("/organization/list-user-invitations")).body).toEqual([]);
    // The mailed link is the proof of the mailbox: its holder reads and accepts while still unverified.
    const mailed = await platform.smtp.waitFor(grace.email, (m) => m.text.includes(`/accept-invitation/${first.body.id}`));
    const id = linkIn(mailed, "/accept-invitation/").split("/").pop()!;
    expect((await grace.c.get(`/organization/get-invitation?id=${id}`)).body).toMatchObject({ id, organizationId: org.id, status: "pending" });
    expect((await grace.c.post("/organization/accept-invitation", { invitationId: id })).body.member).toMatchObject({ userId: grace.user.id, role: "admin" });

    await verifyEmail(platform, grace);
    expect((await grace.c.get("/organization/list-user-invitations")).body.map((i: any) => i.id)).toEqual([second.body.id]);
  });
});
