/**
 * Custom roles through better-auth 1.7's organizationClient with dynamic access control, over the whole
 * platform: createRole, listRoles, getRole, updateRole, deleteRole, and a custom role given by invitation
 * and by updateMemberRole, honoured by hasPermission and by the checks of invite, update and remove
 * (docs/adr/0066-custom-organization-roles.md). The refusals an attacker tries: escalation, a role in use,
 * a reserved name, a foreign organization.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { organizationClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { uniqueSlug } from "./organization-fixtures.js";

const platform = usePlatform();

async function signedUp(name: string) {
  const { customFetchImpl } = browserFetch(platform.origin);
  const client = createAuthClient({ baseURL: platform.baseURL, plugins: [organizationClient({ dynamicAccessControl: { enabled: true } })], fetchOptions: { customFetchImpl } });
  const email = uniqueEmail(name.toLowerCase());
  const { data, error } = await client.signUp.email({ name, email, password: "password-123" });
  expect(error).toBeNull();
  return { client, email, user: data!.user };
}
type Person = Awaited<ReturnType<typeof signedUp>>;

/** An organization of `owner`'s, active in their session. */
async function organizationOf(owner: Person) {
  const { data, error } = await owner.client.organization.create({ name: "Engines", slug: uniqueSlug("roles") });
  expect(error).toBeNull();
  return data!;
}

/** `who` joins by an invitation of `by` with `role`; answers the membership. */
async function joined(by: Person, who: Person, role: string) {
  const invited = await by.client.organization.inviteMember({ email: who.email, role: role as "member" });
  expect(invited.error).toBeNull();
  const accepted = await who.client.organization.acceptInvitation({ invitationId: invited.data!.id });
  expect(accepted.error).toBeNull();
  return accepted.data!.member;
}

