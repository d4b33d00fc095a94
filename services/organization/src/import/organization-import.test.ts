/**
 * The import of better-auth's organization rows, from databases better-auth 1.7 and 1.1 made themselves,
 * into the organization store on SQLite and on PostgreSQL (when TEST_DATABASE_URL is set): what the
 * service then reads, reruns, changed rows, rows that cannot be kept, and no webhook event or mail.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../../../testing/databases.js";
import { type BetterAuthOrganizationSource, betterAuthOrganizationSource } from "../../../../testing/better-auth-source.js";
import { openOrganizationStore } from "../store/mikro-organization-store.js";
import type { OrganizationStore } from "../store/organization-store.js";
import { importOrganizationRows, type OrganizationImportStore, openOrganizationImportStore } from "./organization-import.js";

const FAR_FUTURE = new Date(Date.UTC(9999, 0, 1));

function importSuite(dialect: "sqlite" | "default") {
  let db: TestDatabase;
  let target: OrganizationImportStore;
  let store: OrganizationStore;
  let v17: BetterAuthOrganizationSource;
  let v11: BetterAuthOrganizationSource;

  beforeAll(async () => {
    [v17, v11] = await Promise.all([betterAuthOrganizationSource("1.7"), betterAuthOrganizationSource("1.1")]);
    db = await createTestDatabase("organization_import", dialect);
    target = await openOrganizationImportStore(db.url);
    store = await openOrganizationStore(db.url);
  });
  afterAll(async () => {
    await store?.close();
    await target?.close();
    await db?.drop();
    v17?.close();
    v11?.close();
  });

  it("keeps better-auth 1.7's organization, members and roles, teams, invitations and custom role, with their ids", async () => {
    const report = await importOrganizationRows(target, v17.rows);
    expect(report.skipped).toEqual([]);
    expect(report.counts).toEqual({
      organization: { created: 1, updated: 0, skipped: 0 },
      member: { created: 3, updated: 0, skipped: 0 },
      // The organization's default team and one more.
      team: { created: 2, updated: 0, skipped: 0 },
      teamMember: { created: 2, updated: 0, skipped: 0 },
      invitation: { created: 2, updated: 0, skipped: 0 },
      role: { created: 1, updated: 0, skipped: 0 },
    });
    expect(report.notes.map((n) => n.note).sort()).toEqual([
      "metadata values that are not strings are kept as their JSON text",
      "permissions the platform does not know were dropped: project:read",
    ]);

    const { owner, admin, member } = v17.users;
    const organization = await store.findOrganization(v17.organizationId);
    expect(organization).toMatchObject({ name: "Analytical Engines", slug: "engines-17", logo: null, metadata: { plan: "pro", seats: "12" } });
    expect(await store.findOrganizationBySlug("engines-17")).toMatchObject({ id: v17.organizationId });
    const members = (await store.listMembers(v17.organizationId, { limit: 10, offset: 0 })).members;
    expect(Object.fromEntries(members.map((m) => [m.userId, m.role]))).toEqual({ [owner.id]: "owner", [admin.id]: "admin,member", [member.id]: "member" });
    expect(members.map((m) => m.id).sort()).toEqual(v17.rows.members!.map((m) => m.id).sort());

    const teams = await store.listTeams(v17.organizationId);
    expect(teams.map((t) => t.name).sort()).toEqual(["Analytical Engines", "Difference"]);
    const difference = teams.find((t) => t.name === "Difference")!;
    expect((await store.listTeamMembers(difference.id)).map((p) => p.userId)).toEqual([member.id]);
    expect((await store.listTeamsOfUser(owner.id)).map((t) => t.name)).toEqual(["Analytical Engines"]);

    const pending = await store.findInvitation(v17.invitee.invitationId);
    expect(pending).toMatchObject({ email: "invitee-17@example.com", role: "member", status: "pending", inviterId: owner.id, organizationId: v17.organizationId });
    expect(pending!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await store.listPendingInvitationsTo("invitee-17@example.com")).toHaveLength(1);
    expect((await store.listInvitations(v17.organizationId)).map((i) => i.status).sort()).toEqual(["canceled", "pending"]);

    const roles = await store.listRoles(v17.organizationId);
    expect(roles).toEqual([expect.objectContaining({ id: v17.rows.roles![0]!.id, name: "auditor", permissions: { member: ["update"] } })]);

    // Nothing is news: no webhook event, no invitation mail.
    expect(await store.findDueOrganizationEvents(FAR_FUTURE, 100)).toEqual([]);
    expect(await store.findDueInvitationMails(FAR_FUTURE, 100)).toEqual([]);
  });

  it("a rerun doubles nothing, and a row changed in the source is changed here", async () => {
    v17.run(`update "member" set "role" = 'admin' where "userId" = ?`, v17.users.member.id);
    v17.run(`update "organization" set "name" = 'Difference Engines' where "id" = ?`, v17.organizationId);
    const report = await importOrganizationRows(target, v17.read());
    expect(report.skipped).toEqual([]);
    expect(report.counts).toEqual({
      organization: { created: 0, updated: 1, skipped: 0 },
      member: { created: 0, updated: 3, skipped: 0 },
      team: { created: 0, updated: 2, skipped: 0 },
      teamMember: { created: 0, updated: 2, skipped: 0 },
      invitation: { created: 0, updated: 2, skipped: 0 },
      role: { created: 0, updated: 1, skipped: 0 },
    });
    expect((await store.findMember(v17.organizationId, v17.users.member.id))?.role).toBe("admin");
    expect((await store.findOrganization(v17.organizationId))?.name).toBe("Difference Engines");
    expect((await store.listMembers(v17.organizationId, { limit: 10, offset: 0 })).total).toBe(3);
    expect(await store.listTeams(v17.organizationId)).toHaveLength(2);
    expect(await store.listInvitations(v17.organizationId)).toHaveLength(2);
    expect(await store.findDueOrganizationEvents(FAR_FUTURE, 100)).toEqual([]);
  });

  it("keeps better-auth 1.1's rows, sent in batches that refer to earlier ones", async () => {
    const first = await importOrganizationRows(target, { organizations: v11.rows.organizations });
    expect(first.counts.organization).toEqual({ created: 1, updated: 0, skipped: 0 });
    const second = await importOrganizationRows(target, { members: v11.rows.members, invitations: v11.rows.invitations });
    expect(second.skipped).toEqual([]);
    expect(second.counts.member.created).toBe(3);
    expect((await store.findMember(v11.organizationId, v11.users.admin.id))?.role).toBe("admin,member");
    // 1.1 kept the address as typed and no createdAt: lower-cased, dated better-auth's 48 hours before expiry.
    const pending = await store.findInvitation(v11.invitee.invitationId);
    expect(pending).toMatchObject({ email: "invitee-11@example.com", status: "pending" });
    expect(pending!.expiresAt.getTime() - pending!.createdAt.getTime()).toBe(48 * 3600 * 1000);
  });

  it("skips what cannot be kept and says why; the rest of the batch is written", async () => {
    const organizationId = v17.organizationId;
    const at = "2025-01-02 03:04:05";
    const report = await importOrganizationRows(target, {
      organizations: [
        { id: "org-taken-slug", name: "Copy", slug: "ENGINES-17", createdAt: at },
        { id: "org-no-slug", name: "Nameless", slug: null, createdAt: at },
        { id: "org-ok", name: "Babbage & Co", slug: "babbage", createdAt: 1_735_787_045, metadata: "[1,2]" },
      ],
      members: [
        { id: "m-unknown-org", organizationId: "nowhere", userId: "u1", role: "member", createdAt: at },
        { id: "m-second", organizationId, userId: v17.users.owner.id, role: "member", createdAt: at },
        { id: "m-ok", organizationId: "org-ok", userId: "u-not-in-identity-yet", role: " owner , admin ", teamId: null, createdAt: at },
      ],
      teamMembers: [{ id: "tm-not-member", teamId: v17.rows.teams![0]!.id, userId: "u-stranger", createdAt: at }],
      invitations: [{ id: "i-expired-status", organizationId, email: "x@example.com", role: "member", status: "expired", inviterId: v17.users.owner.id, expiresAt: at }],
      roles: [
        { id: "r-owner", organizationId, role: "Owner", permission: "{}", createdAt: at },
        { id: "r-dup", organizationId, role: "auditor", permission: '{"member":["update"]}', createdAt: at },
      ],
    });
    expect(Object.fromEntries(report.skipped.map((s) => [s.id, s.reason]))).toEqual({
      "org-taken-slug": `slug engines-17 belongs to organization ${organizationId}`,
      "org-no-slug": "slug must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
      "m-unknown-org": "organization nowhere is neither in this batch nor imported before",
      "m-second": `user ${v17.users.owner.id} is a member of organization ${organizationId} already, as member ${v17.rows.members!.find((m) => m.userId === v17.users.owner.id)!.id}`,
      "tm-not-member": `user u-stranger is not a member of the team's organization ${organizationId}`,
      "i-expired-status": 'status "expired" is not pending, accepted, rejected or canceled',
      "r-owner": "owner is a configured role (ORGANIZATION_ROLES), which a custom role cannot redefine",
      "r-dup": `role ${v17.rows.roles![0]!.id} of organization ${organizationId} has the name auditor`,
    });
    expect(report.notes).toEqual([{ kind: "organization", id: "org-ok", note: "metadata is not a JSON object: dropped" }]);
    // A member of a user identity does not have (yet) is kept: users are identity's, imported on their own.
    expect(await store.findMemberById("m-ok")).toMatchObject({ organizationId: "org-ok", role: "owner,admin" });
    expect((await store.findOrganization("org-ok"))?.createdAt.toISOString()).toBe("2025-01-02T03:04:05.000Z");
    expect(await store.findOrganization("org-taken-slug")).toBeNull();
  });

  it("a place in a team carried by a member row (the versions before the teamMember table) is kept once", async () => {
    const team = (await store.listTeams(v17.organizationId)).find((t) => t.name === "Difference")!;
    const row = { id: "m-with-team", organizationId: v17.organizationId, userId: "u-team", role: "member", teamId: team.id, createdAt: new Date() };
    for (const expected of [
      { created: 1, updated: 0 },
      { created: 0, updated: 1 },
    ]) {
      const report = await importOrganizationRows(target, { members: [row] });
      expect(report.skipped).toEqual([]);
      expect(report.counts.teamMember).toEqual({ ...expected, skipped: 0 });
    }
    expect((await store.listTeamMembers(team.id)).map((p) => p.userId).sort()).toEqual([v17.users.member.id, "u-team"].sort());
  });

  it("a teamMember row without createdAt is dated at its first import, and a rerun keeps that date", async () => {
    const team = (await store.listTeams(v17.organizationId)).find((t) => t.name === "Difference")!;
    const row = { id: "tm-undated", teamId: team.id, userId: v17.users.admin.id, createdAt: null };
    await importOrganizationRows(target, { teamMembers: [row] }, new Date("2026-01-01T00:00:00Z"));
    await importOrganizationRows(target, { teamMembers: [row] }, new Date("2026-06-01T00:00:00Z"));
    expect((await store.findTeamMember(team.id, v17.users.admin.id))?.createdAt.toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });
}

describe("better-auth organization import (sqlite)", () => importSuite("sqlite"));
describe.skipIf(!TEST_DATABASE_URL)("better-auth organization import (postgresql)", () => importSuite("default"));
