/**
 * Importing a better-auth 1.7 app with its organization plugin (teams on), through the command and the
 * running platform: after the import the owner and a member sign in with their old passwords and see the
 * organization with their roles, the owner's old cookie sees it too, and the address invited before the
 * move signs up here and accepts the imported invitation. A rerun doubles nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importBetterAuth, type ImportSummary } from "../../deploy/import-better-auth/run.js";
import { betterAuthOrganizationSource, betterAuthSqliteSource, type SourceUser } from "../../testing/better-auth-source.js";
import { usePlatform } from "../../testing/use-platform.js";

const OLD_SECRET = "the-old-org-apps-better-auth-secret-0123456789";
const platform = usePlatform({ env: { GATEWAY_IMPORTED_COOKIE_SECRET: OLD_SECRET } });

const dir = mkdtempSync(join(tmpdir(), "better-auth-org-source-"));
const file = join(dir, "old.db");
const INVITEE = "grace@example.com";
let owner: SourceUser;
let member: SourceUser;
let organizationId: string;
let teamId: string;
let invitationId: string;

const runImport = (extra: { dryRun?: boolean } = {}) => importBetterAuth({ from: file, env: platform.env, secrets: { secret: OLD_SECRET }, batchSize: 1, ...extra });
const byKind = (summary: ImportSummary) => Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));

beforeAll(async () => {
  const source = await betterAuthSqliteSource(file, OLD_SECRET, { organization: true });
  owner = await source.signUp("olga@example.com", "olgas-old-password", "Olga", "olga");
  member = await source.signUp("max@example.com", "maxs-old-password", "Max", "max");
  const headers = new Headers({ cookie: owner.cookie });
  const organization = await source.api.createOrganization({ body: { name: "Old Org", slug: "old-org" }, headers });
  organizationId = organization.id;
  await source.api.addMember({ body: { userId: member.id, role: "member", organizationId } });
  const team = await source.api.createTeam({ body: { name: "Builders", organizationId }, headers });
  teamId = team.id;
  await source.api.addTeamMember({ body: { teamId, userId: member.id }, headers });
  invitationId = (await source.api.createInvitation({ body: { email: INVITEE, role: "admin", organizationId }, headers })).id;
  source.close();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("import from better-auth with organizations", () => {
  it("a dry run counts the organization plugin's rows", async () => {
    const kinds = byKind(await runImport({ dryRun: true }));
    expect(kinds.organizations).toMatchObject({ read: 1, written: 1 });
    expect(kinds.members).toMatchObject({ read: 2, written: 2 });
    expect(kinds.teams).toMatchObject({ read: 2 });
    expect(kinds["team members"]).toMatchObject({ read: 2 });
    expect(kinds.invitations).toMatchObject({ read: 1, written: 1 });
  });

  it("imports organizations, teams, members and invitations", async () => {
    const kinds = byKind(await runImport());
    expect(kinds.organizations).toMatchObject({ read: 1, written: 1, skipped: {} });
    // better-auth 1.7 makes a default team (with the owner in it) with each organization.
    expect(kinds.teams).toMatchObject({ read: 2, written: 2, skipped: {} });
    expect(kinds.members).toMatchObject({ read: 2, written: 2, skipped: {} });
    // The owner in the default team, the member in Builders.
    expect(kinds["team members"]).toMatchObject({ read: 2, written: 2, skipped: {} });
    expect(kinds.invitations).toMatchObject({ read: 1, written: 1, skipped: {} });
  });

  it("the member and the owner sign in with their old passwords and see the organization with their roles", async () => {
    for (const [user, role] of [
      [member, "member"],
      [owner, "owner"],
    ] as const) {
      const client = platform.client();
      expect((await client.post("/sign-in/email", { email: user.email, password: user.password })).status).toBe(200);
      expect((await client.get("/organization/list")).body).toMatchObject([{ id: organizationId, name: "Old Org", slug: "old-org" }]);
      expect((await client.get(`/organization/get-active-member-role?organizationId=${organizationId}`)).body).toEqual({ role });
    }
    const teams = await platform.client().get("/organization/list-user-teams", { cookie: member.cookie });
    expect(teams.body).toMatchObject([{ id: teamId, name: "Builders" }]);
  });

  it("the owner's old cookie sees the organization", async () => {
    const res = await platform.client().get("/organization/list", { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([{ id: organizationId }]);
  });

  it("the invited address signs up and accepts the imported invitation", async () => {
    const invitee = platform.client();
    expect((await invitee.post("/sign-up/email", { name: "Grace", email: INVITEE, password: "graces-new-password" })).status).toBe(200);
    const accepted = await invitee.post("/organization/accept-invitation", { invitationId });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ member: { organizationId, role: "admin" } });
    expect((await invitee.get(`/organization/get-active-member-role?organizationId=${organizationId}`)).body).toEqual({ role: "admin" });
  });

  it("running it again doubles nothing", async () => {
    const kinds = byKind(await runImport());
    expect(kinds.members).toMatchObject({ read: 2, written: 2 });
    expect(kinds.invitations!.skipped).toEqual({ "invitation: accepted here since an earlier import: kept as it is": 1 });
    const client = platform.client();
    await client.post("/sign-in/email", { email: owner.email, password: owner.password });
    expect((await client.get("/organization/list")).body).toHaveLength(1);
    const members = await client.get(`/organization/list-members?organizationId=${organizationId}`);
    expect(members.body.members.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "member", "owner"]);
    expect((await client.get(`/organization/list-team-members?teamId=${teamId}`)).body).toHaveLength(1);
  });

  it("a source with half the organization plugin's tables is refused, naming them", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const half = join(dir, "half.db");
    const copy = new DatabaseSync(file);
    copy.exec(`vacuum into '${half}'`);
    copy.close();
    const db = new DatabaseSync(half);
    db.exec('drop table "invitation"; drop table "teamMember"');
    db.close();
    await expect(importBetterAuth({ from: half, env: platform.env, secrets: { secret: OLD_SECRET } })).rejects.toThrow(
      /the organization plugin's tables are half there: "invitation" missing/,
    );
  });

  it("a better-auth 1.1 source (no teams, no custom roles) imports its organization too", async () => {
    const old = await betterAuthOrganizationSource("1.1");
    try {
      const kinds = byKind(await importBetterAuth({ from: old.file, env: platform.env, secrets: { secret: OLD_SECRET } }));
      expect(Object.keys(kinds)).not.toContain("teams");
      expect(kinds.organizations).toMatchObject({ read: 1, written: 1, skipped: {} });
      expect(kinds.members).toMatchObject({ read: 3, written: 3, skipped: {} });
      expect(kinds.invitations).toMatchObject({ read: 2, written: 2, skipped: {} });
      const client = platform.client();
      expect((await client.post("/sign-in/email", { email: old.users.admin.email, password: old.password })).status).toBe(200);
      expect((await client.get(`/organization/get-active-member-role?organizationId=${old.organizationId}`)).body).toEqual({ role: "admin,member" });
    } finally {
      old.close();
    }
  });
});
