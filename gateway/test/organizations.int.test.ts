/**
 * The organization routes through the gateway (SQLite, or PostgreSQL and Redis when configured): creation
 * rules, the permission matrix with each refusal's catalogue message and status, the only-owner rules,
 * every transition of the active organization on the session, deletion of users and organizations, and
 * bad input answered 400, never 500.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { usePlatform } from "../../testing/use-platform.js";
import { activeOf, join, organizationOf, type Person, person, refusal, uniqueSlug } from "./organization-fixtures.js";

describe(`organizations (${backendLabel()})`, () => {
  const platform = usePlatform({ env: { ORGANIZATION_LIMIT: "3", IDENTITY_DELETE_USER_VERIFICATION: "false" } });

  describe("create, list, read", () => {
    it("creates with the creator as owner (with user fields), makes it active, lists it", async () => {
      const ada = await person(platform, "Ada");
      const slug = uniqueSlug();
      const res = await ada.c.post("/organization/create", { name: "Engines", slug, logo: "https://example.com/l.png", metadata: { plan: "pro" } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: "Engines", slug, logo: "https://example.com/l.png", metadata: { plan: "pro" } });
      expect(res.body.members).toEqual([expect.objectContaining({ userId: ada.user.id, role: "owner", user: { id: ada.user.id, name: "Ada", email: ada.email, image: null } })]);
      expect(await activeOf(ada)).toBe(res.body.id);
      expect((await ada.c.get("/organization/list")).body.map((o: any) => o.id)).toEqual([res.body.id]);
      const full = await ada.c.get("/organization/get-full-organization");
      expect(full.body).toMatchObject({ id: res.body.id, members: [expect.objectContaining({ userId: ada.user.id })], invitations: [] });
      expect((await ada.c.get(`/organization/get-full-organization?organizationSlug=${slug}`)).body.id).toBe(res.body.id);
      expect((await ada.c.get("/organization/get-active-member")).body).toMatchObject({ userId: ada.user.id, role: "owner", organizationId: res.body.id });
      expect((await ada.c.get("/organization/get-active-member-role")).body).toEqual({ role: "owner" });
    });

    it("slugs differing only in case are one: stored lower-cased, create and check-slug refuse the other case, lookups fold", async () => {
      const ada = await person(platform);
      const slug = `A-x-${uniqueSlug()}`;
      const created = await ada.c.post("/organization/create", { name: "Axes", slug });
      expect(created.status).toBe(200);
      expect(created.body.slug).toBe(slug.toLowerCase());
      const grace = await person(platform);
      for (const other of [slug.toLowerCase(), slug.toUpperCase()]) {
        expect(refusal(await grace.c.post("/organization/create", { name: "x", slug: other }))).toMatchObject({ status: 400, code: "ORGANIZATION_ALREADY_EXISTS" });
        expect(refusal(await grace.c.post("/organization/check-slug", { slug: other }))).toMatchObject({ status: 400, code: "ORGANIZATION_ALREADY_EXISTS" });
      }
      expect((await ada.c.get(`/organization/get-full-organization?organizationSlug=${slug.toUpperCase()}`)).body.id).toBe(created.body.id);
    });

    it("refuses a taken slug (check-slug says so too), the per-user limit, and calls without a session", async () => {
      const ada = await person(platform);
      const taken = await organizationOf(ada);
      expect(refusal(await ada.c.post("/organization/create", { name: "x", slug: taken.slug }))).toEqual({
        status: 400,
        code: "ORGANIZATION_ALREADY_EXISTS",
        message: "Organization already exists",
      });
      expect(refusal(await ada.c.post("/organization/check-slug", { slug: taken.slug }))).toMatchObject({ status: 400, code: "ORGANIZATION_ALREADY_EXISTS" });
      expect((await ada.c.post("/organization/check-slug", { slug: uniqueSlug() })).body).toEqual({ status: true });
      await organizationOf(ada);
      await organizationOf(ada);
      expect(refusal(await ada.c.post("/organization/create", { name: "x", slug: uniqueSlug() }))).toEqual({
        status: 403,
        code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
        message: "You have reached the maximum number of organizations",
      });
      const anonymous = platform.client();
      expect((await anonymous.post("/organization/create", { name: "x", slug: uniqueSlug() })).status).toBe(401);
      expect((await anonymous.get("/organization/list")).status).toBe(401);
      expect((await anonymous.get("/organization/get-full-organization")).status).toBe(401);
    });

    it("a browser cannot create for another user", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      expect(refusal(await ada.c.post("/organization/create", { name: "x", slug: uniqueSlug(), userId: grace.user.id }))).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
      });
    });

    it("reading an organization needs membership; null when none is active", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      const org = await organizationOf(ada);
      expect((await grace.c.get("/organization/get-full-organization")).body).toBeNull();
      expect(refusal(await grace.c.get(`/organization/get-full-organization?organizationId=${org.id}`))).toEqual({
        status: 403,
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        message: "User is not a member of the organization",
      });
      expect(refusal(await grace.c.get(`/organization/list-members?organizationId=${org.id}`))).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
      expect(refusal(await grace.c.get("/organization/get-active-member"))).toEqual({ status: 400, code: "NO_ACTIVE_ORGANIZATION", message: "No active organization" });
      expect(refusal(await grace.c.get("/organization/get-full-organization?organizationId=nope"))).toMatchObject({
        status: 403,
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
      });
    });
  });

  describe("the permission matrix", () => {
    it("update: owner and admin may, a member may not", async () => {
      const ada = await person(platform);
      const admin = await person(platform, "Admin");
      const member = await person(platform, "Member");
      const org = await organizationOf(ada);
      await join(ada, admin, org.id, "admin");
      await join(ada, member, org.id);
      expect((await admin.c.post("/organization/update", { organizationId: org.id, data: { name: "Renamed", metadata: { a: "1" } } })).body).toMatchObject({
        name: "Renamed",
        metadata: { a: "1" },
      });
      expect(refusal(await member.c.post("/organization/update", { organizationId: org.id, data: { name: "x" } }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
        message: "You are not allowed to update this organization",
      });
      const other = await organizationOf(ada);
      expect(refusal(await ada.c.post("/organization/update", { organizationId: org.id, data: { slug: other.slug } }))).toMatchObject({
        status: 400,
        code: "ORGANIZATION_ALREADY_EXISTS",
      });
      expect((await ada.c.post("/organization/update", { organizationId: org.id, data: { logo: null } })).body.logo).toBeNull();
    });

    it("get-full-organization, set-active and create say what the caller may do, by the same rules", async () => {
      const ada = await person(platform);
      const admin = await person(platform, "Admin");
      const member = await person(platform, "Member");
      const org = (await ada.c.post("/organization/create", { name: "Access", slug: uniqueSlug() })).body;
      const owner = org.members[0].id;
      expect(org.access).toMatchObject({ role: "owner", assignableRoles: ["owner", "admin", "member"], updatableMemberIds: [owner] });
      const adminId = (await join(ada, admin, org.id, "admin")).id;
      const memberId = (await join(ada, member, org.id)).id;
      const accessOf = async (who: Person) => (await who.c.get(`/organization/get-full-organization?organizationId=${org.id}`)).body.access;
      expect(await accessOf(ada)).toEqual({
        role: "owner",
        canUpdateOrganization: true,
        canDeleteOrganization: true,
        canInvite: true,
        canCancelInvitations: true,
        assignableRoles: ["owner", "admin", "member"],
        updatableMemberIds: [owner, adminId, memberId],
        removableMemberIds: [owner, adminId, memberId],
        ownerRole: "owner",
        canManageTeams: true,
        roleActions: ["create", "read", "update", "delete"],
      });
      expect(await accessOf(admin)).toEqual({
        role: "admin",
        canUpdateOrganization: true,
        canDeleteOrganization: false,
        canInvite: true,
        canCancelInvitations: true,
        assignableRoles: ["admin", "member"],
        updatableMemberIds: [adminId, memberId],
        removableMemberIds: [adminId, memberId],
        ownerRole: "owner",
        canManageTeams: true,
        roleActions: ["create", "read", "update", "delete"],
      });
      expect((await member.c.post("/organization/set-active", { organizationId: org.id })).body.access).toEqual({
        role: "member",
        canUpdateOrganization: false,
        canDeleteOrganization: false,
        canInvite: false,
        canCancelInvitations: false,
        assignableRoles: ["member"],
        updatableMemberIds: [],
        removableMemberIds: [memberId],
        ownerRole: "owner",
        canManageTeams: false,
        roleActions: [],
      });
    });

    it("delete: only the owner; members' active organization cleared; members and invitations gone", async () => {
      const ada = await person(platform);
      const admin = await person(platform, "Admin");
      const org = await organizationOf(ada);
      await join(ada, admin, org.id, "admin");
      const pending = await ada.c.post("/organization/invite-member", { email: "later@example.com", role: "member", organizationId: org.id });
      expect(await activeOf(admin)).toBe(org.id);
      expect(refusal(await admin.c.post("/organization/delete", { organizationId: org.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
        message: "You are not allowed to delete this organization",
      });
      const deleted = await ada.c.post("/organization/delete", { organizationId: org.id });
      expect(deleted.body).toMatchObject({ id: org.id, slug: org.slug });
      expect([await activeOf(ada), await activeOf(admin)]).toEqual([null, null]);
      expect((await admin.c.get("/organization/list")).body).toEqual([]);
      expect(await platform.services.organization.deps.store.findInvitation(pending.body.id)).toBeNull();
      // Gone: its former owner is now a non-member like anyone else.
      expect(refusal(await ada.c.post("/organization/delete", { organizationId: org.id }))).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
    });

    it("members: remove needs member delete, role change needs member update, only owners touch owners", async () => {
      const ada = await person(platform);
      const admin = await person(platform, "Admin");
      const member = await person(platform, "Member");
      const org = await organizationOf(ada);
      const adminMember = await join(ada, admin, org.id, "admin");
      const plain = await join(ada, member, org.id);
      const owner = org.members[0];
      expect(refusal(await member.c.post("/organization/remove-member", { memberIdOrEmail: adminMember.id, organizationId: org.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
        message: "You are not allowed to delete this member",
      });
      expect(refusal(await admin.c.post("/organization/remove-member", { memberIdOrEmail: owner.id, organizationId: org.id }))).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
      });
      expect(refusal(await member.c.post("/organization/update-member-role", { memberId: adminMember.id, role: "member", organizationId: org.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
        message: "You are not allowed to update this member",
      });
      expect(refusal(await admin.c.post("/organization/update-member-role", { memberId: plain.id, role: "owner", organizationId: org.id }))).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
      });
      expect(refusal(await ada.c.post("/organization/update-member-role", { memberId: plain.id, role: "wizard", organizationId: org.id }))).toEqual({
        status: 400,
        code: "ROLE_NOT_FOUND",
        message: "Role not found",
      });
      expect((await admin.c.post("/organization/update-member-role", { memberId: plain.id, role: "admin", organizationId: org.id })).body).toMatchObject({
        id: plain.id,
        role: "admin",
        user: { email: member.email },
      });
      expect(refusal(await ada.c.post("/organization/remove-member", { memberIdOrEmail: "nobody@example.com", organizationId: org.id }))).toEqual({
        status: 400,
        code: "MEMBER_NOT_FOUND",
        message: "Member not found",
      });
      expect((await admin.c.post("/organization/remove-member", { memberIdOrEmail: member.email, organizationId: org.id })).body).toMatchObject({ member: { id: plain.id } });
      expect(await activeOf(member)).toBeNull();
    });

    it("invitations: a member may neither invite nor cancel; an admin may not invite an owner", async () => {
      const ada = await person(platform);
      const admin = await person(platform, "Admin");
      const member = await person(platform, "Member");
      const org = await organizationOf(ada);
      await join(ada, admin, org.id, "admin");
      await join(ada, member, org.id);
      expect(refusal(await member.c.post("/organization/invite-member", { email: "x@example.com", role: "member", organizationId: org.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
        message: "You are not allowed to invite users to this organization",
      });
      expect(refusal(await admin.c.post("/organization/invite-member", { email: "x@example.com", role: "owner", organizationId: org.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
        message: "you are not allowed to invite user with this role",
      });
      const invited = await admin.c.post("/organization/invite-member", { email: "x@example.com", role: "member", organizationId: org.id });
      expect(refusal(await member.c.post("/organization/cancel-invitation", { invitationId: invited.body.id }))).toEqual({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
        message: "You are not allowed to cancel this invitation",
      });
      expect((await admin.c.post("/organization/cancel-invitation", { invitationId: invited.body.id })).body).toMatchObject({ id: invited.body.id, status: "canceled" });
      expect(refusal(await ada.c.post("/organization/invite-member", { email: admin.email, role: "member", organizationId: org.id }))).toEqual({
        status: 400,
        code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION",
        message: "User is already a member of this organization",
      });
    });

    it("has-permission answers from the matrix (1.1 `permission` and current `permissions`)", async () => {
      const ada = await person(platform);
      const member = await person(platform, "Member");
      const org = await organizationOf(ada);
      await join(ada, member, org.id);
      expect((await ada.c.post("/organization/has-permission", { permission: { organization: ["delete"] } })).body).toEqual({ error: null, success: true });
      expect((await member.c.post("/organization/has-permission", { permissions: { member: ["delete"] } })).body).toEqual({ error: null, success: false });
    });
  });

  describe("the only owner", () => {
    it("can neither leave, be removed nor be demoted; with a second owner it can leave", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      const org = await organizationOf(ada);
      const owner = org.members[0];
      const only = { status: 400, code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER", message: "You cannot leave the organization as the only owner" };
      expect(refusal(await ada.c.post("/organization/leave", { organizationId: org.id }))).toEqual(only);
      expect(refusal(await ada.c.post("/organization/remove-member", { memberIdOrEmail: ada.email }))).toEqual(only);
      expect(refusal(await ada.c.post("/organization/update-member-role", { memberId: owner.id, role: "admin" }))).toEqual(only);
      await join(ada, grace, org.id, "owner");
      expect((await ada.c.post("/organization/leave", { organizationId: org.id })).body).toMatchObject({ id: owner.id, userId: ada.user.id });
      expect(await activeOf(ada)).toBeNull();
      expect(refusal(await ada.c.post("/organization/leave", { organizationId: org.id }))).toMatchObject({ status: 400, code: "MEMBER_NOT_FOUND" });
    });
  });

  describe("the active organization", () => {
    it("set by id and by slug, unset with null, re-read with nothing named", async () => {
      const ada = await person(platform);
      const one = await organizationOf(ada);
      const two = await organizationOf(ada);
      expect(await activeOf(ada)).toBe(two.id);
      expect((await ada.c.post("/organization/set-active", { organizationId: one.id })).body).toMatchObject({ id: one.id, members: [expect.anything()] });
      expect(await activeOf(ada)).toBe(one.id);
      expect((await ada.c.post("/organization/set-active", { organizationSlug: two.slug })).body.id).toBe(two.id);
      expect(await activeOf(ada)).toBe(two.id);
      expect((await ada.c.post("/organization/set-active", {})).body.id).toBe(two.id);
      expect((await ada.c.post("/organization/set-active", { organizationId: null })).body).toBeNull();
      expect(await activeOf(ada)).toBeNull();
      expect((await ada.c.get("/organization/get-full-organization")).body).toBeNull();
    });

    it("setting one the user is not a member of clears it and fails", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      await organizationOf(ada);
      const theirs = await organizationOf(grace);
      expect(refusal(await ada.c.post("/organization/set-active", { organizationId: theirs.id }))).toEqual({
        status: 403,
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        message: "User is not a member of the organization",
      });
      expect(await activeOf(ada)).toBeNull();
      expect(refusal(await ada.c.post("/organization/set-active", { organizationId: "no-such-organization" }))).toMatchObject({
        status: 403,
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
      });
    });

    it("is per session, and cleared on every session of a removed member", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      const org = await organizationOf(ada);
      await join(ada, grace, org.id);
      const second = platform.client();
      expect((await second.post("/sign-in/email", { email: grace.email, password: "password-123" })).status).toBe(200);
      await second.post("/organization/set-active", { organizationId: org.id });
      const graceOnSecond = { ...grace, c: second };
      expect([await activeOf(grace), await activeOf(graceOnSecond)]).toEqual([org.id, org.id]);
      await ada.c.post("/organization/remove-member", { memberIdOrEmail: grace.email });
      expect([await activeOf(grace), await activeOf(graceOnSecond)]).toEqual([null, null]);
      expect(await activeOf(ada)).toBe(org.id);
    });

    it("a new sign-in starts in the organization last set active, but not in one the user was removed from or that was deleted", async () => {
      const ada = await person(platform);
      const grace = await person(platform, "Grace");
      /** Signs out and in again on the same client: the active organization of the new session. */
      const signedInAgain = async (who: Person) => {
        expect((await who.c.post("/sign-out", {})).status).toBe(200);
        expect((await who.c.post("/sign-in/email", { email: who.email, password: "password-123" })).status).toBe(200);
        return activeOf(who);
      };
      const one = await organizationOf(ada);
      const two = await organizationOf(ada);
      await ada.c.post("/organization/set-active", { organizationId: one.id });
      expect(await signedInAgain(ada)).toBe(one.id);
      // A sign-in on another device starts there too.
      const elsewhere = platform.client();
      expect((await elsewhere.post("/sign-in/email", { email: ada.email, password: "password-123" })).status).toBe(200);
      expect(await activeOf({ ...ada, c: elsewhere })).toBe(one.id);

      // Removed by an owner while it was her last choice: not restored.
      await join(ada, grace, one.id);
      expect(await signedInAgain(grace)).toBe(one.id);
      await ada.c.post("/organization/remove-member", { memberIdOrEmail: grace.email, organizationId: one.id });
      expect(await signedInAgain(grace)).toBeNull();

      // Deleted while it was the last choice: not restored.
      await ada.c.post("/organization/set-active", { organizationId: two.id });
      expect((await ada.c.post("/organization/delete", { organizationId: two.id })).status).toBe(200);
      expect(await signedInAgain(ada)).toBeNull();

      // Choosing none is a choice too.
      await ada.c.post("/organization/set-active", { organizationId: one.id });
      await ada.c.post("/organization/set-active", { organizationId: null });
      expect(await signedInAgain(ada)).toBeNull();
    });
  });

  it("deleting a user removes their memberships, and a retry is harmless", async () => {
    const ada = await person(platform);
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    await join(ada, grace, org.id, "admin");
    expect((await grace.c.post("/delete-user", {})).status).toBe(200);
    const members = (await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body;
    expect(members).toMatchObject({ total: 1, members: [{ userId: ada.user.id }] });
    const rpc = platform.services.organization.deps;
    await rpc.store.removeUser(grace.user.id, "owner", "admin");
    expect(await rpc.store.countMemberships(grace.user.id)).toBe(0);
  });

  describe("bad input is a 400 naming the field, never a 500", () => {
    const cases: Array<[string, string, unknown]> = [
      ["POST", "/organization/create", { name: "x" }],
      ["POST", "/organization/create", { name: "x", slug: "has space" }],
      ["POST", "/organization/create", { name: 5, slug: "x" }],
      ["POST", "/organization/create", { name: "x", slug: "x", metadata: { a: { nested: true } } }],
      ["POST", "/organization/create", { name: "   ", slug: "fine-slug" }],
      ["POST", "/organization/update", { organizationId: "x" }],
      ["POST", "/organization/delete", {}],
      ["POST", "/organization/set-active", { organizationId: 7 }],
      ["POST", "/organization/invite-member", { email: "not-an-email", role: "member" }],
      ["POST", "/organization/invite-member", { email: "a@example.com" }],
      ["POST", "/organization/accept-invitation", {}],
      ["POST", "/organization/reject-invitation", { invitationId: ["x"] }],
      ["POST", "/organization/cancel-invitation", { invitationId: "" }],
      ["POST", "/organization/remove-member", {}],
      ["POST", "/organization/update-member-role", { memberId: "x" }],
      ["POST", "/organization/leave", {}],
      ["POST", "/organization/check-slug", {}],
      ["POST", "/organization/has-permission", {}],
      ["GET", "/organization/get-invitation", undefined],
      ["GET", "/organization/list-members?limit=-1", undefined],
      ["GET", "/organization/list-members?limit=abc", undefined],
    ];
    it.each(cases)("%s %s %j", async (method, path, body) => {
      const ada = await person(platform);
      await organizationOf(ada);
      const res = method === "GET" ? await ada.c.get(path) : await ada.c.post(path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toMatch(/^(VALIDATION_ERROR|INVALID_EMAIL)$/);
    });
  });
});
