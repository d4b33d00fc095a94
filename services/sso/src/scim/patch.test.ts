import { describe, expect, it } from "vitest";
import { scimRefusal } from "../../test/scim-refusal.js";
import { applyGroupPatch, applyUserPatch, parsePatchBody } from "./patch.js";
import type { ScimUserAttributes } from "./user.js";

const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const user: ScimUserAttributes = { userName: "ada@example.com", externalId: "ext-1", givenName: "Ada", familyName: "Lovelace", email: "ada@example.com", active: true };

const patchUser = (body: unknown, current = user) => applyUserPatch(current, parsePatchBody(body));

describe("user PATCH as Okta sends it", () => {
  it("deactivates with a pathless replace", () => {
    const body = { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] };
    expect(patchUser(body)).toEqual({ ...user, active: false });
  });

  it("reactivates, and updates the profile with a pathless replace of several attributes", () => {
    const body = {
      schemas: [PATCH],
      Operations: [
        {
          op: "replace",
          value: { active: true, name: { givenName: "Augusta", familyName: "King" }, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "R&D" } },
        },
      ],
    };
    expect(patchUser(body, { ...user, active: false })).toEqual({ ...user, givenName: "Augusta", familyName: "King" });
  });
});

describe("user PATCH as Entra ID sends it", () => {
  it("deactivates with a capitalised op and the string False", () => {
    const body = { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] };
    expect(patchUser(body).active).toBe(false);
    expect(patchUser({ schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "True" }] }, { ...user, active: false }).active).toBe(true);
  });

  it("applies its attribute update sequence", () => {
    const body = {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "displayName", value: "Ada King" },
        { op: "Add", path: 'emails[type eq "work"].value', value: "Ada.King@Example.com" },
        { op: "Replace", path: "name.givenName", value: "Augusta" },
        { op: "Replace", path: "name.familyName", value: "King" },
        { op: "Add", path: "externalId", value: "ext-2" },
        { op: "Add", path: "title", value: "Countess" },
        { op: "Add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Analytical Engines" },
        { op: "Add", path: 'addresses[type eq "work"].locality', value: "London" },
      ],
    };
    expect(patchUser(body)).toEqual({ ...user, displayName: "Ada King", email: "ada.king@example.com", givenName: "Augusta", familyName: "King", externalId: "ext-2" });
  });

  it("changes the userName and removes an attribute", () => {
    const body = {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "userName", value: "augusta@example.com" },
        { op: "Remove", path: "displayName" },
      ],
    };
    expect(patchUser({ ...body }, { ...user, displayName: "Ada" })).toEqual({ ...user, userName: "augusta@example.com" });
  });
});

describe("user PATCH refusals", () => {
  it.each([
    [{ Operations: [{ op: "replace", value: { active: false } }] }, "invalidSyntax"],
    [{ schemas: [PATCH], Operations: [] }, "invalidSyntax"],
    [{ schemas: [PATCH], Operations: [{ op: "move", path: "active", value: false }] }, "invalidSyntax"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: "maybe" }] }, "invalidValue"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", path: "active" }] }, "invalidValue"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", value: "x" }] }, "invalidValue"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", path: "favouriteColour", value: "red" }] }, "invalidPath"],
    [{ schemas: [PATCH], Operations: [{ op: "remove", path: "userName" }] }, "invalidValue"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", path: "id", value: "other" }] }, "mutability"],
    [{ schemas: [PATCH], Operations: [{ op: "replace", path: 'emails[type eq "work"].value', value: "not-an-email" }] }, "invalidValue"],
    [{ schemas: [PATCH], Operations: Array.from({ length: 101 }, () => ({ op: "replace", path: "active", value: true })) }, "tooMany"],
    ["not an object", "invalidSyntax"],
  ])("refuses %j with %s", (body, scimType) => {
    const error = scimRefusal(() => patchUser(body));
    expect(error.status).toBe(400);
    expect(error.scimType).toBe(scimType);
  });

  it("leaves the current attributes untouched when a later operation fails", () => {
    const current = { ...user };
    scimRefusal(() =>
      patchUser(
        {
          schemas: [PATCH],
          Operations: [
            { op: "replace", path: "active", value: false },
            { op: "replace", path: "nope", value: 1 },
          ],
        },
        current,
      ),
    );
    expect(current).toEqual(user);
  });
});

describe("group PATCH", () => {
  const group = { id: "team-1", displayName: "Engineering", externalId: "grp-1", members: ["u1", "u2"] };
  const patchGroup = (operations: unknown[]) => applyGroupPatch(group, parsePatchBody({ schemas: [PATCH], Operations: operations }));

  it("takes Okta's group push: a rename repeating the id, added members, a member removed by filter", () => {
    expect(patchGroup([{ op: "replace", value: { id: "team-1", displayName: "Test SCIMv2" } }])).toEqual({
      displayName: "Test SCIMv2",
      externalId: "grp-1",
      members: ["u1", "u2"],
    });
    expect(patchGroup([{ op: "add", path: "members", value: [{ value: "u3", display: "test.user@okta.local" }] }]).members).toEqual(["u1", "u2", "u3"]);
    expect(patchGroup([{ op: "remove", path: 'members[value eq "u1"]' }]).members).toEqual(["u2"]);
    expect(patchGroup([{ op: "replace", path: "members", value: [{ value: "u9" }] }]).members).toEqual(["u9"]);
  });

  it("takes Entra ID's member adds and removes by list, capitalised", () => {
    expect(patchGroup([{ op: "Add", path: "members", value: [{ value: "u2" }, { value: "u4" }] }]).members).toEqual(["u1", "u2", "u4"]);
    expect(patchGroup([{ op: "Remove", path: "members", value: [{ value: "u2" }] }]).members).toEqual(["u1"]);
    expect(patchGroup([{ op: "Replace", path: "displayName", value: "Eng" }]).displayName).toBe("Eng");
  });

  it("removes every member on a remove of members without a value", () => {
    expect(patchGroup([{ op: "remove", path: "members" }]).members).toEqual([]);
  });

  it.each([
    [[{ op: "replace", value: { id: "team-2" } }], "mutability"],
    [[{ op: "replace", path: 'members[value eq "u1"]', value: [{ value: "u3" }] }], "invalidPath"],
    [[{ op: "remove", path: "displayName" }], "invalidValue"],
    [[{ op: "add", path: "members", value: [{ display: "no value" }] }], "invalidValue"],
    [[{ op: "add", path: "owners", value: [] }], "invalidPath"],
  ])("refuses %j with %s", (operations, scimType) => {
    expect(scimRefusal(() => patchGroup(operations)).scimType).toBe(scimType);
  });
});
