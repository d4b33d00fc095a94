import { describe, expect, it } from "vitest";
import { scimRefusal } from "../../test/scim-refusal.js";
import { parseFilter } from "./filter.js";

const USER = ["userName", "externalId", "id"] as const;

describe("parseFilter", () => {
  it("reads Okta's and Entra ID's userName lookups", () => {
    // Okta: GET /Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100
    expect(parseFilter('userName eq "test.user@okta.local"', USER)).toEqual({ attribute: "userName", value: "test.user@okta.local" });
    // Entra ID's validator sends GUID user names.
    expect(parseFilter('userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"', USER)).toEqual({
      attribute: "userName",
      value: "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081",
    });
  });

  it("reads attribute names and the operator in any case, and JSON escapes in the value", () => {
    expect(parseFilter('USERNAME EQ "a\\"b@example.com"', USER)).toEqual({ attribute: "userName", value: 'a"b@example.com' });
    expect(parseFilter('externalId eq "00ujl29u0le5T6Aj10h7"', USER)).toEqual({ attribute: "externalId", value: "00ujl29u0le5T6Aj10h7" });
    expect(parseFilter('displayName eq "Test SCIMv2"', ["displayName", "externalId"])).toEqual({ attribute: "displayName", value: "Test SCIMv2" });
  });

  it("treats a missing or blank filter as none", () => {
    expect(parseFilter(undefined, USER)).toBeUndefined();
    expect(parseFilter("  ", USER)).toBeUndefined();
  });

  it.each([
    ['userName co "test"', /operator "co"/],
    ['userName sw "a" and active eq true', /Only filters/],
    ['emails.value eq "a@example.com"', /Filtering on "emails.value"/],
    ["userName eq test", /Only filters/],
    ['userName eq "unterminated', /Only filters/],
    ["active eq true", /Only filters/],
    ['userName eq "a" or userName eq "b"', /Only filters/],
  ])("refuses %s with a 400 invalidFilter", (filter, detail) => {
    const error = scimRefusal(() => parseFilter(filter, USER));
    expect(error.body()).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "400", scimType: "invalidFilter" });
    expect(error.detail).toMatch(detail);
  });

  it("refuses an overlong filter", () => {
    expect(scimRefusal(() => parseFilter(`userName eq "${"a".repeat(2000)}"`, USER)).scimType).toBe("invalidFilter");
  });
});
