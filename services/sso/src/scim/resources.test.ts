import { describe, expect, it } from "vitest";
import { scimRefusal } from "../../test/scim-refusal.js";
import { excludesMembers, selectAttributes } from "./attributes.js";
import { resourceTypeById, resourceTypes, schemaById, schemas, serviceProviderConfig } from "./discovery.js";
import { checkIfMatch, notModified } from "./etag.js";
import { parseGroupBody, toGroupResource } from "./group.js";
import { listResponse, parsePage } from "./pagination.js";
import { parseUserBody, toUserResource } from "./user.js";

const BASE = "https://auth.example.com/api/auth/scim/v2";

// Okta's "Create User" request (SCIM 2.0 test suite), as sent.
const OKTA_CREATE = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: "test.user@okta.local",
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  password: "1mz050nq",
  active: true,
};

// Entra ID's provisioning validator "Create User" request, as sent.
const ENTRA_CREATE = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
  externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
  active: true,
  emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" }],
  meta: { resourceType: "User" },
  name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
  roles: [],
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Engineering", manager: { value: "m-1" } },
};

describe("User resources", () => {
  it("reads Okta's create request (the password is not kept)", () => {
    expect(parseUserBody(OKTA_CREATE)).toEqual({
      userName: "test.user@okta.local",
      externalId: "00ujl29u0le5T6Aj10h7",
      displayName: "Test User",
      givenName: "Test",
      familyName: "User",
      email: "test.user@okta.local",
      active: true,
    });
  });

  it("reads Entra ID's create request, its email the primary one lower-cased", () => {
    expect(parseUserBody(ENTRA_CREATE)).toEqual({
      userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      displayName: undefined,
      givenName: "givenName",
      familyName: "familyName",
      email: "test_user_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com",
      active: true,
    });
    expect(parseUserBody({ ...ENTRA_CREATE, active: "False" }).active).toBe(false);
  });

  it("takes the userName as the email when no emails are sent, and refuses a user without an address", () => {
    expect(parseUserBody({ schemas: OKTA_CREATE.schemas, userName: "Bob@Example.com" }).email).toBe("bob@example.com");
    expect(scimRefusal(() => parseUserBody({ schemas: OKTA_CREATE.schemas, userName: "bob" })).scimType).toBe("invalidValue");
  });

  it.each([
    [{ ...OKTA_CREATE, schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"] }, "invalidSyntax"],
    [{ ...OKTA_CREATE, userName: undefined }, "invalidValue"],
    [{ ...OKTA_CREATE, userName: 42 }, "invalidValue"],
    [{ ...OKTA_CREATE, userName: "x".repeat(300) }, "invalidValue"],
    [{ ...OKTA_CREATE, emails: "a@example.com" }, "invalidValue"],
    [{ ...OKTA_CREATE, emails: [{ value: "nope" }] }, "invalidValue"],
    [{ ...OKTA_CREATE, active: "yes" }, "invalidValue"],
    [{ ...OKTA_CREATE, name: "Test User" }, "invalidValue"],
    [[OKTA_CREATE], "invalidSyntax"],
  ])("refuses a bad body (%#) with 400 %s", (body, scimType) => {
    const error = scimRefusal(() => parseUserBody(body));
    expect(error.body()).toMatchObject({ status: "400", scimType });
  });

  it("answers the resource with meta, location and version", () => {
    const created = new Date("2026-01-02T03:04:05.000Z");
    const resource = toUserResource({ id: "u-1", ...parseUserBody(OKTA_CREATE), createdAt: created, updatedAt: created, revision: 3 }, BASE);
    expect(resource).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      id: "u-1",
      externalId: "00ujl29u0le5T6Aj10h7",
      userName: "test.user@okta.local",
      displayName: "Test User",
      name: { formatted: "Test User", givenName: "Test", familyName: "User" },
      emails: [{ value: "test.user@okta.local", primary: true, type: "work" }],
      active: true,
      meta: { resourceType: "User", created: "2026-01-02T03:04:05.000Z", lastModified: "2026-01-02T03:04:05.000Z", location: `${BASE}/Users/u-1`, version: 'W/"3"' },
    });
  });
});

