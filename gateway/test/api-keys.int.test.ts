/**
 * API keys through the gateway: better-auth 1.7's api-key client end to end (create, get, list, update,
 * delete, verify, the expired-key sweep), and what an attacker tries: another owner's key, an organization
 * the caller has no role in, enumerating keys through the verify answers, bad input; and the key stored
 * only as its hash, the RPC refused to a workload not in its access table; a deleted organization's keys
 * stop verifying at once, and are deleted once identity is back when it was down during the deletion.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ApiKeyServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { call } from "@auth-platform/runtime/rpc";
import { apiKeyAuthClient } from "@auth-platform/test-clients/api-key";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { dumpTable, stringsIn } from "../../testing/dumps.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { type RunningIdentity, startIdentity } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD } from "./admin-fixtures.js";
import { join, organizationOf, person, refusal } from "./organization-fixtures.js";

const platform = usePlatform();
const DAY = 86_400;
let restartedIdentity: RunningIdentity | undefined;
afterAll(async () => {
  await restartedIdentity?.close();
});

async function signedInClient(name = "Ada") {
  const { customFetchImpl } = browserFetch(platform.origin);
  const client = apiKeyAuthClient(platform.baseURL, customFetchImpl);
  const email = uniqueEmail(name.toLowerCase());
  const signedUp = await client.signUp.email({ name, email, password: PASSWORD });
  expect(signedUp.error).toBeNull();
  return { client, userId: signedUp.data!.user.id };
}

const verify = (body: Record<string, unknown>) => platform.client().post("/api-key/verify", body);

describe(`API keys through the better-auth 1.7 api-key client (${backendLabel()})`, () => {
  it("creates a key shown once, gets, lists, updates, verifies and deletes it", async () => {
    const { client, userId } = await signedInClient();
    const created = await client.apiKey.create({ name: "ci", prefix: "ak_", expiresIn: 30 * DAY, metadata: { team: "platform" } });
    expect(created.error).toBeNull();
    const key = created.data!;
    expect(key).toMatchObject({ name: "ci", prefix: "ak_", enabled: true, referenceId: userId, metadata: { team: "platform" }, permissions: null, configId: "default" });
    expect(key.key.startsWith("ak_")).toBe(true);
    expect(key.start).toBe(key.key.slice(0, 6));

    const got = await client.apiKey.get({ query: { id: key.id } });
    expect(got.error).toBeNull();
    expect(got.data).not.toHaveProperty("key");
    expect(got.data).toMatchObject({ id: key.id, name: "ci", start: key.start, referenceId: userId });

    const listed = await client.apiKey.list();
    expect(listed.error).toBeNull();
    expect(listed.data).toMatchObject({ total: 1, apiKeys: [{ id: key.id, name: "ci" }] });

    const updated = await client.apiKey.update({ keyId: key.id, name: "deploy", enabled: true });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ id: key.id, name: "deploy" });

    const verified = await verify({ key: key.key });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ valid: true, error: null, key: { id: key.id, userId, name: "deploy", metadata: { team: "platform" } } });
    expect(verified.body.key).not.toHaveProperty("key");

    // Stored as its keyed hash only: the key appears nowhere in the table.
    const stored = [...stringsIn(await dumpTable(platform.env.IDENTITY_DATABASE_URL!, "api_key"))];
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((s) => s.includes(key.key.slice(3)))).toBe(false);

    const deleted = await client.apiKey.delete({ keyId: key.id });
    expect(deleted.error).toBeNull();
    expect(deleted.data).toEqual({ success: true });
    expect((await verify({ key: key.key })).body).toEqual({ valid: false, error: { code: "INVALID_API_KEY", message: "Invalid API key." }, key: null });
    expect((await client.apiKey.get({ query: { id: key.id } })).error).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
  });

  it("answers one invalid shape for an unknown, a disabled and an expired key, and sweeps the expired", async () => {
    const { client } = await signedInClient();
    const disabled = (await client.apiKey.create({ name: "off" })).data!;
    await client.apiKey.update({ keyId: disabled.id, enabled: false });
    const expiring = (await client.apiKey.create({ name: "short", expiresIn: DAY })).data!;
    expect((await verify({ key: expiring.key })).body.valid).toBe(true);
    platform.clock.advance(DAY * 1000 + 1_000);
    const answers = await Promise.all([verify({ key: "ak_not-a-key" }), verify({ key: disabled.key }), verify({ key: expiring.key })]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ valid: false, error: { code: "INVALID_API_KEY", message: "Invalid API key." }, key: null });
    }
    const swept = await client.$fetch<{ success: boolean }>("/api-key/delete-all-expired-api-keys", { method: "POST" });
    expect(swept.data).toEqual({ success: true, error: null });
    expect((await client.apiKey.list()).data!.apiKeys.map((k) => k.id)).toEqual([disabled.id]);
  });

  it("checks required permissions, and counts the key's rate limit", async () => {
    const { client } = await signedInClient();
    const created = await client.apiKey.create({
      name: "scoped",
      permissions: { organization: ["update"] },
      rateLimitEnabled: true,
      rateLimitTimeWindow: 60_000,
      rateLimitMax: 2,
    } as never);
    expect(created.error).toBeNull();
    const key = created.data!.key;
    expect(created.data).toMatchObject({ permissions: { organization: ["update"] }, rateLimitEnabled: true, rateLimitTimeWindow: 60_000, rateLimitMax: 2 });
    expect((await verify({ key, permissions: { organization: ["update"] } })).body.valid).toBe(true);
    expect((await verify({ key, permissions: { organization: ["delete"] } })).body.error.code).toBe("KEY_NOT_FOUND");
    expect((await verify({ key })).body.valid).toBe(true);
    expect((await verify({ key })).body.error).toEqual({ code: "RATE_LIMIT_EXCEEDED", message: "Rate limit exceeded." });
    platform.clock.advance(60_000);
    expect((await verify({ key })).body.valid).toBe(true);
  });

  it("another user's key is not found to get, update or delete, and never listed", async () => {
    const owner = await signedInClient("Ada");
    const other = await signedInClient("Eve");
    const key = (await owner.client.apiKey.create({ name: "mine" })).data!;
    expect((await other.client.apiKey.get({ query: { id: key.id } })).error).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    expect((await other.client.apiKey.update({ keyId: key.id, name: "stolen" })).error).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    expect((await other.client.apiKey.delete({ keyId: key.id })).error).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    expect((await other.client.apiKey.list()).data).toMatchObject({ apiKeys: [], total: 0 });
    expect((await owner.client.apiKey.get({ query: { id: key.id } })).data?.name).toBe("mine");
  });

  it("organization keys: an owner and an admin manage them, a member and an outsider are refused", async () => {
    const owner = await person(platform, "Olga");
    const admin = await person(platform, "Adam");
    const member = await person(platform, "Mia");
    const outsider = await person(platform, "Otto");
    const org = await organizationOf(owner);
    await join(owner, admin, org.id, "admin");
    await join(owner, member, org.id, "member");

    const created = await admin.c.post("/api-key/create", { name: "deploy", organizationId: org.id });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ referenceId: org.id, organizationId: org.id, userId: null });
    expect((await verify({ key: created.body.key })).body.key).toMatchObject({ organizationId: org.id, referenceId: org.id });

    expect((await owner.c.get(`/api-key/list?organizationId=${org.id}`)).body).toMatchObject({ total: 1, apiKeys: [{ id: created.body.id }] });
    expect((await owner.c.get("/api-key/list")).body.total).toBe(0);
    expect(refusal(await member.c.post("/api-key/create", { name: "x", organizationId: org.id }))).toMatchObject({ status: 403, code: "INSUFFICIENT_API_KEY_PERMISSIONS" });
    expect(refusal(await member.c.get(`/api-key/list?organizationId=${org.id}`))).toMatchObject({ status: 403, code: "INSUFFICIENT_API_KEY_PERMISSIONS" });
    expect(refusal(await outsider.c.get(`/api-key/list?organizationId=${org.id}`))).toMatchObject({ status: 403, code: "USER_NOT_MEMBER_OF_ORGANIZATION" });
    expect(refusal(await member.c.get(`/api-key/get?id=${created.body.id}`))).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    expect(refusal(await outsider.c.post("/api-key/delete", { keyId: created.body.id }))).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });

    expect((await owner.c.post("/api-key/delete", { keyId: created.body.id })).body).toEqual({ success: true });
    expect((await verify({ key: created.body.key })).body.valid).toBe(false);
  });

  it("a custom role granting apiKey actions manages the organization's keys", async () => {
    const owner = await person(platform, "Olga");
    const keeper = await person(platform, "Kim");
    const org = await organizationOf(owner);
    const role = await owner.c.post("/organization/create-role", { organizationId: org.id, role: "keys", permission: { apiKey: ["create", "read", "delete"] } });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
    await join(owner, keeper, org.id, "keys");
    const created = await keeper.c.post("/api-key/create", { name: "svc", organizationId: org.id });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(refusal(await keeper.c.post("/api-key/update", { keyId: created.body.id, name: "renamed" }))).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    expect((await keeper.c.post("/api-key/delete", { keyId: created.body.id })).status).toBe(200);
  });

  it("bad input answers the catalogue's error with its status, never a 500", async () => {
    const { client } = await signedInClient();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ name: "x".repeat(40) }, 400, "INVALID_NAME_LENGTH"],
      [{ prefix: "has space" }, 400, "INVALID_PREFIX_LENGTH"],
      [{ expiresIn: 60 }, 400, "EXPIRES_IN_IS_TOO_SMALL"],
      [{ expiresIn: 400 * DAY }, 400, "EXPIRES_IN_IS_TOO_LARGE"],
      [{ metadata: "text" }, 400, "INVALID_METADATA_TYPE"],
      [{ permissions: { nuclear: ["launch"] } }, 400, "INVALID_API_KEY_PERMISSIONS"],
      [{ expiresIn: "soon" }, 400, "VALIDATION_ERROR"],
      [{ remaining: 10 }, 400, "VALIDATION_ERROR"],
      [{ rateLimitTimeWindow: 5, rateLimitMax: 1 }, 400, "VALIDATION_ERROR"],
    ];
    for (const [body, status, code] of cases) {
      const res = await client.$fetch<unknown>("/api-key/create", { method: "POST", body });
      expect(res.error, JSON.stringify(body)).toMatchObject({ status, code });
    }
    const key = (await client.apiKey.create({})).data!;
    expect((await client.apiKey.update({ keyId: key.id })).error).toMatchObject({ status: 400, code: "NO_VALUES_TO_UPDATE" });
    expect(refusal(await platform.client().post("/api-key/create", { name: "anon" }))).toMatchObject({ status: 401 });
    expect(refusal(await verify({}))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });

  it("VerifyApiKey answers the gateway and internal-client, and refuses other workloads", async () => {
    const { client } = await signedInClient();
    const key = (await client.apiKey.create({ name: "svc" })).data!;
    const over = (workload: "internal-client" | "session" | "organization") =>
      createGrpcClient(ApiKeyServiceClient, platform.env.IDENTITY_SERVICE_URL!, { tls: platform.grpcTls(workload), serverName: "identity" });
    const internal = over("internal-client");
    try {
      const answer = await call(internal, internal.verifyApiKey, { key: key.key, permissions: {} });
      expect(answer).toMatchObject({ valid: true, errorCode: "", key: { id: key.id, name: "svc" } });
      // PERMISSION_DENIED: the access table refuses the workload (CALLER_NOT_ALLOWED on the wire).
      await expect(call(internal, internal.createApiKey, { permissions: {} })).rejects.toMatchObject({ grpcCode: 7 });
    } finally {
      internal.close();
    }
    for (const workload of ["session", "organization"] as const) {
      const other = over(workload);
      try {
        await expect(call(other, other.verifyApiKey, { key: key.key, permissions: {} })).rejects.toMatchObject({ grpcCode: 7 });
      } finally {
        other.close();
      }
    }
  });

  it("DeleteOrganizationApiKeys is the organization service's alone", async () => {
    for (const workload of ["gateway", "internal-client", "session"] as const) {
      const other = createGrpcClient(ApiKeyServiceClient, platform.env.IDENTITY_SERVICE_URL!, { tls: platform.grpcTls(workload), serverName: "identity" });
      try {
        await expect(call(other, other.deleteOrganizationApiKeys, { organizationId: "any" })).rejects.toMatchObject({ grpcCode: 7 });
      } finally {
        other.close();
      }
    }
  });

  it("a deleted organization's keys stop verifying as soon as the deletion answers, and are gone from the table", async () => {
    const owner = await person(platform, "Olga");
    const org = await organizationOf(owner);
    const created = await owner.c.post("/api-key/create", { name: "deploy", organizationId: org.id });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const mine = await owner.c.post("/api-key/create", { name: "own" });
    expect((await verify({ key: created.body.key })).body.valid).toBe(true);

    expect((await owner.c.post("/organization/delete", { organizationId: org.id })).status).toBe(200);
    expect((await verify({ key: created.body.key })).body).toEqual({ valid: false, error: { code: "INVALID_API_KEY", message: "Invalid API key." }, key: null });
    const rows = await dumpTable(platform.env.IDENTITY_DATABASE_URL!, "api_key");
    expect(rows.some((r) => r.organization_id === org.id)).toBe(false);
    // The owner's own key is not the organization's: it stays.
    expect((await verify({ key: mine.body.key })).body.valid).toBe(true);
  });

  // Last: it stops identity, and the rest of the file would run against the restarted one.
  it("partition: an organization deleted while identity is down has its keys deleted once identity is back", async () => {
    const owner = await person(platform, "Olga");
    const org = await organizationOf(owner);
    const keys = await Promise.all(["a", "b"].map(async (name) => (await owner.c.post("/api-key/create", { name, organizationId: org.id })).body));
    for (const key of keys) expect((await verify({ key: key.key })).body.valid).toBe(true);

    await platform.services.identity.close();
    expect((await owner.c.post("/organization/delete", { organizationId: org.id })).status).toBe(200);
    // The keys are still stored; the organization holds the deletion's event, which carries identity's part.
    const orgKeys = async () => (await dumpTable(platform.env.IDENTITY_DATABASE_URL!, "api_key")).filter((r) => r.organization_id === org.id);
    expect(await orgKeys()).toHaveLength(2);
    const pending = await platform.services.organization.deps.store.findDueOrganizationEvents(new Date(Date.now() + 86_400_000), 10_000);
    expect(pending.filter((e) => e.organizationId === org.id).map((e) => e.type)).toContain("organization.deleted");

    restartedIdentity = await startIdentity(platform.env);
    // The worker's retries backed off while identity was down: let them come due.
    platform.clock.advance(120_000);
    await eventually(async () => expect(await orgKeys()).toEqual([]));
    for (const key of keys) expect((await verify({ key: key.key })).body).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
  });
});
