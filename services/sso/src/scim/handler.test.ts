import { describe, expect, it } from "vitest";
import { scimDeps } from "../../test/scim-fakes.js";
import { handleScim, type ScimRequest } from "./handler.js";
import { generateToken } from "./tokens.js";

const BASE = "https://auth.example.com/api/auth/scim/v2";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

async function setUp() {
  const deps = scimDeps();
  const a = (await generateToken(deps, { organizationId: "org-a", name: "Okta", createdBy: "o" })).token;
  const b = (await generateToken(deps, { organizationId: "org-b", name: "Entra", createdBy: "o" })).token;
  const send = async (token: string, request: Partial<ScimRequest> & { method: string; resource: string }) => {
    const response = await handleScim(deps, { authorization: `Bearer ${token}`, query: {}, body: "", baseUrl: BASE, ...request });
    return { ...response, json: response.body ? JSON.parse(response.body) : undefined };
  };
  return { deps, a, b, send };
}

const newUser = JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada@corp.example", externalId: "e1" });

describe("handleScim", () => {
  it("creates, reads with an ETag and attribute selection, and deletes", async () => {
    const { send, a } = await setUp();
    const created = await send(a, { method: "POST", resource: "Users", body: newUser });
    expect(created).toMatchObject({ status: 201, etag: 'W/"1"', json: { userName: "ada@corp.example" } });
    const read = await send(a, { method: "GET", resource: "Users", id: created.json.id, query: { attributes: "userName" } });
    expect(read.json).toEqual({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], id: created.json.id, userName: "ada@corp.example" });
    const listed = await send(a, { method: "GET", resource: "Users", query: { filter: 'userName eq "ada@corp.example"', excludedAttributes: "emails,meta" } });
    expect(listed.json.Resources[0]).not.toHaveProperty("emails");
    expect(await send(a, { method: "DELETE", resource: "Users", id: created.json.id })).toMatchObject({ status: 204, body: "" });
  });

  it("answers another organization's token 404 for every user of the first", async () => {
    const { send, a, b, deps } = await setUp();
    const created = await send(a, { method: "POST", resource: "Users", body: newUser });
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const body =
        method === "PATCH" ? JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { active: false } }] }) : newUser;
      expect(await send(b, { method, resource: "Users", id: created.json.id, body })).toMatchObject({ status: 404, json: { schemas: [ERROR], status: "404" } });
    }
    expect((await send(b, { method: "GET", resource: "Users" })).json.totalResults).toBe(0);
    expect(deps.peers.users.get(created.json.id)!.active).toBe(true);
  });

  it("answers bad input in the RFC's error format, never a thrown error", async () => {
    const { send, a } = await setUp();
    expect(await send(a, { method: "POST", resource: "Users", body: "{not json" })).toMatchObject({
      status: 400,
      json: { schemas: [ERROR], status: "400", scimType: "invalidSyntax" },
    });
    expect(await send(a, { method: "GET", resource: "Users", query: { filter: 'name.familyName co "x"' } })).toMatchObject({ status: 400, json: { scimType: "invalidFilter" } });
    expect(await send(a, { method: "POST", resource: "Users", id: "x" })).toMatchObject({ status: 405, json: { status: "405" } });
    expect(await send(a, { method: "GET", resource: "Devices" })).toMatchObject({ status: 404 });
    expect(await send("scim_wrong", { method: "GET", resource: "Users" })).toMatchObject({ status: 401, json: { schemas: [ERROR], status: "401" } });
  });

  it("serves the discovery documents without a token", async () => {
    const { send } = await setUp();
    expect((await send("", { method: "GET", resource: "ServiceProviderConfig" })).json.patch).toEqual({ supported: true });
    expect((await send("", { method: "GET", resource: "ResourceTypes", id: "User" })).json.endpoint).toBe("/Users");
    expect((await send("", { method: "GET", resource: "Schemas" })).json.totalResults).toBe(2);
  });
});

describe("handleScim on /Groups", () => {
  it("creates a group as a team and leaves members out when asked", async () => {
    const { send, a, deps } = await setUp();
    const created = await send(a, {
      method: "POST",
      resource: "Groups",
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Group1" }),
    });
    expect(created).toMatchObject({ status: 201, etag: 'W/"1"', json: { displayName: "Group1", members: [] } });
    expect(deps.peers.teams.get(created.json.id)).toMatchObject({ organizationId: "org-a", name: "Group1" });
    const listed = await send(a, { method: "GET", resource: "Groups", query: { filter: 'displayName eq "Group1"', excludedAttributes: "members" } });
    expect(listed.json.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
  });
});
