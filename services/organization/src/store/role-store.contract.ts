/** The custom-role part of the OrganizationStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { aMember, anInvitation, anOrganization } from "./organization-store.contract.js";
import type { ActorCheck, CustomRoleRecord, OrganizationStore } from "./organization-store.js";
import { errorCode } from "../../../../testing/error-code.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

function aRole(organizationId: string, overrides: Partial<CustomRoleRecord> = {}): CustomRoleRecord {
  return { id: newId(), organizationId, name: "support", permissions: { member: ["update"], invitation: ["create", "cancel"] }, createdAt: at(0), updatedAt: null, ...overrides };
}

export function roleStoreContract(backend: string, open: () => Promise<OrganizationStore>): void {
  describe(`OrganizationStore custom roles contract (${backend})`, () => {
    let store: OrganizationStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function created() {
      const organization = anOrganization();
      const owner = aMember(organization.id, { role: "owner" });
      await store.createOrganization(organization, owner);
      const actor: ActorCheck = { userId: owner.userId, check: (found) => expect(found?.id).toBe(owner.id) };
      return { organization, owner, actor };
    }

    it("stores a role with its permissions, found by id and by name, listed oldest first", async () => {
      const { organization, actor } = await created();
      const second = aRole(organization.id, { name: "billing", permissions: {}, createdAt: at(2) });
      const first = aRole(organization.id, { createdAt: at(1) });
      await store.createRole(second, actor, 10);
      await store.createRole(first, actor, 10);
      expect(await store.findRole(organization.id, { id: first.id })).toEqual(first);
      expect(await store.findRole(organization.id, { name: "billing" })).toEqual(second);
      expect(await store.findRole(organization.id, { name: "nope" })).toBeNull();
      expect(await store.findRole(newId(), { id: first.id })).toBeNull();
      expect(await store.listRoles(organization.id)).toEqual([first, second]);
    });

    it("a name is unique within an organization, not across them", async () => {
      const { organization, actor } = await created();
      await store.createRole(aRole(organization.id), actor, 10);
      expect(await errorCode(store.createRole(aRole(organization.id), actor, 10))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
      const other = await created();
      await store.createRole(aRole(other.organization.id), other.actor, 10);
      expect(await store.listRoles(organization.id)).toHaveLength(1);
    });

    it("refuses a name a member or a pending invitation still holds; LIKE's _ and substrings do not count", async () => {
      const { organization, actor } = await created();
      await store.addMember(aMember(organization.id, { role: "member, ghost" }));
      await store.addMember(aMember(organization.id, { role: "ghostly,gxost" }));
      await store.createInvitation(anInvitation(organization.id, { role: "phantom" }));
      expect(await errorCode(store.createRole(aRole(organization.id, { name: "ghost" }), actor, 10))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
      expect(await errorCode(store.createRole(aRole(organization.id, { name: "phantom" }), actor, 10))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
      await store.createRole(aRole(organization.id, { name: "g_ost" }), actor, 10);
      await store.createRole(aRole(organization.id, { name: "host" }), actor, 10);
      expect((await store.listRoles(organization.id)).map((r) => r.name).sort()).toEqual(["g_ost", "host"]);
    });

    it("refuses past the limit: TOO_MANY_ROLES", async () => {
      const { organization, actor } = await created();
      await store.createRole(aRole(organization.id, { name: "a" }), actor, 2);
      await store.createRole(aRole(organization.id, { name: "b" }), actor, 2);
      expect(await errorCode(store.createRole(aRole(organization.id, { name: "c" }), actor, 2))).toBe("TOO_MANY_ROLES");
    });

    it("runs the actor's check first: a refusal writes nothing", async () => {
      const { organization, owner } = await created();
      const role = aRole(organization.id);
      const refusing: ActorCheck = {
        userId: owner.userId,
        check() {
          throw Object.assign(new Error("refused"), { code: "REFUSED" });
        },
      };
      await expect(store.createRole(role, refusing, 10)).rejects.toThrow("refused");
      expect(await store.listRoles(organization.id)).toEqual([]);
    });

    it("updates: permissions replaced, renamed, updatedAt set; null once gone", async () => {
      const { organization, actor } = await created();
      const role = aRole(organization.id);
      await store.createRole(role, actor, 10);
      const updated = await store.updateRole(role.id, { name: "helpdesk", permissions: { ac: ["read"] }, updatedAt: at(5) }, actor);
      expect(updated).toEqual({ ...role, name: "helpdesk", permissions: { ac: ["read"] }, updatedAt: at(5) });
      expect(await store.findRole(organization.id, { id: role.id })).toEqual(updated);
      const other = aRole(organization.id, { name: "other" });
      await store.createRole(other, actor, 10);
      expect(await errorCode(store.updateRole(other.id, { name: "helpdesk", updatedAt: at(6) }, actor))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
      expect(await store.deleteRole(role.id, actor)).toBe(true);
      expect(await store.updateRole(role.id, { permissions: {}, updatedAt: at(7) }, actor)).toBeNull();
      expect(await store.deleteRole(role.id, actor)).toBe(false);
    });

    it("a role a member or pending invitation holds is not deleted or renamed; its permissions may change", async () => {
      const { organization, actor } = await created();
      const role = aRole(organization.id);
      await store.createRole(role, actor, 10);
      const member = aMember(organization.id, { role: "admin,support" });
      await store.addMember(member);
      expect(await errorCode(store.deleteRole(role.id, actor))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
      expect(await errorCode(store.updateRole(role.id, { name: "other", updatedAt: at(1) }, actor))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
      expect((await store.updateRole(role.id, { permissions: {}, updatedAt: at(1) }, actor))?.permissions).toEqual({});
      await store.deleteMember(member.id);
      const invitation = anInvitation(organization.id, { role: "support" });
      await store.createInvitation(invitation);
      expect(await errorCode(store.deleteRole(role.id, actor))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
      await store.answerInvitation(invitation.id, "canceled");
      expect(await store.deleteRole(role.id, actor)).toBe(true);
    });

    it("an organization's roles go with it, deleted or left by its last member", async () => {
      const { organization, actor } = await created();
      await store.createRole(aRole(organization.id), actor, 10);
      await store.deleteOrganization(organization.id);
      expect(await store.listRoles(organization.id)).toEqual([]);
      const second = await created();
      await store.createRole(aRole(second.organization.id), second.actor, 10);
      await store.removeUser(second.owner.userId, "owner", "admin");
      expect(await store.listRoles(second.organization.id)).toEqual([]);
    });

    describe("races: ten concurrent attempts, exactly the allowed outcome", () => {
      const attempts = 10;
      it("creates of one name: one wins", async () => {
        const { organization, actor } = await created();
        const results = await Promise.allSettled(Array.from({ length: attempts }, () => store.createRole(aRole(organization.id), actor, 100)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
      });

      it("creates past a limit of 3: exactly 3 stored", async () => {
        const { organization, actor } = await created();
        const results = await Promise.allSettled(Array.from({ length: attempts }, (_, i) => store.createRole(aRole(organization.id, { name: `r${i}` }), actor, 3)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
        expect(await store.listRoles(organization.id)).toHaveLength(3);
      });
    });
  });
}
