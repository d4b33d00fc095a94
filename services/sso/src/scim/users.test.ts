import { describe, expect, it } from "vitest";
import { scimDeps } from "../../test/scim-fakes.js";
import { scimRejection } from "../../test/scim-refusal.js";
import { parsePage } from "./pagination.js";
import { createUser, deleteUser, deliverPending, getUser, listUsers, patchUser, replaceUser } from "./users.js";

const BASE = "https://auth.example.com/api/auth/scim/v2";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const page = parsePage({});

const oktaUser = (userName: string, externalId: string) => ({
  schemas: [USER],
  userName,
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: userName, type: "work" }],
  displayName: "Test User",
  externalId,
  groups: [],
  password: "1mz050nq",
  active: true,
});

describe("SCIM users, as Okta provisions them", () => {
  it("looks up, creates, deactivates, reactivates, replaces and deletes", async () => {
    const deps = scimDeps();
    expect((await listUsers(deps, "org-a", { filter: 'userName eq "ada@corp.example"' }, page, BASE)).totalResults).toBe(0);

    const created = await createUser(deps, "org-a", oktaUser("ada@corp.example", "00u1"), BASE);
    expect(created).toMatchObject({ userName: "ada@corp.example", externalId: "00u1", active: true, meta: { version: 'W/"1"', location: `${BASE}/Users/${created.id}` } });
    expect(deps.peers.users.get(created.id)).toMatchObject({ email: "ada@corp.example", name: "Test User" });
    expect(deps.peers.members).toEqual(new Set([`org-a/${created.id}`]));

    const found = await listUsers(deps, "org-a", { filter: 'userName eq "ADA@corp.example"' }, page, BASE);
    expect(found.Resources.map((r) => r.id)).toEqual([created.id]);

    const deactivated = await patchUser(deps, "org-a", created.id, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] }, undefined, BASE);
    expect(deactivated).toMatchObject({ active: false, meta: { version: 'W/"2"' } });
    expect(deps.peers.users.get(created.id)!.active).toBe(false);
    expect(deps.peers.members.size).toBe(0);

    await patchUser(deps, "org-a", created.id, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] }, undefined, BASE);
    expect(deps.peers.users.get(created.id)!.active).toBe(true);
    expect(deps.peers.members.size).toBe(1);

    const replaced = await replaceUser(
      deps,
      "org-a",
      created.id,
      { ...oktaUser("ada@corp.example", "00u1"), name: { givenName: "Augusta", familyName: "King" }, displayName: undefined },
      'W/"3"',
      BASE,
    );
    expect(replaced).toMatchObject({ displayName: "Augusta King", name: { givenName: "Augusta", familyName: "King" } });

    await deleteUser(deps, "org-a", created.id, undefined);
    expect(deps.peers.members.size).toBe(0);
    expect(deps.peers.users.get(created.id)!.active).toBe(true);
    expect((await scimRejection(() => getUser(deps, "org-a", created.id, BASE))).status).toBe(404);
    expect(await deps.store.listUndelivered(10)).toEqual([]);
  });
});