describe(`better-auth 1.7 organizationClient, dynamic access control (${backendLabel()})`, () => {
  it("an owner defines, reads, changes and deletes a role", async () => {
    const ada = await signedUp("Ada");
    const org = await organizationOf(ada);
    const created = await ada.client.organization.createRole({ role: "Support", permission: { member: ["update"], invitation: ["create"] } });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      success: true,
      roleData: { organizationId: org.id, role: "support", permission: { member: ["update"], invitation: ["create"] } },
      statements: { member: ["update"], invitation: ["create"] },
    });
    const roleId = created.data!.roleData.id;

    const listed = await ada.client.organization.listRoles();
    expect(listed.error).toBeNull();
    expect(listed.data!.map((r) => r.role)).toEqual(["support"]);
    const byName = await ada.client.organization.getRole({ query: { roleName: "support" } });
    expect(byName.data).toMatchObject({ id: roleId, permission: { member: ["update"], invitation: ["create"] } });
    const byId = await ada.client.organization.getRole({ query: { roleId, organizationId: org.id } });
    expect(byId.data!.role).toBe("support");

    const updated = await ada.client.organization.updateRole({ roleId, data: { roleName: "helpdesk", permission: { invitation: ["create", "cancel"] } } });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ success: true, roleData: { id: roleId, role: "helpdesk", permission: { invitation: ["create", "cancel"] } } });
    expect(typeof updated.data!.roleData.updatedAt).not.toBe("undefined");

    const deleted = await ada.client.organization.deleteRole({ roleName: "helpdesk" });
    expect(deleted.error).toBeNull();
    expect(deleted.data).toEqual({ success: true });
    const gone = await ada.client.organization.getRole({ query: { roleId } });
    expect(gone.error).toMatchObject({ status: 400, code: "ROLE_NOT_FOUND" });
  });

  it("a custom role given by invitation and by updateMemberRole grants what it lists, and only that", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const bob = await signedUp("Bob");
    await organizationOf(ada);
    await ada.client.organization.createRole({ role: "recruiter", permission: { invitation: ["create"] } });
    await ada.client.organization.createRole({ role: "moderator", permission: { member: ["delete"] } });
    await joined(ada, grace, "recruiter");

    const may = async (who: Person, permissions: Record<string, string[]>) => (await who.client.organization.hasPermission({ permissions })).data?.success;
    expect(await may(grace, { invitation: ["create"] })).toBe(true);
    expect(await may(grace, { invitation: ["cancel"] })).toBe(false);
    expect(await may(grace, { organization: ["update"] })).toBe(false);
    // The recruiter invites (with a role it holds everything of), and Bob joins.
    const bobMember = await joined(grace, bob, "member");
    const cannot = await grace.client.organization.removeMember({ memberIdOrEmail: bobMember.id });
    expect(cannot.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER" });
    const refusedRole = await grace.client.organization.inviteMember({ email: uniqueEmail("x"), role: "moderator" as "member" });
    expect(refusedRole.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE" });

    const graceMember = (await ada.client.organization.getFullOrganization()).data!.members.find((m) => m.userId === grace.user.id)!;
    const made = await ada.client.organization.updateMemberRole({ memberId: graceMember.id, role: ["recruiter", "moderator"] as unknown as "member" });
    expect(made.error).toBeNull();
    expect(made.data).toMatchObject({ role: "recruiter,moderator" });
    expect(await may(grace, { member: ["delete"], invitation: ["create"] })).toBe(true);
    const removed = await grace.client.organization.removeMember({ memberIdOrEmail: bobMember.id });
    expect(removed.error).toBeNull();
    const ghost = await ada.client.organization.updateMemberRole({ memberId: graceMember.id, role: "ghost" as "member" });
    expect(ghost.error).toMatchObject({ status: 400, code: "ROLE_NOT_FOUND" });
  });

  it("refuses escalation, reserved names, unknown resources, a role in use and outsiders", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const eve = await signedUp("Eve");
    const org = await organizationOf(ada);
    await joined(ada, grace, "admin");

    const escalation = await grace.client.organization.createRole({ role: "deleter", permission: { organization: ["delete"] } });
    expect(escalation.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE" });
    const reserved = await ada.client.organization.createRole({ role: "Owner", permission: {} });
    expect(reserved.error).toMatchObject({ status: 400, code: "ROLE_NAME_IS_ALREADY_TAKEN", message: "That role name is already taken" });
    const unknown = await ada.client.organization.createRole({ role: "billing", permission: { billing: ["read"] } });
    expect(unknown.error).toMatchObject({ status: 400, code: "INVALID_RESOURCE" });
    const badName = await ada.client.organization.createRole({ role: "a,b", permission: {} });
    expect(badName.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });

    const strong = await ada.client.organization.createRole({ role: "strong", permission: { organization: ["delete"] } });
    const reshaped = await grace.client.organization.updateRole({ roleName: "strong", data: { permission: {} } });
    expect(reshaped.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE" });

    const graceMember = (await ada.client.organization.getFullOrganization()).data!.members.find((m) => m.userId === grace.user.id)!;
    await ada.client.organization.updateMemberRole({ memberId: graceMember.id, role: "strong" as "member" });
    const inUse = await ada.client.organization.deleteRole({ roleId: strong.data!.roleData.id });
    expect(inUse.error).toMatchObject({ status: 400, code: "ROLE_IS_ASSIGNED_TO_MEMBERS" });
    const builtIn = await ada.client.organization.deleteRole({ roleName: "admin" });
    expect(builtIn.error).toMatchObject({ status: 400, code: "CANNOT_DELETE_A_PRE_DEFINED_ROLE" });

    // An outsider learns nothing: the same refusal for a real organization and a made-up id.
    for (const organizationId of [org.id, "no-such-organization"]) {
      const listed = await eve.client.organization.listRoles({ query: { organizationId } });
      expect(listed.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION" });
      const made = await eve.client.organization.createRole({ organizationId, role: "mine", permission: {} });
      expect(made.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION" });
    }
    const noOrganization = await eve.client.organization.createRole({ role: "mine", permission: {} });
    expect(noOrganization.error).toMatchObject({ status: 400, code: "YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE" });
  });
});
