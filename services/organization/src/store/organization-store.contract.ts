/** The OrganizationStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { ActorCheck, InvitationRecord, MemberRecord, NewInvitationMail, OrganizationRecord, OrganizationStore, TeamMemberRecord, TeamRecord } from "./organization-store.js";
import { errorCode } from "../../../../testing/error-code.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

export function anOrganization(overrides: Partial<OrganizationRecord> = {}): OrganizationRecord {
  const id = newId();
  return { id, name: "Analytical Engines", slug: `engines-${id}`, logo: null, metadata: {}, createdAt: at(0), ...overrides };
}

export function aMember(organizationId: string, overrides: Partial<MemberRecord> = {}): MemberRecord {
  return { id: newId(), organizationId, userId: newId(), role: "member", createdAt: at(0), ...overrides };
}

export function anInvitation(organizationId: string, overrides: Partial<InvitationRecord> = {}): InvitationRecord {
  return {
    id: newId(),
    organizationId,
    email: `${newId()}@example.com`,
    role: "member",
    status: "pending",
    inviterId: newId(),
    expiresAt: at(172_800_000),
    createdAt: at(0),
    ...overrides,
  };
}

export function aTeam(organizationId: string, overrides: Partial<TeamRecord> = {}): TeamRecord {
  return { id: newId(), organizationId, name: `Team ${newId()}`, createdAt: at(0), updatedAt: at(0), ...overrides };
}

export function aPlace(team: TeamRecord, userId: string, overrides: Partial<TeamMemberRecord> = {}): TeamMemberRecord {
  return { id: newId(), teamId: team.id, organizationId: team.organizationId, userId, createdAt: at(0), ...overrides };
}

export function aMail(invitation: InvitationRecord, overrides: Partial<InvitationRecord> = {}): NewInvitationMail {
  const expiresAt = overrides.expiresAt ?? invitation.expiresAt;
  return {
    id: newId(),
    invitationId: invitation.id,
    recipient: invitation.email,
    variables: { url: `https://app.example.com/accept-invitation/${invitation.id}`, organization_name: "Analytical Engines", role: invitation.role, inviter_name: "Ada" },
    idempotencyKey: `organization-invitation:${invitation.id}:${expiresAt.getTime()}`,
    language: "fr",
    nextAttemptAt: at(0),
    createdAt: at(0),
  };
}

export function organizationStoreContract(backend: string, open: () => Promise<OrganizationStore>): void {
  describe(`OrganizationStore contract (${backend})`, () => {
    let store: OrganizationStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function created(overrides: Partial<OrganizationRecord> = {}, ownerId = newId()) {
      const organization = anOrganization(overrides);
      const owner = aMember(organization.id, { userId: ownerId, role: "owner" });
      await store.createOrganization(organization, owner);
      return { organization, owner };
    }

    it("creates an organization with its creator, every field intact, found by id and slug", async () => {
      const { organization, owner } = await created({ logo: "https://example.com/logo.png", metadata: { plan: "pro", region: "eu" } });
      expect(await store.findOrganization(organization.id)).toEqual(organization);
      expect(await store.findOrganizationBySlug(organization.slug)).toEqual(organization);
      expect(await store.findMember(organization.id, owner.userId)).toEqual(owner);
      expect(await store.findMemberById(owner.id)).toEqual(owner);
      expect(await store.findOrganization(newId())).toBeNull();
    });

    it("finds several organizations by id at once, skipping the ones that do not exist", async () => {
      const { organization: first } = await created();
      const { organization: second } = await created({ metadata: { plan: "pro" } });
      const found = await store.findOrganizations([second.id, newId(), first.id, second.id]);
      expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual([first, second].sort((a, b) => a.id.localeCompare(b.id)));
      expect(await store.findOrganizations([])).toEqual([]);
    });

    it("refuses a taken slug on create and on update, leaving nothing behind", async () => {
      const { organization } = await created();
      const clash = anOrganization({ slug: organization.slug });
      const creator = aMember(clash.id, { role: "owner" });
      expect(await errorCode(store.createOrganization(clash, creator))).toBe("ORGANIZATION_ALREADY_EXISTS");
      expect(await store.findOrganization(clash.id)).toBeNull();
      expect(await store.countMemberships(creator.userId)).toBe(0);
      const { organization: other } = await created();
      expect(await errorCode(store.updateOrganization(other.id, { slug: organization.slug }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    });

    it("updates fields it is given, clears the logo with null, and answers null for a gone organization", async () => {
      const { organization } = await created({ logo: "https://example.com/a.png", metadata: { a: "1" } });
      const updated = await store.updateOrganization(organization.id, { name: "Difference Engines", logo: null, metadata: { b: "2" } });
      expect(updated).toEqual({ ...organization, name: "Difference Engines", logo: null, metadata: { b: "2" } });
      expect(await store.updateOrganization(newId(), { name: "x" })).toBeNull();
    });

    it("lists a user's organizations by membership age and counts them", async () => {
      const userId = newId();
      const { organization: first } = await created({ createdAt: at(0) }, userId);
      const { organization: second } = await created({ createdAt: at(1) });
      await store.addMember(aMember(second.id, { userId, createdAt: at(5) }));
      expect((await store.listOrganizationsOfUser(userId)).map((o) => o.id)).toEqual([first.id, second.id]);
      expect(await store.countMemberships(userId)).toBe(2);
      expect(await store.listOrganizationsOfUser(newId())).toEqual([]);
    });

    it("refuses a second membership of one user", async () => {
      const { organization, owner } = await created();
      expect(await errorCode(store.addMember(aMember(organization.id, { userId: owner.userId })))).toBe("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
    });

    it("pages members oldest first with the total, and finds them by user ids", async () => {
      const { organization, owner } = await created();
      const added = [];
      for (let i = 1; i <= 5; i++) {
        const member = aMember(organization.id, { createdAt: at(i * 1000) });
        await store.addMember(member);
        added.push(member);
      }
      const page = await store.listMembers(organization.id, { limit: 2, offset: 1 });
      expect(page).toEqual({ members: added.slice(0, 2), total: 6 });
      expect((await store.listMembers(organization.id, { limit: 100, offset: 0 })).members[0]).toEqual(owner);
      const found = await store.findMembersByUserIds(organization.id, [added[2]!.userId, newId()]);
      expect(found).toEqual([added[2]]);
    });

    it("changes and deletes members, keeping the last holder of the owner role (comma-separated roles included)", async () => {
      const { organization, owner } = await created();
      const both = aMember(organization.id, { role: "admin,owner" });
      const owners = aMember(organization.id, { role: "owners" });
      await store.addMember(both);
      await store.addMember(owners);
      expect(await store.updateMemberRole(both.id, "member", { keepRole: "owner" })).toEqual({ ...both, role: "member" });
      expect(await errorCode(store.updateMemberRole(owner.id, "admin", { keepRole: "owner" }))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
      expect(await errorCode(store.deleteMember(owner.id, { keepRole: "owner" }))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
      expect(await store.updateMemberRole(owner.id, "owner,admin", { keepRole: "owner" })).toEqual({ ...owner, role: "owner,admin" });
      expect(await store.deleteMember(owners.id, { keepRole: "owner" })).toBe(true);
      expect(await store.deleteMember(both.id)).toBe(true);
      expect(await store.deleteMember(both.id)).toBe(false);
      expect(await store.updateMemberRole(both.id, "admin")).toBeNull();
      expect((await store.findMemberById(owner.id))!.role).toBe("owner,admin");
    });

    it("keeps invitations: pending lookups by address, lists newest first, answers only pending ones", async () => {
      const { organization } = await created();
      const older = anInvitation(organization.id, { email: "grace@example.com", createdAt: at(0), expiresAt: at(5) });
      const newer = anInvitation(organization.id, { email: "grace@example.com", createdAt: at(10) });
      await store.createInvitation(older);
      await store.createInvitation(newer);
      expect(await store.findInvitation(older.id)).toEqual(older);
      expect(await store.findPendingInvitation(organization.id, "grace@example.com")).toEqual(newer);
      expect((await store.listInvitations(organization.id)).map((i) => i.id)).toEqual([newer.id, older.id]);
      expect(await store.answerInvitation(newer.id, "rejected")).toBe(true);
      expect((await store.listInvitations(organization.id, true)).map((i) => i.id)).toEqual([older.id]);
      expect(await store.answerInvitation(newer.id, "canceled")).toBe(false);
      expect(await store.findPendingInvitation(organization.id, "grace@example.com")).toEqual(older);
      expect((await store.listPendingInvitationsTo("grace@example.com")).map((i) => i.id)).toEqual([older.id]);
      expect(await store.answerInvitation(older.id, "pending", { expiresAt: at(999), inviterId: "resender" })).toBe(true);
      expect(await store.findInvitation(older.id)).toEqual({ ...older, expiresAt: at(999), inviterId: "resender" });
    });

    it("accepts an invitation once: the member is added; a second accept changes nothing", async () => {
      const { organization } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      const member = aMember(organization.id);
      expect(await store.acceptInvitation(invitation.id, member)).toBe(true);
      expect((await store.findInvitation(invitation.id))!.status).toBe("accepted");
      expect(await store.findMember(organization.id, member.userId)).toEqual(member);
      expect(await store.acceptInvitation(invitation.id, aMember(organization.id))).toBe(false);
    });

    it("an accept whose inviter check refuses adds no member and leaves the invitation pending; the check sees the inviter as stored", async () => {
      const { organization, owner } = await created();
      const invitation = anInvitation(organization.id, { inviterId: owner.userId });
      await store.createInvitation(invitation);
      const seen: Array<string | null> = [];
      const refuse: ActorCheck = {
        userId: owner.userId,
        check(actor) {
          seen.push(actor?.role ?? null);
          throw new AuthError("INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE");
        },
      };
      const member = aMember(organization.id);
      expect(await errorCode(store.acceptInvitation(invitation.id, member, refuse))).toBe("INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE");
      expect(seen).toEqual([owner.role]);
      expect(await store.findMember(organization.id, member.userId)).toBeNull();
      expect((await store.findInvitation(invitation.id))!.status).toBe("pending");
      expect(await store.acceptInvitation(invitation.id, member, { userId: owner.userId, check() {} })).toBe(true);
    });

    it("an accept by an existing member is refused and leaves the invitation pending", async () => {
      const { organization, owner } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      expect(await errorCode(store.acceptInvitation(invitation.id, aMember(organization.id, { userId: owner.userId })))).toBe("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
      expect((await store.findInvitation(invitation.id))!.status).toBe("pending");
    });

    it("of two concurrent accepts of one invitation, exactly one adds a member", async () => {
      const { organization } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      const userId = newId();
      const results = await Promise.allSettled([
        store.acceptInvitation(invitation.id, aMember(organization.id, { userId })),
        store.acceptInvitation(invitation.id, aMember(organization.id, { userId })),
      ]);
      expect(results.filter((r) => r.status === "fulfilled" && r.value === true)).toHaveLength(1);
      expect((await store.listMembers(organization.id, { limit: 10, offset: 0 })).total).toBe(2);
    });

    it("deletes an organization with its members and invitations", async () => {
      const { organization, owner } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      expect(await store.deleteOrganization(organization.id)).toBe(true);
      expect(await store.findOrganization(organization.id)).toBeNull();
      expect(await store.findMemberById(owner.id)).toBeNull();
      expect(await store.findInvitation(invitation.id)).toBeNull();
      expect(await store.deleteOrganization(organization.id)).toBe(false);
    });

    it("removes a user's memberships and cancels their pending invitations, idempotently", async () => {
      const userId = newId();
      const { organization: a, owner: aOwner } = await created({}, userId);
      await store.addMember(aMember(a.id, { role: "owner" }));
      const { organization: b } = await created();
      await store.addMember(aMember(b.id, { userId }));
      const sent = anInvitation(b.id, { inviterId: userId });
      const answered = anInvitation(b.id, { inviterId: userId, status: "accepted" });
      await store.createInvitation(sent);
      await store.createInvitation(answered);
      expect((await store.removeUser(userId, "owner", "admin")).sort()).toEqual([a.id, b.id].sort());
      expect(await store.countMemberships(userId)).toBe(0);
      expect(await store.findMemberById(aOwner.id)).toBeNull();
      expect((await store.findInvitation(sent.id))!.status).toBe("canceled");
      expect((await store.findInvitation(answered.id))!.status).toBe("accepted");
      expect(await store.removeUser(userId, "owner", "admin")).toEqual([]);
    });

    it("passes a deleted only owner's role to the oldest admin, else the oldest member; a last member's organization goes", async () => {
      const userId = newId();
      const { organization: withAdmin } = await created({}, userId);
      const olderMember = aMember(withAdmin.id, { createdAt: at(1) });
      const olderAdmin = aMember(withAdmin.id, { role: "admin", createdAt: at(2) });
      const newerAdmin = aMember(withAdmin.id, { role: "admin", createdAt: at(3) });
      for (const m of [olderMember, olderAdmin, newerAdmin]) await store.addMember(m);
      const { organization: membersOnly } = await created({}, userId);
      const oldest = aMember(membersOnly.id, { createdAt: at(1) });
      await store.addMember(oldest);
      await store.addMember(aMember(membersOnly.id, { createdAt: at(2) }));
      const { organization: alone } = await created({}, userId);
      const invitation = anInvitation(alone.id);
      await store.createInvitation(invitation);

      await store.removeUser(userId, "owner", "admin");
      expect((await store.findMemberById(olderAdmin.id))!.role).toBe("owner");
      expect((await store.findMemberById(newerAdmin.id))!.role).toBe("admin");
      expect((await store.findMemberById(olderMember.id))!.role).toBe("member");
      expect((await store.findMemberById(oldest.id))!.role).toBe("owner");
      expect(await store.findOrganization(alone.id)).toBeNull();
      expect(await store.findInvitation(invitation.id)).toBeNull();
      expect(await store.findOrganization(withAdmin.id)).not.toBeNull();
    });

    it("refuses a second pending invitation of one address, and allows one once the first expired or was answered", async () => {
      const { organization } = await created();
      const first = anInvitation(organization.id, { expiresAt: at(100) });
      await store.createInvitation(first);
      expect(await errorCode(store.createInvitation({ ...anInvitation(organization.id), email: first.email, createdAt: at(50) }))).toBe(
        "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION",
      );
      const afterExpiry = { ...anInvitation(organization.id), email: first.email, createdAt: at(100) };
      await store.createInvitation(afterExpiry);
      expect(await store.answerInvitation(afterExpiry.id, "canceled")).toBe(true);
      await store.createInvitation({ ...anInvitation(organization.id), email: first.email, createdAt: at(101) });
    });

    it("refuses an invitation past the limit of pending, unexpired ones; expired and answered ones do not count", async () => {
      const { organization } = await created();
      const expiring = anInvitation(organization.id, { expiresAt: at(100) });
      const answered = anInvitation(organization.id);
      for (const invitation of [anInvitation(organization.id), expiring, answered]) await store.createInvitation(invitation, undefined, 3);
      expect(await errorCode(store.createInvitation(anInvitation(organization.id), undefined, 3))).toBe("INVITATION_LIMIT_REACHED");
      expect(await store.answerInvitation(answered.id, "canceled")).toBe(true);
      await store.createInvitation(anInvitation(organization.id), undefined, 3);
      expect(await errorCode(store.createInvitation(anInvitation(organization.id), undefined, 3))).toBe("INVITATION_LIMIT_REACHED");
      await store.createInvitation(anInvitation(organization.id, { createdAt: at(100) }), undefined, 3);
      expect((await store.listInvitations(organization.id, true)).length).toBe(4);
    });

    it("checks the actor on the rows as they are when it writes; a refused change writes nothing", async () => {
      const { organization, owner } = await created();
      const subject = aMember(organization.id, { role: "admin" });
      await store.addMember(subject);
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      // The actor's role changed after they were first checked: each write sees the new one.
      await store.updateMemberRole(owner.id, "owner,admin");
      const seen: Array<{ role: string | null; subject?: string }> = [];
      const refuse: ActorCheck = {
        userId: owner.userId,
        check(actor, member) {
          seen.push({ role: actor?.role ?? null, ...(member ? { subject: `${member.id}:${member.role}` } : {}) });
          throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION");
        },
      };
      const refused = "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION";
      expect(await errorCode(store.updateOrganization(organization.id, { name: "Taken over" }, refuse))).toBe(refused);
      expect(await errorCode(store.deleteOrganization(organization.id, refuse))).toBe(refused);
      expect(await errorCode(store.updateMemberRole(subject.id, "member", { actor: refuse }))).toBe(refused);
      expect(await errorCode(store.deleteMember(subject.id, { keepRole: "owner", actor: refuse }))).toBe(refused);
      expect(await errorCode(store.createInvitation(anInvitation(organization.id), refuse))).toBe(refused);
      expect(await errorCode(store.answerInvitation(invitation.id, "canceled", { actor: refuse }))).toBe(refused);
      const subjectSeen = `${subject.id}:admin`;
      expect(seen).toEqual([
        { role: "owner,admin" },
        { role: "owner,admin" },
        { role: "owner,admin", subject: subjectSeen },
        { role: "owner,admin", subject: subjectSeen },
        { role: "owner,admin" },
        { role: "owner,admin" },
      ]);
      expect(await store.findOrganization(organization.id)).toEqual(organization);
      expect(await store.findMemberById(subject.id)).toEqual(subject);
      expect(await store.listInvitations(organization.id)).toEqual([invitation]);

      // Someone no longer a member is handed null; a check that passes lets every change through.
      const strangers: Array<MemberRecord | null> = [];
      expect(await errorCode(store.updateOrganization(organization.id, { name: "x" }, { userId: newId(), check: (actor) => void strangers.push(actor) }))).toBe("resolved");
      expect(strangers).toEqual([null]);
      const allow: ActorCheck = { userId: owner.userId, check() {} };
      expect((await store.updateOrganization(organization.id, { name: "Difference Engines" }, allow))!.name).toBe("Difference Engines");
      expect(await store.updateMemberRole(subject.id, "member", { actor: allow })).toEqual({ ...subject, role: "member" });
      expect(await store.answerInvitation(invitation.id, "canceled", { actor: allow })).toBe(true);
      await store.createInvitation(anInvitation(organization.id), allow);
      expect(await store.deleteMember(subject.id, { actor: allow })).toBe(true);
      expect(await store.deleteOrganization(organization.id, allow)).toBe(true);
      expect(await store.deleteOrganization(organization.id, allow)).toBe(false);
    });

    it("queues an invitation's mail in the invitation's transaction: a refused invitation or resend queues none", async () => {
      const { organization, owner } = await created();
      const far = at(10 ** 12);
      const mine = (ids: string[]) => async () => (await store.findDueInvitationMails(far, 10_000)).filter((m) => ids.includes(m.invitationId));
      const invitation = anInvitation(organization.id);
      const mail = aMail(invitation);
      await store.createInvitation(invitation, undefined, undefined, mail);
      expect(await mine([invitation.id])()).toEqual([{ ...mail, attempts: 0, leaseUntil: null }]);

      // Refused (the address is already invited, or the actor check throws): neither row is written.
      const twin = anInvitation(organization.id, { email: invitation.email });
      expect(await errorCode(store.createInvitation(twin, undefined, undefined, aMail(twin)))).toBe("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
      const refused = anInvitation(organization.id);
      const refuse: ActorCheck = {
        userId: owner.userId,
        check: () => {
          throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION");
        },
      };
      expect(await errorCode(store.createInvitation(refused, refuse, undefined, aMail(refused)))).toBe("YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION");
      expect(await store.findInvitation(refused.id)).toBeNull();
      expect(await mine([twin.id, refused.id])()).toEqual([]);

      // A resend queues its mail with the renewal; a refused one, or one of an answered invitation, none.
      const resend = aMail(invitation, { expiresAt: at(999) });
      expect(await errorCode(store.answerInvitation(invitation.id, "pending", { expiresAt: at(999), actor: refuse, mail: resend }))).toBe(
        "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
      );
      expect(await mine([invitation.id])()).toHaveLength(1);
      expect(await store.answerInvitation(invitation.id, "pending", { expiresAt: at(999), mail: resend })).toBe(true);
      expect((await mine([invitation.id])()).map((m) => m.idempotencyKey).sort()).toEqual([mail.idempotencyKey, resend.idempotencyKey].sort());
      expect(await store.answerInvitation(invitation.id, "canceled")).toBe(true);
      expect(await store.answerInvitation(invitation.id, "pending", { expiresAt: at(1999), mail: aMail(invitation, { expiresAt: at(1999) }) })).toBe(false);
      expect(await mine([invitation.id])()).toHaveLength(2);
    });

    it("leases each invitation mail to one worker, retries and deletes them", async () => {
      const { organization } = await created();
      const due = (s: number) => at(5_000_000 + s * 1000);
      const early = { ...aMail(anInvitation(organization.id)), nextAttemptAt: due(0), createdAt: due(0) };
      const late = { ...aMail(anInvitation(organization.id)), language: null, nextAttemptAt: due(5), createdAt: due(5) };
      // Stored through the invitations they belong to (the only way in).
      for (const mail of [late, early]) {
        await store.createInvitation(anInvitation(organization.id, { id: mail.invitationId }), undefined, undefined, mail);
      }
      const mine = async (now: Date) => (await store.findDueInvitationMails(now, 10_000)).map((m) => m.id).filter((id) => id === early.id || id === late.id);
      expect(await mine(due(5))).toEqual([early.id, late.id]);
      expect((await store.findDueInvitationMails(due(5), 10_000)).filter((m) => m.id === early.id || m.id === late.id).map((m) => m.language)).toEqual(["fr", null]);
      expect(await mine(due(4))).toEqual([early.id]);

      const wins = await Promise.all(Array.from({ length: 5 }, () => store.claimInvitationMail(early.id, 0, due(5), due(65))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await mine(due(10))).toEqual([late.id]);
      // A lease that ran out is taken over, at the attempt count seen.
      expect(await store.claimInvitationMail(early.id, 0, due(70), due(130))).toBe(false);
      expect(await store.claimInvitationMail(early.id, 1, due(70), due(130))).toBe(true);
      await store.retryInvitationMail(early.id, 2, due(200));
      expect((await store.findDueInvitationMails(due(200), 10_000)).find((m) => m.id === early.id)).toEqual({ ...early, attempts: 2, leaseUntil: null, nextAttemptAt: due(200) });
      await store.deleteInvitationMail(early.id);
      await store.deleteInvitationMail(late.id);
      expect(await mine(due(1000))).toEqual([]);
    });

    it("reopens an accepted invitation: its member goes and it is pending again; anything else is left as it is", async () => {
      const { organization } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      const member = aMember(organization.id);
      expect(await store.acceptInvitation(invitation.id, member)).toBe(true);
      await store.reopenInvitation(invitation.id, member.id);
      expect(await store.findInvitation(invitation.id)).toEqual(invitation);
      expect(await store.findMemberById(member.id)).toBeNull();
      // Accepted again after the reopen: the retry works.
      expect(await store.acceptInvitation(invitation.id, member)).toBe(true);
      const canceled = anInvitation(organization.id);
      await store.createInvitation(canceled);
      await store.answerInvitation(canceled.id, "canceled");
      await store.reopenInvitation(canceled.id, newId());
      expect((await store.findInvitation(canceled.id))!.status).toBe("canceled");
    });

    describe("webhook events (organization_event outbox)", () => {
      const far = new Date(Date.now() + 365 * 86_400_000);
      /** The organization's queued events as [type, data], by type (one write's events share a time); removed once read. */
      async function takeEvents(organizationId: string): Promise<Array<[string, unknown]>> {
        const mine = (await store.findDueOrganizationEvents(far, 10_000)).filter((e) => e.organizationId === organizationId);
        for (const event of mine) await store.deleteOrganizationEvent(event.id);
        return mine.map((e): [string, unknown] => [e.type, JSON.parse(e.payload)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      }
      const publicMember = (m: MemberRecord) => ({ id: m.id, organizationId: m.organizationId, userId: m.userId, role: m.role });
      const publicInvitation = (i: InvitationRecord, status = i.status) => ({
        organizationId: i.organizationId,
        email: i.email,
        role: i.role,
        status,
        inviterId: i.inviterId,
        expiresAt: i.expiresAt.toISOString(),
      });

      it("records each organization and member change with it, with its public fields", async () => {
        const { organization, owner } = await created();
        const org = { id: organization.id, name: organization.name, slug: organization.slug };
        expect(await takeEvents(organization.id)).toEqual([
          ["member.added", { member: publicMember(owner) }],
          ["organization.created", { organization: org }],
        ]);
        await store.updateOrganization(organization.id, { name: "Difference Engines" });
        expect(await takeEvents(organization.id)).toEqual([["organization.updated", { organization: { ...org, name: "Difference Engines" } }]]);
        const member = aMember(organization.id);
        await store.addMember(member);
        await store.updateMemberRole(member.id, "admin");
        await store.updateMemberRole(member.id, "admin");
        expect(await takeEvents(organization.id)).toEqual([
          ["member.added", { member: publicMember(member) }],
          ["member.updated", { member: publicMember({ ...member, role: "admin" }), previousRole: "member" }],
        ]);
        await store.deleteMember(member.id);
        expect(await store.deleteMember(member.id)).toBe(false);
        expect(await takeEvents(organization.id)).toEqual([["member.removed", { member: publicMember({ ...member, role: "admin" }) }]]);
        const stays = aMember(organization.id);
        await store.addMember(stays);
        await takeEvents(organization.id);
        await store.deleteOrganization(organization.id);
        const removal = await takeEvents(organization.id);
        expect(removal).toHaveLength(3);
        expect(removal).toEqual(
          expect.arrayContaining([
            ["member.removed", { member: publicMember(owner) }],
            ["member.removed", { member: publicMember(stays) }],
            ["organization.deleted", { organization: { ...org, name: "Difference Engines" } }],
          ]),
        );
      });

      it("records invitations without their id; a refused change records nothing", async () => {
        const { organization } = await created();
        await takeEvents(organization.id);
        const invitation = anInvitation(organization.id);
        await store.createInvitation(invitation);
        await expect(store.createInvitation(anInvitation(organization.id, { email: invitation.email }))).rejects.toThrow();
        const member = aMember(organization.id);
        await store.acceptInvitation(invitation.id, member);
        expect(await store.acceptInvitation(invitation.id, aMember(organization.id))).toBe(false);
        const events = await takeEvents(organization.id);
        expect(events).toEqual([
          ["invitation.accepted", { invitation: publicInvitation(invitation, "accepted"), member: publicMember(member) }],
          ["invitation.created", { invitation: publicInvitation(invitation) }],
          ["member.added", { member: publicMember(member) }],
        ]);
        expect(JSON.stringify(events)).not.toContain(invitation.id);
        const rejected = anInvitation(organization.id);
        const canceled = anInvitation(organization.id);
        await store.createInvitation(rejected);
        await store.createInvitation(canceled);
        await takeEvents(organization.id);
        await store.answerInvitation(rejected.id, "rejected");
        await store.answerInvitation(canceled.id, "canceled");
        expect(await store.answerInvitation(canceled.id, "canceled")).toBe(false);
        expect(await takeEvents(organization.id)).toEqual([
          ["invitation.canceled", { invitation: publicInvitation(canceled, "canceled") }],
          ["invitation.rejected", { invitation: publicInvitation(rejected, "rejected") }],
        ]);
        // A resend: still pending, with its new expiry and inviter.
        const resent = anInvitation(organization.id);
        await store.createInvitation(resent);
        await takeEvents(organization.id);
        const inviterId = newId();
        await store.answerInvitation(resent.id, "pending", { expiresAt: at(86_400_000), inviterId });
        expect(await takeEvents(organization.id)).toEqual([
          ["invitation.resent", { invitation: { ...publicInvitation(resent), inviterId, expiresAt: at(86_400_000).toISOString() } }],
        ]);
      });

      it("a deleted user's removals: member.removed, the successor's member.updated, a last member's organization.deleted, their invitations canceled", async () => {
        const userId = newId();
        const { organization: shared, owner } = await created({}, userId);
        const admin = aMember(shared.id, { role: "admin", createdAt: at(1) });
        await store.addMember(admin);
        const { organization: alone } = await created({}, userId);
        const sent = anInvitation(shared.id, { inviterId: userId });
        await store.createInvitation(sent);
        await takeEvents(shared.id);
        await takeEvents(alone.id);
        await store.removeUser(userId, "owner", "admin");
        expect(await takeEvents(shared.id)).toEqual([
          ["invitation.canceled", { invitation: publicInvitation(sent, "canceled") }],
          ["member.removed", { member: publicMember(owner) }],
          ["member.updated", { member: publicMember({ ...admin, role: "owner" }), previousRole: "admin" }],
        ]);
        expect((await takeEvents(alone.id)).map(([type]) => type)).toEqual(["member.removed", "organization.deleted"]);
      });

      it("records each team change and each team place given or taken; a repeat or a same-name rename records nothing", async () => {
        const { organization, owner } = await created();
        await takeEvents(organization.id);
        const team = aTeam(organization.id);
        await store.createTeam(team, 0);
        const publicTeam = { id: team.id, organizationId: organization.id, name: team.name };
        expect(await takeEvents(organization.id)).toEqual([["team.created", { team: publicTeam }]]);
        await store.renameTeam(team.id, "Analytical", at(5));
        await store.renameTeam(team.id, "Analytical", at(6));
        expect(await takeEvents(organization.id)).toEqual([["team.updated", { team: { ...publicTeam, name: "Analytical" } }]]);
        const place = aPlace(team, owner.userId);
        await store.addTeamMember(place, 0);
        await store.addTeamMember(aPlace(team, owner.userId), 0);
        const teamMember = { teamId: team.id, organizationId: organization.id, userId: owner.userId };
        expect(await takeEvents(organization.id)).toEqual([["team_member.added", { teamMember }]]);
        await store.removeTeamMember(team.id, owner.userId);
        expect(await store.removeTeamMember(team.id, owner.userId)).toBe(false);
        expect(await takeEvents(organization.id)).toEqual([["team_member.removed", { teamMember }]]);
        await store.deleteTeam(team.id);
        expect(await store.deleteTeam(team.id)).toBe(false);
        expect(await takeEvents(organization.id)).toEqual([["team.deleted", { team: { ...publicTeam, name: "Analytical" } }]]);
      });

      it("leases each event to one deliverer, retries and deletes it", async () => {
        const { organization } = await created();
        const [event] = (await store.findDueOrganizationEvents(far, 10_000)).filter((e) => e.organizationId === organization.id && e.type === "organization.created");
        const now = new Date();
        const later = (ms: number) => new Date(now.getTime() + ms);
        const wins = await Promise.all(Array.from({ length: 5 }, () => store.claimOrganizationEvent(event!.id, 0, now, later(60_000))));
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect((await store.findDueOrganizationEvents(later(1_000), 10_000)).some((e) => e.id === event!.id)).toBe(false);
        await store.retryOrganizationEvent(event!.id, 1, later(100_000));
        expect((await store.findDueOrganizationEvents(later(50_000), 10_000)).some((e) => e.id === event!.id)).toBe(false);
        expect((await store.findDueOrganizationEvents(later(100_000), 10_000)).find((e) => e.id === event!.id)).toMatchObject({ attempts: 1, leaseUntil: null });
        await store.deleteOrganizationEvent(event!.id);
        expect((await store.findDueOrganizationEvents(far, 10_000)).some((e) => e.id === event!.id)).toBe(false);
        await takeEvents(organization.id);
      });
    });

    describe("races: ten concurrent attempts, exactly the allowed outcome", () => {
      const attempts = 10;

      it("creates: a creator limited to 3 organizations who has 1 gets exactly 2 more", async () => {
        const userId = newId();
        await created({}, userId);
        const results = await Promise.allSettled(
          Array.from({ length: attempts }, () => {
            const organization = anOrganization();
            return store.createOrganization(organization, aMember(organization.id, { userId, role: "owner" }), 3);
          }),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
        expect(await store.countMemberships(userId)).toBe(3);
      });

      it("owners leaving and demoting each other leave exactly one owner", async () => {
        const { organization, owner } = await created();
        const owners = [owner];
        for (let i = 1; i < attempts; i++) {
          const member = aMember(organization.id, { role: "owner", createdAt: at(i) });
          await store.addMember(member);
          owners.push(member);
        }
        const results = await Promise.allSettled(
          owners.map((m, i) => (i % 2 ? store.deleteMember(m.id, { keepRole: "owner" }) : store.updateMemberRole(m.id, "member", { keepRole: "owner" }))),
        );
        expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
        const { members } = await store.listMembers(organization.id, { limit: 100, offset: 0 });
        expect(members.filter((m) => m.role === "owner")).toHaveLength(1);
      });

      it("an owner demoted while deleting the organization: the demotion and the deletion never both happen", async () => {
        // Owner-only deletion, checked by the store; a second owner demotes the first at the same time.
        const ownerOnly = (userId: string): ActorCheck => ({
          userId,
          check(actor) {
            if (actor?.role !== "owner") throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION");
          },
        });
        for (let i = 0; i < attempts; i++) {
          const { organization, owner } = await created();
          await store.addMember(aMember(organization.id, { role: "owner" }));
          const demote = () => store.updateMemberRole(owner.id, "member", { keepRole: "owner" });
          const remove = () => store.deleteOrganization(organization.id, ownerOnly(owner.userId));
          // Each order of starting them, in turn.
          const removing = i % 2 ? null : remove();
          const demoting = demote();
          const [demoted, deleted] = await Promise.allSettled([demoting, removing ?? remove()]);
          const wasDemoted = demoted!.status === "fulfilled" && demoted!.value !== null;
          const wasDeleted = deleted!.status === "fulfilled" && deleted!.value === true;
          expect(wasDemoted && wasDeleted, `round ${i}: ${JSON.stringify([demoted, deleted])}`).toBe(false);
          expect(wasDemoted || wasDeleted).toBe(true);
          if (wasDemoted) expect(await store.findOrganization(organization.id)).not.toBeNull();
        }
      });

      it("invitations of many addresses at once do not pass the limit", async () => {
        const { organization } = await created();
        const results = await Promise.allSettled(Array.from({ length: attempts }, () => store.createInvitation(anInvitation(organization.id), undefined, 2)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("INVITATION_LIMIT_REACHED");
        expect(await store.listInvitations(organization.id, true)).toHaveLength(2);
      });

      it("invitations of one address leave exactly one pending", async () => {
        const { organization } = await created();
        const email = `${newId()}@example.com`;
        const results = await Promise.allSettled(Array.from({ length: attempts }, () => store.createInvitation(anInvitation(organization.id, { email }))));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
        expect((await store.listInvitations(organization.id, true)).filter((i) => i.email === email)).toHaveLength(1);
      });
    });

    describe("teams", () => {
      async function teamOf(organizationId: string, overrides: Partial<TeamRecord> = {}) {
        const team = aTeam(organizationId, overrides);
        await store.createTeam(team, 0);
        return team;
      }

      it("creates, finds, lists, renames and deletes teams, every field intact", async () => {
        const { organization } = await created();
        const first = await teamOf(organization.id, { name: "Engines", createdAt: at(1) });
        const second = await teamOf(organization.id, { name: "Looms", createdAt: at(2) });
        expect(await store.findTeam(first.id)).toEqual(first);
        expect(await store.findTeamByName(organization.id, "Looms")).toEqual(second);
        expect(await store.findTeamByName(organization.id, "looms")).toBeNull();
        expect(await store.findTeamByName((await created()).organization.id, "Looms")).toBeNull();
        expect(await store.listTeams(organization.id)).toEqual([first, second]);
        expect(await store.countTeams(organization.id)).toBe(2);
        const renamed = await store.renameTeam(first.id, "Mills", at(5));
        expect(renamed).toEqual({ ...first, name: "Mills", updatedAt: at(5) });
        expect(await store.findTeam(first.id)).toEqual(renamed);
        expect(await store.renameTeam(newId(), "x", at(5))).toBeNull();
        expect(await store.deleteTeam(second.id)).toBe(true);
        expect(await store.deleteTeam(second.id)).toBe(false);
        expect(await store.listTeams(organization.id)).toEqual([renamed]);
      });

      it("refuses a second team of one name in an organization, on create and on rename; other organizations may have it", async () => {
        const { organization } = await created();
        const team = await teamOf(organization.id, { name: "Engines" });
        expect(await errorCode(store.createTeam(aTeam(organization.id, { name: "Engines" }), 0))).toBe("TEAM_ALREADY_EXISTS");
        const other = await teamOf(organization.id, { name: "Looms" });
        expect(await errorCode(store.renameTeam(other.id, "Engines", at(1)))).toBe("TEAM_ALREADY_EXISTS");
        expect(await store.renameTeam(team.id, "Engines", at(1))).toMatchObject({ name: "Engines" });
        await teamOf((await created()).organization.id, { name: "Engines" });
      });

      it("keeps the teams limit, also under concurrent creates", async () => {
        const { organization } = await created();
        const results = await Promise.allSettled(Array.from({ length: 6 }, () => store.createTeam(aTeam(organization.id), 2)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
        for (const r of results) if (r.status === "rejected") expect((r.reason as AuthError).code).toBe("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS");
        expect(await store.countTeams(organization.id)).toBe(2);
      });

      it("gives members places in teams once, refusing non-members, other organizations' teams and full teams", async () => {
        const { organization, owner } = await created();
        const member = aMember(organization.id, { createdAt: at(1) });
        await store.addMember(member);
        const team = await teamOf(organization.id);
        const place = aPlace(team, owner.userId);
        expect(await store.addTeamMember(place, 2)).toEqual(place);
        expect(await store.addTeamMember(aPlace(team, owner.userId), 2)).toEqual(place);
        expect(await errorCode(store.addTeamMember(aPlace(team, newId()), 2))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
        const { organization: elsewhere } = await created();
        expect(await errorCode(store.addTeamMember({ ...aPlace(team, owner.userId), organizationId: elsewhere.id }, 0))).toBe("TEAM_NOT_FOUND");
        expect(await errorCode(store.addTeamMember(aPlace(aTeam(organization.id), owner.userId), 0))).toBe("TEAM_NOT_FOUND");
        const second = aPlace(team, member.userId, { createdAt: at(2) });
        await store.addTeamMember(second, 2);
        const third = aMember(organization.id);
        await store.addMember(third);
        expect(await errorCode(store.addTeamMember(aPlace(team, third.userId), 2))).toBe("TEAM_MEMBER_LIMIT_REACHED");
        expect(await store.listTeamMembers(team.id)).toEqual([place, second]);
        expect(await store.findTeamMember(team.id, member.userId)).toEqual(second);
        expect(await store.listTeamPlacesOfUser(organization.id, member.userId)).toEqual([second]);
        expect(await store.listTeamsOfUser(member.userId)).toEqual([team]);
        expect(await store.listTeamsOfUser(member.userId, elsewhere.id)).toEqual([]);
        expect(await store.removeTeamMember(team.id, member.userId)).toBe(true);
        expect(await store.removeTeamMember(team.id, member.userId)).toBe(false);
        expect(await store.findTeamMember(team.id, member.userId)).toBeNull();
      });

      it("concurrent places in one team do not pass the limit", async () => {
        const { organization } = await created();
        const team = await teamOf(organization.id);
        const users = Array.from({ length: 6 }, () => aMember(organization.id));
        for (const m of users) await store.addMember(m);
        const results = await Promise.allSettled(users.map((m) => store.addTeamMember(aPlace(team, m.userId), 3)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
        expect(await store.listTeamMembers(team.id)).toHaveLength(3);
      });

      it("a member's removal, the user's deletion and the organization's deletion take their places (and teams) with them", async () => {
        const { organization, owner } = await created();
        const member = aMember(organization.id);
        await store.addMember(member);
        const team = await teamOf(organization.id);
        const other = await teamOf(organization.id);
        for (const t of [team, other]) {
          await store.addTeamMember(aPlace(t, owner.userId), 0);
          await store.addTeamMember(aPlace(t, member.userId), 0);
        }
        expect(await store.deleteMember(member.id)).toBe(true);
        expect(await store.listTeamPlacesOfUser(organization.id, member.userId)).toEqual([]);
        expect((await store.listTeamMembers(team.id)).map((p) => p.userId)).toEqual([owner.userId]);
        // Deleting a team takes its places only.
        expect(await store.deleteTeam(other.id)).toBe(true);
        expect(await store.listTeamsOfUser(owner.userId)).toEqual([team]);
        // The last member's deletion deletes the organization with its teams.
        await store.removeUser(owner.userId, "owner", "admin");
        expect(await store.findOrganization(organization.id)).toBeNull();
        expect(await store.findTeam(team.id)).toBeNull();
        expect(await store.listTeamMembers(team.id)).toEqual([]);
        // And deleteOrganization does the same.
        const { organization: second, owner: secondOwner } = await created();
        const kept = await teamOf(second.id);
        await store.addTeamMember(aPlace(kept, secondOwner.userId), 0);
        expect(await store.deleteOrganization(second.id)).toBe(true);
        expect(await store.findTeam(kept.id)).toBeNull();
        expect(await store.listTeamsOfUser(secondOwner.userId)).toEqual([]);
      });

      it("a user deleted from one of several organizations keeps no place anywhere, the others' teams stay", async () => {
        const { organization, owner } = await created();
        const leaving = aMember(organization.id);
        await store.addMember(leaving);
        const team = await teamOf(organization.id);
        await store.addTeamMember(aPlace(team, leaving.userId), 0);
        await store.addTeamMember(aPlace(team, owner.userId), 0);
        await store.removeUser(leaving.userId, "owner", "admin");
        expect(await store.listTeamsOfUser(leaving.userId)).toEqual([]);
        expect((await store.listTeamMembers(team.id)).map((p) => p.userId)).toEqual([owner.userId]);
      });

      it("a place given while the member is removed is never left behind", async () => {
        for (let i = 0; i < 5; i++) {
          const { organization } = await created();
          const member = aMember(organization.id);
          await store.addMember(member);
          const team = await teamOf(organization.id);
          await Promise.allSettled([store.addTeamMember(aPlace(team, member.userId), 0), store.deleteMember(member.id)]);
          expect(await store.findMember(organization.id, member.userId)).toBeNull();
          expect(await store.findTeamMember(team.id, member.userId)).toBeNull();
        }
      });

      it("checks the actor under the organization's lock for every team change", async () => {
        const { organization, owner } = await created();
        const refuse: ActorCheck = {
          userId: owner.userId,
          check() {
            throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
          },
        };
        const team = await teamOf(organization.id);
        await store.addTeamMember(aPlace(team, owner.userId), 0);
        expect(await errorCode(store.createTeam(aTeam(organization.id), 0, refuse))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
        expect(await errorCode(store.renameTeam(team.id, "x", at(1), refuse))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
        expect(await errorCode(store.deleteTeam(team.id, refuse))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
        expect(await errorCode(store.removeTeamMember(team.id, owner.userId, refuse))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
        expect(await errorCode(store.addTeamMember(aPlace(team, newId()), 0, refuse))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
        expect(await store.listTeams(organization.id)).toEqual([team]);
        expect(await store.listTeamMembers(team.id)).toHaveLength(1);
      });
    });
  });
}