describe("Group resources", () => {
  it("reads Okta's group push and Entra ID's create (with its legacy schema marker)", () => {
    expect(parseGroupBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Test SCIMv2", members: [] })).toEqual({
      displayName: "Test SCIMv2",
      externalId: undefined,
      members: [],
    });
    const entra = {
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Group1",
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group", "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSchema/Group"],
      members: [{ value: "u-1" }, { value: "u-1" }, { value: "u-2", display: "b" }],
    };
    expect(parseGroupBody(entra)).toEqual({ displayName: "Group1", externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", members: ["u-1", "u-2"] });
  });

  it("refuses a group without a name, and a request with too many members", () => {
    expect(scimRefusal(() => parseGroupBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"] })).scimType).toBe("invalidValue");
    const members = Array.from({ length: 1001 }, (_, i) => ({ value: `u-${i}` }));
    expect(scimRefusal(() => parseGroupBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Big", members })).scimType).toBe("tooMany");
  });

  it("answers members with their reference, or leaves them out", () => {
    const at = new Date("2026-01-02T03:04:05.000Z");
    const record = { id: "t-1", displayName: "Eng", members: ["u-1"], createdAt: at, updatedAt: at, revision: 1 };
    expect(toGroupResource(record, BASE, { displayOf: () => "ada@example.com" }).members).toEqual([
      { value: "u-1", $ref: `${BASE}/Users/u-1`, type: "User", display: "ada@example.com" },
    ]);
    expect(toGroupResource(record, BASE, { members: false })).not.toHaveProperty("members");
  });
});

describe("pagination, attribute selection and versions", () => {
  it("reads startIndex and count as RFC 7644 §3.4.2.4 says", () => {
    expect(parsePage({})).toEqual({ startIndex: 1, count: 100 });
    expect(parsePage({ startIndex: "0", count: "-5" })).toEqual({ startIndex: 1, count: 0 });
    expect(parsePage({ startIndex: "11", count: "10000" })).toEqual({ startIndex: 11, count: 200 });
    expect(scimRefusal(() => parsePage({ count: "ten" })).scimType).toBe("invalidValue");
    expect(listResponse({ startIndex: 2, count: 1 }, 5, ["x"])).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 5,
      startIndex: 2,
      itemsPerPage: 1,
      Resources: ["x"],
    });
  });

  it("selects and excludes top-level attributes, always keeping schemas and id", () => {
    const resource = { schemas: ["s"], id: "1", displayName: "Eng", members: [], meta: {} };
    expect(selectAttributes(resource, { excludedAttributes: "members" })).toEqual({ schemas: ["s"], id: "1", displayName: "Eng", meta: {} });
    expect(selectAttributes(resource, { attributes: "displayName,id" })).toEqual({ schemas: ["s"], id: "1", displayName: "Eng" });
    expect(excludesMembers({ excludedAttributes: "members" })).toBe(true);
    expect(excludesMembers({ attributes: "displayName" })).toBe(true);
    expect(excludesMembers({})).toBe(false);
  });

  it("checks If-Match and If-None-Match against the revision", () => {
    expect(() => checkIfMatch(undefined, 2)).not.toThrow();
    expect(() => checkIfMatch('W/"2"', 2)).not.toThrow();
    expect(() => checkIfMatch("*", 2)).not.toThrow();
    expect(scimRefusal(() => checkIfMatch('W/"1"', 2)).body()).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "412",
      detail: "The resource has changed since the version given in If-Match",
    });
    expect(notModified('W/"2"', 2)).toBe(true);
    expect(notModified('W/"1"', 2)).toBe(false);
  });
});

describe("discovery documents", () => {
  it("advertise patch, filter and etags, and no bulk or sort", () => {
    expect(serviceProviderConfig(BASE, "https://docs")).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [{ type: "oauthbearertoken" }],
    });
  });

  it("list the User and Group resource types and schemas, each found by id", () => {
    expect(resourceTypes(BASE).Resources.map((r) => r.endpoint)).toEqual(["/Users", "/Groups"]);
    expect(resourceTypeById("Group", BASE).schema).toBe("urn:ietf:params:scim:schemas:core:2.0:Group");
    expect(schemas(BASE).totalResults).toBe(2);
    expect(schemaById("urn:ietf:params:scim:schemas:core:2.0:User", BASE).attributes.map((a) => a.name)).toContain("userName");
    expect(scimRefusal(() => schemaById("urn:nope", BASE)).status).toBe(404);
    expect(scimRefusal(() => resourceTypeById("Device", BASE)).body()).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "404",
      detail: "ResourceType not found",
    });
  });
});
