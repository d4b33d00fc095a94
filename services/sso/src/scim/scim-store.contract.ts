/** The ScimStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterAll, beforeAll, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { ScimGroupRow, ScimStore, ScimUserRow } from "./ports.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

function aUser(organizationId: string, overrides: Partial<ScimUserRow> = {}): ScimUserRow {
  const id = newId();
  return {
    organizationId,
    userId: id,
    userName: `${id}@Corp.example`,
    email: `${id.toLowerCase()}@corp.example`,
    active: true,
    deleted: false,
    applied: null,
    createdAt: at(0),
    updatedAt: at(0),
    revision: 1,
    ...overrides,
  };
}

export function scimStoreContract(_backend: string, open: () => Promise<ScimStore & { close(): Promise<void> }>): void {
  let store: ScimStore & { close(): Promise<void> };
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store.close();
  });

  it("finds a token by its digest, lists an organization's own, and deletes only there", async () => {
    const org = newId();
    const token = { id: newId(), organizationId: org, name: "Okta", prefix: "scim_AbCd", tokenHash: newId() + newId(), createdBy: "u", createdAt: at(0) };
    await store.insertToken(token);
    expect(await store.findTokenByHash(token.tokenHash)).toEqual({ ...token, lastUsedAt: undefined });
    await store.touchToken(token.id, at(5));
    expect((await store.listTokens(org))[0]!.lastUsedAt).toEqual(at(5));
    expect(await store.countTokens(org)).toBe(1);
    expect(await store.deleteToken(newId(), token.id)).toBe(false);
    expect(await store.deleteToken(org, token.id)).toBe(true);
    expect(await store.findTokenByHash(token.tokenHash)).toBeUndefined();
  });

  it("keeps userName unique without case and externalId exactly, per organization", async () => {
    const org = newId();
    const ada = aUser(org, { userName: "Ada@corp.example", externalId: "X1" });
    expect(await store.putNewUser(ada)).toEqual(ada);
    expect(await store.putNewUser(aUser(org, { userName: "ada@CORP.example" }))).toBeUndefined();
    expect(await store.putNewUser(aUser(org, { externalId: "X1" }))).toBeUndefined();
    expect(await store.putNewUser(aUser(org, { externalId: "x1" }))).toBeDefined();
    expect(await store.putNewUser(aUser(newId(), { userName: "Ada@corp.example", externalId: "X1" }))).toBeDefined();
    expect((await store.listUsers(org, { attribute: "userName", value: "ADA@corp.example" }, 0, 10)).rows.map((r) => r.userId)).toEqual([ada.userId]);
    expect((await store.listUsers(org, { attribute: "externalId", value: "x1" }, 0, 10)).total).toBe(1);
    expect((await store.listUsers(org, { attribute: "id", value: ada.userId }, 0, 10)).total).toBe(1);
  });

  it("pages in creation order and updates only at the expected revision", async () => {
    const org = newId();
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push((await store.putNewUser(aUser(org, { createdAt: at(i * 1000) })))!);
    const page = await store.listUsers(org, undefined, 1, 1);
    expect(page).toEqual({ rows: [rows[1]], total: 3 });
    expect(await store.listUsers(org, undefined, 0, 0)).toEqual({ rows: [], total: 3 });
    const changed = { ...rows[0]!, displayName: "Ada", revision: 2 };
    expect(await store.updateUser(changed, 5)).toBe("changed");
    expect(await store.updateUser(changed, 1)).toBe("updated");
    expect(await store.getUser(org, rows[0]!.userId)).toEqual(changed);
    expect(await store.updateUser({ ...changed, userName: rows[1]!.userName, revision: 3 }, 2)).toBe("conflict");
  });

  it("lists undelivered rows until their delivery is marked, and forgets a deleted one once delivered", async () => {
    const org = newId();
    const row = (await store.putNewUser(aUser(org)))!;
    expect((await store.listUndelivered(1000)).map((r) => r.userId)).toContain(row.userId);
    await store.markApplied(org, row.userId, 1, "member");
    expect((await store.listUndelivered(1000)).map((r) => r.userId)).not.toContain(row.userId);
    const deleted = { ...row, applied: "member" as const, deleted: true, revision: 2, updatedAt: at(1) };
    expect(await store.updateUser(deleted, 1)).toBe("updated");
    expect(await store.getUser(org, row.userId)).toBeUndefined();
    expect((await store.listUndelivered(1000)).map((r) => r.userId)).toContain(row.userId);
    await store.markApplied(org, row.userId, 1, "gone");
    expect((await store.listUndelivered(1000)).map((r) => r.userId)).toContain(row.userId);
    await store.markApplied(org, row.userId, 2, "gone");
    expect((await store.listUndelivered(1000)).map((r) => r.userId)).not.toContain(row.userId);
  });

  it("revives a deleted row of the same user with its revision counting on", async () => {
    const org = newId();
    const row = (await store.putNewUser(aUser(org)))!;
    await store.updateUser({ ...row, deleted: true, revision: 2 }, 1);
    const revived = await store.putNewUser({ ...row, displayName: "Back" });
    expect(revived).toMatchObject({ displayName: "Back", revision: 3, deleted: false });
    expect(await store.getUser(org, row.userId)).toEqual(revived);
  });

  it("keeps groups with their members, unique by name per organization", async () => {
    const org = newId();
    const group: ScimGroupRow = { organizationId: org, teamId: newId(), displayName: "Eng", members: ["u1", "u2"], createdAt: at(0), updatedAt: at(0), revision: 1 };
    expect(await store.insertGroup(group)).toBe(true);
    expect(await store.insertGroup({ ...group, teamId: newId(), displayName: "ENG" })).toBe(false);
    expect(await store.getGroup(org, group.teamId)).toEqual(group);
    expect((await store.listGroups(org, { attribute: "displayName", value: "eng" }, 0, 10)).total).toBe(1);
    expect(await store.updateGroup({ ...group, members: ["u2"], revision: 2 }, 1)).toBe("updated");
    await store.removeFromGroups(org, "u2");
    expect(await store.getGroup(org, group.teamId)).toMatchObject({ members: [], revision: 3 });
    await store.deleteGroup(org, group.teamId);
    expect(await store.getGroup(org, group.teamId)).toBeUndefined();
    expect((await store.listGroups(newId(), undefined, 0, 10)).total).toBe(0);
  });
}
