import { describe, expect, it } from "vitest";
import { scimDeps } from "../../test/scim-fakes.js";
import { scimRejection } from "../../test/scim-refusal.js";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./groups.js";
import { parsePage } from "./pagination.js";
import { createUser, deleteUser } from "./users.js";

const BASE = "https://auth.example.com/api/auth/scim/v2";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const page = parsePage({});

async function withUsers(organizationId = "org-a") {
  const deps = scimDeps();
  const ids = [];
  for (const name of ["ada", "bob"]) {
    ids.push((await createUser(deps, organizationId, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `${name}@corp.example` }, BASE)).id);
  }
  return { deps, ids };
}

describe("SCIM groups as teams", () => {
  it("follows Okta's group push: create empty, rename repeating the id, add a member, remove it by filter", async () => {
    const { deps, ids } = await withUsers();
    const [ada] = ids;
    const group = await createGroup(deps, "org-a", { schemas: [GROUP], displayName: "Test SCIMv2", members: [] }, BASE);
    expect(deps.peers.teams.get(group.id)).toMatchObject({ organizationId: "org-a", name: "Test SCIMv2" });
    await patchGroup(deps, "org-a", group.id, { schemas: [PATCH], Operations: [{ op: "replace", value: { id: group.id, displayName: "Engineering" } }] }, undefined, BASE);
    await patchGroup(
      deps,
      "org-a",
      group.id,
      { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: ada, display: "ada@corp.example" }] }] },
      undefined,
      BASE,
    );
    expect(deps.peers.teams.get(group.id)).toMatchObject({ name: "Engineering", members: new Set([ada]) });
    expect((await getGroup(deps, "org-a", group.id, BASE)).members).toEqual([{ value: ada, $ref: `${BASE}/Users/${ada}`, type: "User" }]);
    const removed = await patchGroup(deps, "org-a", group.id, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${ada}"]` }] }, undefined, BASE);
    expect(removed.members).toEqual([]);
    expect(deps.peers.teams.get(group.id)!.members.size).toBe(0);
  });

  it("follows Entra ID's: look up by displayName without members, create with members, Add and Remove by list, delete", async () => {
    const { deps, ids } = await withUsers();
    const [ada, bob] = ids;
    expect((await listGroups(deps, "org-a", { filter: 'displayName eq "Group1"' }, page, BASE, false)).totalResults).toBe(0);
    const group = await createGroup(deps, "org-a", { schemas: [GROUP], displayName: "Group1", externalId: "8aa1", members: [{ value: ada }] }, BASE);
    const listed = await listGroups(deps, "org-a", { filter: 'displayName eq "group1"' }, page, BASE, false);
    expect(listed.Resources[0]).not.toHaveProperty("members");
    await patchGroup(deps, "org-a", group.id, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: bob }] }] }, undefined, BASE);
    await patchGroup(deps, "org-a", group.id, { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: ada }] }] }, undefined, BASE);
    expect(deps.peers.teams.get(group.id)!.members).toEqual(new Set([bob]));
    await replaceGroup(deps, "org-a", group.id, { schemas: [GROUP], displayName: "Group1", members: [{ value: ada }, { value: bob }] }, undefined, BASE);
    expect(deps.peers.teams.get(group.id)!.members).toEqual(new Set([ada, bob]));
    await deleteUser(deps, "org-a", bob!, undefined);
    expect((await getGroup(deps, "org-a", group.id, BASE)).members!.map((m) => m.value)).toEqual([ada]);
    await deleteGroup(deps, "org-a", group.id, undefined);
    expect(deps.peers.teams.has(group.id)).toBe(false);
    expect((await scimRejection(() => getGroup(deps, "org-a", group.id, BASE))).status).toBe(404);
  });

  it("refuses members that are not this organization's provisioned users, and another organization's groups", async () => {
    const { deps, ids } = await withUsers("org-b");
    const group = await createGroup(deps, "org-a", { schemas: [GROUP], displayName: "Eng" }, BASE);
    const foreign = await scimRejection(() =>
      patchGroup(deps, "org-a", group.id, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: ids[0] }] }] }, undefined, BASE),
    );
    expect(foreign.body()).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect((await scimRejection(() => createGroup(deps, "org-a", { schemas: [GROUP], displayName: "Ops", members: [{ value: ids[0] }] }, BASE))).status).toBe(400);
    expect((await scimRejection(() => getGroup(deps, "org-b", group.id, BASE))).status).toBe(404);
    expect((await scimRejection(() => deleteGroup(deps, "org-b", group.id, undefined))).status).toBe(404);
    expect((await listGroups(deps, "org-b", {}, page, BASE)).totalResults).toBe(0);
    expect(deps.peers.teams.has(group.id)).toBe(true);
  });

  it("refuses a second group of the same name", async () => {
    const { deps } = await withUsers();
    await createGroup(deps, "org-a", { schemas: [GROUP], displayName: "Eng" }, BASE);
    expect((await scimRejection(() => createGroup(deps, "org-a", { schemas: [GROUP], displayName: "ENG" }, BASE))).scimType).toBe("uniqueness");
    expect(deps.peers.teams.size).toBe(1);
  });
});