describe("SCIM users, as Entra ID provisions them", () => {
  it("filters by externalId, deactivates with the string False, and updates with capitalised ops", async () => {
    const deps = scimDeps();
    const body = {
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "0a21f0f2",
      userName: "Test_User_ab64",
      active: true,
      emails: [{ primary: true, type: "work", value: "test_user@corp.example" }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: [],
    };
    const created = await createUser(deps, "org-a", body, BASE);
    expect((await listUsers(deps, "org-a", { filter: 'externalId eq "0a21f0f2"' }, page, BASE)).Resources[0]!.id).toBe(created.id);
    expect((await listUsers(deps, "org-a", { filter: 'externalId eq "0A21F0F2"' }, page, BASE)).totalResults).toBe(0);
    const patched = await patchUser(
      deps,
      "org-a",
      created.id,
      {
        schemas: [PATCH],
        Operations: [
          { op: "Replace", path: "displayName", value: "Renamed" },
          { op: "Replace", path: "active", value: "False" },
        ],
      },
      undefined,
      BASE,
    );
    expect(patched).toMatchObject({ displayName: "Renamed", active: false });
    expect(deps.peers.calls).toEqual(["create test_user@corp.example", `add org-a/${created.id}`, `remove org-a/${created.id}`, `deactivate ${created.id}`]);
  });
});

describe("SCIM user rules", () => {
  it("never shows or touches another organization's users", async () => {
    const deps = scimDeps();
    const ada = await createUser(deps, "org-a", oktaUser("ada@corp.example", "x1"), BASE);
    expect((await listUsers(deps, "org-b", {}, page, BASE)).totalResults).toBe(0);
    expect((await listUsers(deps, "org-b", { filter: `id eq "${ada.id}"` }, page, BASE)).totalResults).toBe(0);
    for (const attempt of [
      () => getUser(deps, "org-b", ada.id, BASE),
      () => patchUser(deps, "org-b", ada.id, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] }, undefined, BASE),
      () => replaceUser(deps, "org-b", ada.id, oktaUser("ada@corp.example", "x1"), undefined, BASE),
      () => deleteUser(deps, "org-b", ada.id, undefined),
    ]) {
      expect((await scimRejection(attempt)).body()).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "404", detail: "User not found" });
    }
    expect(deps.peers.users.get(ada.id)!.active).toBe(true);
    expect(deps.peers.members).toEqual(new Set([`org-a/${ada.id}`]));
  });

  it("links an existing platform user only when the organization verified their domain", async () => {
    const deps = scimDeps();
    const existing = await deps.peers.createUser({ email: "bob@corp.example", name: "Bob" });
    const refused = await scimRejection(() => createUser(deps, "org-a", oktaUser("bob@corp.example", "b1"), BASE));
    expect(refused.body()).toMatchObject({ status: "409", scimType: "uniqueness" });
    expect(deps.peers.members.size).toBe(0);
    deps.peers.verifiedDomains.set("org-a", ["corp.example"]);
    expect((await createUser(deps, "org-a", oktaUser("bob@corp.example", "b1"), BASE)).id).toBe(existing.id);
    expect(deps.peers.members).toEqual(new Set([`org-a/${existing.id}`]));
  });

  it("refuses a second user with the same userName or externalId in one organization, not across organizations", async () => {
    const deps = scimDeps();
    await createUser(deps, "org-a", oktaUser("ada@corp.example", "x1"), BASE);
    expect((await scimRejection(() => createUser(deps, "org-a", { ...oktaUser("ADA@corp.example", "x2"), emails: [{ value: "other@corp.example" }] }, BASE))).status).toBe(409);
    expect((await scimRejection(() => createUser(deps, "org-a", oktaUser("eve@corp.example", "x1"), BASE))).scimType).toBe("uniqueness");
    expect(deps.peers.users.size).toBe(1);
    await createUser(deps, "org-b", oktaUser("eve@other.example", "x1"), BASE);
    const second = await createUser(deps, "org-a", oktaUser("eve@corp.example", "x3"), BASE);
    expect(
      (await scimRejection(() => patchUser(deps, "org-a", second.id, { schemas: [PATCH], Operations: [{ op: "replace", path: "externalId", value: "x1" }] }, undefined, BASE)))
        .status,
    ).toBe(409);
  });

  it("refuses a write with a stale If-Match", async () => {
    const deps = scimDeps();
    const ada = await createUser(deps, "org-a", oktaUser("ada@corp.example", "x1"), BASE);
    await patchUser(deps, "org-a", ada.id, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "A" }] }, 'W/"1"', BASE);
    const stale = await scimRejection(() =>
      patchUser(deps, "org-a", ada.id, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "B" }] }, 'W/"1"', BASE),
    );
    expect(stale.status).toBe(412);
    expect((await getUser(deps, "org-a", ada.id, BASE)).displayName).toBe("A");
  });

  it("pages through users in creation order", async () => {
    const deps = scimDeps();
    for (let i = 0; i < 5; i++) {
      deps.clock.now = new Date(deps.clock.now.getTime() + 1000);
      await createUser(deps, "org-a", oktaUser(`u${i}@corp.example`, `e${i}`), BASE);
    }
    const second = await listUsers(deps, "org-a", {}, parsePage({ startIndex: "3", count: "2" }), BASE);
    expect(second).toMatchObject({ totalResults: 5, startIndex: 3, itemsPerPage: 2 });
    expect(second.Resources.map((r) => r.userName)).toEqual(["u2@corp.example", "u3@corp.example"]);
    expect(await listUsers(deps, "org-a", {}, parsePage({ count: "0" }), BASE)).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
  });

  it("keeps a change made while the organization service is down, and delivers it later", async () => {
    const deps = scimDeps();
    const ada = await createUser(deps, "org-a", oktaUser("ada@corp.example", "x1"), BASE);
    deps.peers.organizationDown = true;
    const answered = await patchUser(deps, "org-a", ada.id, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] }, undefined, BASE);
    expect(answered.active).toBe(false);
    expect(deps.woken).toBe(1);
    expect(deps.peers.members.size).toBe(1);
    await expect(deliverPending(deps, 10)).rejects.toThrow("organization unavailable");
    deps.peers.organizationDown = false;
    expect(await deliverPending(deps, 10)).toBe(1);
    expect(deps.peers.members.size).toBe(0);
    expect(deps.peers.users.get(ada.id)!.active).toBe(false);
    expect(await deliverPending(deps, 10)).toBe(0);
  });
});
