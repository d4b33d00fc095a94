/**
 * SCIM provisioning over HTTP on the whole platform (docs/http-api/scim.md, docs/adr/0070-scim-provisioning.md):
 * an owner's token routes, then /scim/v2 with the bearer as Okta and Entra ID drive it, and the attacks.
 */
import { afterAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { startDnsServer } from "../../testing/dns-server.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin } from "./admin-fixtures.js";
import { join, organizationOf, type Person, person, refusal } from "./organization-fixtures.js";

const dns = await startDnsServer();
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

describe(`SCIM provisioning (${backendLabel()})`, () => {
  const platform = usePlatform({ serviceEnv: { sso: { SSO_DNS_SERVERS: dns.servers.join(",") } } });
  afterAll(() => dns.stop());

  async function tokenFor(owner: Person, organizationId: string): Promise<string> {
    const res = await owner.c.post("/organization/scim/generate-token", { organizationId, name: "Okta" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.token;
  }

  /** One /scim/v2 request as an IdP sends it: the bearer, SCIM's media type. */
  async function scim(token: string, method: string, path: string, body?: unknown, type = "application/scim+json") {
    const res = await fetch(`${platform.baseURL}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": type }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type") ?? "", etag: res.headers.get("etag"), body: text ? JSON.parse(text) : undefined };
  }

  const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
    schemas: [USER],
    userName,
    name: { givenName: "Grace", familyName: "Hopper" },
    emails: [{ value: userName, primary: true, type: "work" }],
    active: true,
    ...extra,
  });

  it("tokens: an owner generates one (shown once), lists it without the secret and revokes it; it then stops working", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const generated = await ada.c.post("/organization/scim/generate-token", { organizationId: org.id, name: "Okta" });
    expect(generated.status).toBe(200);
    expect(generated.body.token).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    expect(generated.body).toMatchObject({ name: "Okta", prefix: generated.body.token.slice(0, 9), createdBy: ada.user.id, lastUsedAt: null });
    const token = generated.body.token;
    expect((await scim(token, "GET", "/Users")).status).toBe(200);

    const listed = await ada.c.get(`/organization/scim/list-tokens?organizationId=${org.id}`);
    expect(listed.body).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body[0]).toMatchObject({ id: generated.body.id, prefix: generated.body.prefix });

    expect((await ada.c.post("/organization/scim/revoke-token", { organizationId: org.id, tokenId: generated.body.id })).body).toEqual({ status: true });
    const refused = await scim(token, "GET", "/Users");
    expect(refused).toMatchObject({ status: 401, body: { schemas: [ERROR], status: "401" } });
    expect(refusal(await ada.c.post("/organization/scim/revoke-token", { organizationId: org.id, tokenId: generated.body.id }))).toMatchObject({
      status: 404,
      code: "SCIM_TOKEN_NOT_FOUND",
    });
  });

  it("attack: an admin, a member and a stranger cannot manage the tokens, nor an owner another organization's", async () => {
    const ada = await person(platform);
    const bob = await person(platform, "Bob");
    const carol = await person(platform, "Carol");
    const mallory = await person(platform, "Mallory");
    const org = await organizationOf(ada);
    await join(ada, bob, org.id, "admin");
    await join(ada, carol, org.id, "member");
    const adaToken = await ada.c.post("/organization/scim/generate-token", { organizationId: org.id, name: "Okta" });
    for (const who of [bob, carol]) {
      expect(refusal(await who.c.post("/organization/scim/generate-token", { organizationId: org.id, name: "x" }))).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS",
      });
      expect(refusal(await who.c.get(`/organization/scim/list-tokens?organizationId=${org.id}`))).toMatchObject({ status: 403 });
    }
    expect(refusal(await mallory.c.get(`/organization/scim/list-tokens?organizationId=${org.id}`))).toMatchObject({
      status: 403,
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    });
    const evil = await organizationOf(mallory);
    // Mallory's own organization does not reach Ada's token.
    expect(refusal(await mallory.c.post("/organization/scim/revoke-token", { organizationId: evil.id, tokenId: adaToken.body.id }))).toMatchObject({
      status: 404,
      code: "SCIM_TOKEN_NOT_FOUND",
    });
    expect((await ada.c.get(`/organization/scim/list-tokens?organizationId=${org.id}`)).body).toHaveLength(1);
    expect((await platform.client().post("/organization/scim/generate-token", { organizationId: org.id, name: "x" })).status).toBe(401);
  });

  it("Okta's sequence: filter by userName, create, read, patch active false, reactivate, replace, delete", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const token = await tokenFor(ada, org.id);
    const email = uniqueEmail("grace");
    const filter = `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`;
    expect((await scim(token, "GET", filter)).body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await scim(token, "POST", "/Users", newUser(email, { externalId: "00u1" }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.type).toContain("application/scim+json");
    expect(created.body).toMatchObject({ userName: email, active: true, externalId: "00u1" });
    expect(created.etag).toBe(created.body.meta.version);
    const id = created.body.id;
    expect((await scim(token, "GET", filter)).body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    // The organization has the member.
    const members = await ada.c.get(`/organization/list-members?organizationId=${org.id}`);
    expect(JSON.stringify(members.body)).toContain(id);
    expect((await scim(token, "POST", "/Users", newUser(email))).body).toMatchObject({ status: "409", scimType: "uniqueness" });

    const off = await scim(token, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect(JSON.stringify((await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body)).not.toContain(id);
    const on = await scim(token, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: true }] });
    expect(on.body.active).toBe(true);
    expect(JSON.stringify((await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body)).toContain(id);

    const replaced = await scim(token, "PUT", `/Users/${id}`, newUser(email, { externalId: "00u1", displayName: "Grace B. Hopper" }), "application/json");
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.displayName).toBe("Grace B. Hopper");
    expect((await scim(token, "DELETE", `/Users/${id}`)).status).toBe(204);
    expect((await scim(token, "GET", `/Users/${id}`)).status).toBe(404);
    expect(JSON.stringify((await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body)).not.toContain(id);
  });

  it('Entra ID\'s sequence: a group pushed as a team with its members, then Replace with the string "False" deactivates', async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const token = await tokenFor(ada, org.id);
    const email = uniqueEmail("alan");
    const created = await scim(token, "POST", "/Users", newUser(email, { externalId: "entra-1" }), "application/json");
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const filtered = await scim(token, "GET", `/Users?filter=${encodeURIComponent('externalId eq "entra-1"')}`);
    expect(filtered.body.Resources.map((r: { id: string }) => r.id)).toEqual([created.body.id]);

    const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
    const group = await scim(token, "POST", "/Groups", { schemas: [GROUP], displayName: "Engineering", members: [{ value: created.body.id }] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const teams = (await ada.c.get(`/organization/list-teams?organizationId=${org.id}`)).body as { id: string; name: string }[];
    const team = teams.find((t) => t.name === "Engineering");
    expect(team).toBeDefined();
    const members = async () => ((await ada.c.get(`/organization/list-team-members?teamId=${team!.id}`)).body as { userId: string }[]).map((m) => m.userId);
    expect(await members()).toContain(created.body.id);
    const removal = { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: created.body.id }] }] };
    expect((await scim(token, "PATCH", `/Groups/${group.body.id}`, removal)).status).toBeLessThan(300);
    expect(await members()).not.toContain(created.body.id);
    expect((await scim(token, "DELETE", `/Groups/${group.body.id}`)).status).toBe(204);
    const after = (await ada.c.get(`/organization/list-teams?organizationId=${org.id}`)).body as { name: string }[];
    expect(after.map((t) => t.name)).not.toContain("Engineering");

    const off = await scim(token, "PATCH", `/Users/${created.body.id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.body.active).toBe(false);
  });

  it("attack: a deactivated user's live session is refused at once", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const domain = `acme-${Date.now().toString(36)}.example`;
    const claimed = await ada.c.post("/organization/claim-domain", { organizationId: org.id, domain });
    dns.setTxt(claimed.body.record.name, [claimed.body.record.value]);
    expect((await ada.c.post("/organization/verify-domain", { organizationId: org.id, domainId: claimed.body.id })).status).toBe(200);
    const grace = platform.client();
    const email = `grace@${domain}`;
    const signedUp = await grace.post("/sign-up/email", { name: "Grace", email, password: "password-123" });
    expect(signedUp.status).toBe(200);
    expect((await grace.get("/get-session")).body?.user.email).toBe(email);

    const token = await tokenFor(ada, org.id);
    const linked = await scim(token, "POST", "/Users", newUser(email));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    await scim(token, "PATCH", `/Users/${linked.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    const after = await grace.get("/get-session");
    expect(after.body?.session ?? null).toBeNull();

    // A platform admin bans her meanwhile; the IdP's reactivation lifts SCIM's deactivation, never the admin's ban.
    const admin = await anAdmin(platform);
    await scim(token, "PATCH", `/Users/${linked.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect((await admin.c.post("/admin/ban-user", { userId: signedUp.body.user.id, banReason: "fraud" })).status).toBe(200);
    await scim(token, "PATCH", `/Users/${linked.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    await scim(token, "PATCH", `/Users/${linked.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect((await grace.post("/sign-in/email", { email, password: "password-123" })).body.code).toBe("BANNED_USER");
    const listed = await admin.c.get(`/admin/list-users?searchField=email&searchValue=${encodeURIComponent(email)}`);
    expect(listed.body.users[0]).toMatchObject({ banned: true, banReason: "fraud" });
  });

  it("attack: a stranger's address outside a verified domain is not linked", async () => {
    const ada = await person(platform);
    const victim = await person(platform, "Victim");
    const org = await organizationOf(ada);
    const token = await tokenFor(ada, org.id);
    expect(await scim(token, "POST", "/Users", newUser(victim.email))).toMatchObject({ status: 409, body: { scimType: "uniqueness" } });
    expect((await victim.c.get("/get-session")).body.user.email).toBe(victim.email);
  });

  it("attack: organization A's token does not reach organization B's users", async () => {
    const ada = await person(platform);
    const mallory = await person(platform, "Mallory");
    const acme = await organizationOf(ada);
    const evil = await organizationOf(mallory);
    const acmeToken = await tokenFor(ada, acme.id);
    const evilToken = await tokenFor(mallory, evil.id);
    const created = await scim(acmeToken, "POST", "/Users", newUser(uniqueEmail("grace")));
    const id = created.body.id;
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", newUser(created.body.userName)],
      ["PATCH", { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] }],
      ["DELETE", undefined],
    ] as const) {
      expect(await scim(evilToken, method, `/Users/${id}`, body)).toMatchObject({ status: 404, body: { schemas: [ERROR], status: "404" } });
    }
    expect((await scim(evilToken, "GET", "/Users")).body.totalResults).toBe(0);
    expect((await scim(acmeToken, "GET", `/Users/${id}`)).body.active).toBe(true);
  });

  it("attack: bad input and bad tokens answer SCIM error bodies, never a 500", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const token = await tokenFor(ada, org.id);
    for (const bad of ["", "scim_nope", token.slice(0, -1), `${token}x`]) {
      expect(await scim(bad, "GET", "/Users")).toMatchObject({ status: 401, body: { schemas: [ERROR], status: "401" } });
    }
    expect(await scim(token, "POST", "/Users", "{not json")).toMatchObject({ status: 400, body: { scimType: "invalidSyntax" } });
    expect(await scim(token, "POST", "/Users", "{not json", "application/json")).toMatchObject({ status: 400, body: { scimType: "invalidSyntax" } });
    expect(await scim(token, "POST", "/Users", { schemas: [USER] })).toMatchObject({ status: 400, body: { schemas: [ERROR] } });
    expect(await scim(token, "GET", `/Users?filter=${encodeURIComponent('title co "x"')}`)).toMatchObject({ status: 400, body: { scimType: "invalidFilter" } });
    expect(await scim(token, "GET", "/Nope")).toMatchObject({ status: 404, body: { schemas: [ERROR] } });
    const discovery = await scim(token, "GET", "/ServiceProviderConfig");
    expect(discovery.status).toBe(200);
    expect(discovery.body.patch.supported).toBe(true);
  });
});
