/**
 * Every route's real answers conform to the OpenAPI document the gateway serves: a user's whole journey
 * (sign-up to deletion, two-factor, organizations, admin, social sign-in through a real OpenID provider, the
 * development mailbox) and its failures run through a browser whose every answer from the gateway is checked
 * against GET /openapi.json: the status must be declared for the operation, a JSON body must validate against
 * the schema declared for that status, a redirect must carry a Location. The last test requires a checked
 * success and a checked error for every operation of the document.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { BrowserFlow } from "../../testing/browser-flow.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { SoftwareAuthenticator } from "../../testing/software-authenticator.js";
import { GENERIC_OAUTH2, GENERIC_OIDC, useSocialPlatform } from "../../testing/social-platform.js";
import { aProvider } from "../../services/sso/src/store/sso-store.contract.js";
import { startDnsServer } from "../../testing/dns-server.js";
import { createSamlIdp } from "../../testing/saml-idp.js";
import { MAIL_SIGN_IN_ENV } from "./mail-sign-in-helpers.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const dns = await startDnsServer();
const social = useSocialPlatform({ genericProviders: true, env: MAIL_SIGN_IN_ENV, serviceEnv: { sso: { SSO_DNS_SERVERS: dns.servers.join(",") } } });
afterAll(() => dns.stop());
const PASSWORD = "password-123";

type Doc = { paths: Record<string, Record<string, { responses: Record<string, any>; security?: unknown[] }>>; components: { responses: Record<string, any> } };
let doc: Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
/** "post /sign-in/email" -> the statuses seen (each checked). */
const seen = new Map<string, Set<number>>();
const problems: string[] = [];

/** The document's operations (read in beforeAll): its express path (`:name`) and whether it needs a session. */
let routes: { key: string; method: string; path: string; template: string; pattern: RegExp; session: boolean }[] = [];

function operationsOf(document: Doc) {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const path = template.replace(/\{(\w+)\}/g, ":$1");
      return { key: `${method} ${path}`, method, path, template, pattern: new RegExp(`^${path.replace(/:\w+/g, "[^/]+")}$`), session: Boolean(operation.security) };
    }),
  );
}

/** Checks one answer of the gateway against the document; a mismatch is recorded (asserted at the end of each test). */
async function conform(method: string, url: URL, res: Response): Promise<void> {
  const base = new URL(social.platform.baseURL);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return;
  const path = url.pathname.slice(base.pathname.length);
  const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
  if (!route) return void problems.push(`${method} ${path}: no operation in the document`);
  const declared = doc.paths[route.template]?.[route.method]?.responses ?? {};
  let response = declared[String(res.status)];
  if (!response) return void problems.push(`${route.key}: status ${res.status} is not declared`);
  if (response.$ref) response = doc.components.responses[response.$ref.split("/").pop()!];
  (seen.get(route.key) ?? seen.set(route.key, new Set()).get(route.key)!).add(res.status);
  const text = await res.clone().text();
  if (res.status >= 300 && res.status < 400) {
    if (!res.headers.get("location")) problems.push(`${route.key}: ${res.status} without a Location`);
    return;
  }
  if (res.status === 204 && !text) return;
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const json = response.content?.[type === "application/scim+json" ? type : "application/json"];
  if (!json) {
    // A document that is not JSON (an HTML page, SAML metadata) answers the media type it declares.
    const declared = Object.keys(response.content ?? {});
    if (!declared.includes(type)) problems.push(`${route.key}: ${res.status} answered ${type}, declared ${declared.join(", ") || "nothing"}`);
    return;
  }
  const id = `${route.key} ${res.status}`;
  if (!validators.has(id)) validators.set(id, ajv.compile(json.schema));
  const validate = validators.get(id)!;
  if (!validate(JSON.parse(text))) problems.push(`${id}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
}

/** A browser whose every answer from the gateway is checked against the document. */
class CheckedBrowser extends BrowserFlow {
  constructor() {
    super((url) => url.origin === social.idp.issuer || url.href.startsWith(`${social.platform.baseURL}/`));
  }
  override async request(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await super.request(url, init);
    await conform(init.method ?? "GET", new URL(url), res);
    return res;
  }
  async call(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
    const init: RequestInit = { method };
    if (method === "POST") Object.assign(init, { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    const res = await this.request(`${social.platform.baseURL}${path}`, init);
    const text = await res.text();
    return { status: res.status, body: (res.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : text, headers: res.headers };
  }
  get = (path: string) => this.call("GET", path);
  post = (path: string, body?: unknown) => this.call("POST", path, body);
}

const browser = () => new CheckedBrowser();

async function signedUp(name = "Grace", extra: Record<string, unknown> = {}) {
  const b = browser();
  const email = uniqueEmail(name.toLowerCase());
  const res = await b.post("/sign-up/email", { name, email, password: PASSWORD, ...extra });
  expect(res.status).toBe(200);
  return { b, email, id: res.body.user.id as string, token: res.body.token as string };
}

type Mail = { links: string[]; text: string; template: string; createdAt: string };

/** The newest development-mailbox message of a template to an address, waiting for identity's mail queue. */
async function lastMail(b: CheckedBrowser, to: string, template: string, after = ""): Promise<Mail> {
  return eventually(async () => {
    const res = await b.get(`/dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status).toBe(200);
    const found = (res.body.messages as Mail[]).filter((m) => m.template === template && m.createdAt > after).sort((x, y) => y.createdAt.localeCompare(x.createdAt))[0];
    if (!found) throw new Error(`no ${template} mail to ${to}`);
    return found;
  });
}

/** The newest mailed code (email OTP) whose mail says `heading`, after `after`. */
async function mailedCode(b: CheckedBrowser, to: string, heading: string, after = ""): Promise<{ code: string; createdAt: string }> {
  return eventually(async () => {
    const res = await b.get(`/dev/outbox?to=${encodeURIComponent(to)}`);
    const found = (res.body.messages as Mail[])
      .filter((m) => m.template === "email-otp" && m.text.includes(heading) && m.createdAt > after)
      .sort((x, y) => y.createdAt.localeCompare(x.createdAt))[0];
    if (!found) throw new Error(`no "${heading}" code to ${to}`);
    return { code: /\b(\d{6})\b/.exec(found.text)![1]!, createdAt: found.createdAt };
  });
}

const codeFor = (totpURI: string) => totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(new Date()));

function expectConforming() {
  const found = problems.splice(0);
  expect(found).toEqual([]);
}

beforeAll(async () => {
  const res = await fetch(`${social.platform.baseURL}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
  routes = operationsOf(doc);
  expect((doc as any).servers).toEqual([{ url: social.platform.baseURL }]);
});

describe("real answers conform to GET /openapi.json", () => {
  it("meta routes and the document itself", async () => {
    const b = browser();
    expect((await b.get("/ok")).status).toBe(200);
    expect((await b.get("/error?error=state_not_found")).status).toBe(200);
    expect((await b.get("/openapi.json")).status).toBe(200);
    for (const path of ["/ok", "/error", "/openapi.json"]) expect((await b.get(`${path}?probe=%00`)).status).toBe(400);
    expect((await b.get("/dev/outbox?limit=0")).status).toBe(400);
    expect((await b.get("/dev/outbox")).status).toBe(200);
    expectConforming();
  });

  it("sign-up, sign-in and sessions", async () => {
    const { b, email } = await signedUp("Sessions", { username: `user_${Date.now().toString(36)}` });
    expect((await b.post("/sign-up/email", { name: "Again", email, password: PASSWORD })).status).toBeGreaterThanOrEqual(400);
    expect((await b.post("/sign-up/email", { name: 1 })).status).toBe(400);
    const other = browser();
    expect((await other.post("/sign-in/email", { email, password: "wrong-password" })).status).toBe(401);
    const signedIn = await other.post("/sign-in/email", { email, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    const me = (await b.get("/get-session")).body;
    expect((await other.post("/sign-in/username", { username: me.user.username, password: "wrong-password" })).status).toBe(401);
    expect((await other.post("/sign-in/username", { username: me.user.username, password: PASSWORD })).status).toBe(200);
    expect((await b.post("/get-session")).status).toBe(200);
    expect((await browser().get("/get-session")).body).toBeNull();
    expect((await b.get("/get-session?disableRefresh=maybe")).status).toBe(400);
    expect((await b.post("/get-session?disableCookieCache=maybe")).status).toBe(400);
    expect((await b.get("/list-sessions")).body.length).toBeGreaterThanOrEqual(2);
    expect((await b.post("/revoke-session", {})).status).toBe(400);
    expect((await b.post("/revoke-session", { token: signedIn.body.token })).status).toBe(200);
    expect((await b.post("/revoke-other-sessions")).status).toBe(200);
    expect((await b.post("/update-session", {})).status).toBe(200);
    expect((await b.post("/is-username-available", { username: me.user.username })).body).toEqual({ available: false });
    expect((await b.post("/is-username-available", {})).status).toBe(400);
    expect((await b.post("/sign-out?probe=%00")).status).toBe(400);
    expect((await b.post("/revoke-sessions")).status).toBe(200);
    const again = browser();
    expect((await again.post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
    expect((await again.post("/sign-out")).status).toBe(200);
    expectConforming();
  });

  it("every route that needs a session answers 401 without one", async () => {
    const anonymous = browser();
    const statuses: Record<string, number> = {};
    for (const operation of routes.filter((o) => o.session)) {
      // The two routes that check a required query parameter before the session get one.
      const path = operation.path.replace(/:(\w+)/g, "x") + ({ "/delete-user/callback": "?token=x", "/admin/get-user": "?id=x" }[operation.path] ?? "");
      const res = operation.method === "get" ? await anonymous.get(path) : await anonymous.post(path, {});
      statuses[`${operation.method} ${operation.path}`] = res.status;
    }
    expect(Object.entries(statuses).filter(([, status]) => status !== 401)).toEqual([]);
    expectConforming();
  });

  it("email verification, password reset and account settings", async () => {
    const { b, email } = await signedUp("Account");
    expect((await b.post("/send-verification-email", { email: 5 })).status).toBe(400);
    expect((await b.post("/send-verification-email", { email })).status).toBe(200);
    const verify = (await lastMail(b, email, "email-verification")).links.find((link) => link.includes("/verify-email"))!;
    expect((await b.get("/verify-email?token=not-a-token")).status).toBeGreaterThanOrEqual(400);
    const verified = await b.request(verify);
    expect([200, 302]).toContain(verified.status);
    expect((await b.get(`/verify-email?token=x&callbackURL=${encodeURIComponent("/dashboard")}`)).status).toBe(302);

    expect((await b.post("/forget-password", { email: "not an address" })).status).toBe(400);
    expect((await b.post("/request-password-reset", { email: "not an address" })).status).toBe(400);
    // Unknown and known addresses are answered alike; the one reset link below is the known address's.
    expect((await b.post("/forget-password", { email: uniqueEmail("unknown") })).status).toBe(200);
    expect((await b.post("/request-password-reset", { email, redirectTo: "/reset" })).status).toBe(200);
    const resetLink = (await lastMail(b, email, "password-reset")).links.find((link) => link.includes("/reset-password/"))!;
    const token = new URL(resetLink).pathname.split("/").pop()!;
    expect((await b.get(`/reset-password/${token}`)).status).toBe(400);
    expect((await b.request(resetLink)).status).toBe(302);
    expect((await b.post("/reset-password", { newPassword: "another-password-1", token: "wrong" })).status).toBe(400);
    const reset = await b.post("/reset-password", { newPassword: "another-password-1", token });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);

    const { b: user } = await signedUp("Settings");
    expect((await user.post("/update-user", { name: 5 })).status).toBe(400);
    expect((await user.post("/update-user", { name: "Renamed" })).status).toBe(200);
    expect((await user.post("/change-email", { newEmail: 5 })).status).toBe(400);
    expect((await user.post("/change-email", { newEmail: uniqueEmail("changed") })).status).toBe(200);
    expect((await user.post("/change-password", { currentPassword: "wrong-password", newPassword: "another-password-1" })).status).toBe(400);
    expect((await user.post("/change-password", { currentPassword: PASSWORD, newPassword: "another-password-1" })).status).toBe(200);
    expect((await user.get("/list-accounts")).status).toBe(200);
    expect((await user.post("/unlink-account", { providerId: "credential" })).status).toBe(400);
    expect((await user.post("/get-access-token", { providerId: "google" })).status).toBe(400);
    expect((await user.post("/refresh-token", { providerId: "google" })).status).toBe(400);
    expect((await user.get("/account-info?providerId=google")).status).toBe(400);

    const { b: leaving, email: leavingEmail } = await signedUp("Leaving");
    expect((await leaving.post("/delete-user", { password: "wrong-password" })).status).toBe(400);
    expect((await leaving.post("/delete-user", { password: PASSWORD })).status).toBe(200);
    const confirm = (await lastMail(leaving, leavingEmail, "delete-account")).links.find((link) => link.includes("/delete-user/callback"))!;
    expect((await leaving.get("/delete-user/callback?token=wrong")).status).toBeGreaterThanOrEqual(400);
    expect([200, 302]).toContain((await leaving.request(confirm)).status);
    expectConforming();
  });

  it("two-factor enrolment, the challenge and trusted devices", async () => {
    const { b, email } = await signedUp("Twofa");
    expect((await b.post("/two-factor/enable", { password: "wrong-password" })).status).toBe(400);
    const enabled = await b.post("/two-factor/enable", { password: PASSWORD });
    expect(enabled.status).toBe(200);
    const { totpURI, backupCodes } = enabled.body;
    expect((await b.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
    expect((await b.post("/two-factor/get-totp-uri", { password: PASSWORD })).status).toBe(200);
    expect((await b.post("/two-factor/get-totp-uri", { password: "wrong-password" })).status).toBe(400);
    expect((await b.post("/two-factor/generate-backup-codes", { password: "wrong-password" })).status).toBe(400);
    const codes = (await b.post("/two-factor/generate-backup-codes", { password: PASSWORD })).body.backupCodes as string[];
    expect(codes.length).toBeGreaterThan(0);
    expect(backupCodes.length).toBeGreaterThan(0);

    const challenged = browser();
    expect((await challenged.post("/two-factor/send-otp")).status).toBe(401);
    expect((await challenged.post("/two-factor/verify-otp", { code: "123456" })).status).toBe(401);
    expect((await challenged.post("/two-factor/verify-backup-code", { code: "nope" })).status).toBe(401);
    expect((await challenged.post("/two-factor/verify-totp", { code: "123456" })).status).toBe(401);
    expect((await challenged.post("/sign-in/email", { email, password: PASSWORD })).body.twoFactorRedirect).toBe(true);
    expect((await challenged.post("/two-factor/send-otp")).status).toBe(200);
    const otp = /\b(\d{6})\b/.exec((await lastMail(challenged, email, "sign-in-code")).text)![1]!;
    expect((await challenged.post("/two-factor/verify-otp", { code: otp, trustDevice: true })).status).toBe(200);

    const second = browser();
    expect((await second.post("/sign-in/email", { email, password: PASSWORD })).body.twoFactorRedirect).toBe(true);
    expect((await second.post("/two-factor/verify-backup-code", { code: codes[0] })).status).toBe(200);

    const devices = (await challenged.get("/two-factor/list-trusted-devices")).body.devices as { id: string }[];
    expect(devices.length).toBe(1);
    expect((await challenged.post("/two-factor/revoke-trusted-device", { id: "" })).status).toBe(400);
    expect((await challenged.post("/two-factor/revoke-trusted-device", { id: devices[0]!.id })).status).toBe(200);
    expect((await b.post("/two-factor/disable", { password: "wrong-password" })).status).toBe(400);
    expect((await b.post("/two-factor/disable", { password: PASSWORD })).status).toBe(200);
    expectConforming();
  });

  it("passkeys: registration, sign-in, the second factor, rename and delete", async () => {
    const { b, email } = await signedUp("Passkey");
    const device = new SoftwareAuthenticator(social.platform.origin, new URL(social.platform.origin).hostname);
    expect((await b.get("/passkey/generate-register-options?authenticatorAttachment=floppy")).status).toBe(400);
    const options = await b.get("/passkey/generate-register-options");
    expect(options.status).toBe(200);
    const created = await b.post("/passkey/verify-registration", { response: device.create(options.body), name: "Laptop" });
    expect(created.status).toBe(200);
    expect((await b.get("/passkey/list-user-passkeys")).body).toHaveLength(1);
    expect((await b.post("/passkey/update-passkey", { id: "nope", name: "x" })).status).toBe(404);
    expect((await b.post("/passkey/update-passkey", { id: created.body.id, name: "Work" })).status).toBe(200);

    const anonymous = browser();
    expect((await anonymous.get("/passkey/generate-authenticate-options?probe=%00")).status).toBe(400);
    expect((await anonymous.post("/passkey/verify-authentication", { response: { id: "x" } })).status).toBe(400);
    expect((await anonymous.post("/passkey/generate-authenticate-options", { email: 5 })).status).toBe(400);
    expect((await anonymous.post("/passkey/generate-authenticate-options", { email })).status).toBe(200);
    const auth = await anonymous.get("/passkey/generate-authenticate-options");
    expect(auth.status).toBe(200);
    expect((await anonymous.post("/passkey/verify-authentication", { response: device.get(auth.body) })).status).toBe(200);

    const enabled = await b.post("/two-factor/enable", { password: PASSWORD });
    expect((await b.post("/two-factor/verify-totp", { code: codeFor(enabled.body.totpURI) })).status).toBe(200);
    const challenged = browser();
    expect((await challenged.post("/two-factor/verify-passkey", { response: { id: "x" } })).status).toBe(401);
    expect((await challenged.post("/sign-in/email", { email, password: PASSWORD })).body.twoFactorMethods).toContain("passkey");
    const second = await challenged.get("/passkey/generate-authenticate-options");
    expect((await challenged.post("/two-factor/verify-passkey", { response: device.get(second.body) })).status).toBe(200);

    expect((await b.post("/passkey/delete-passkey", { id: "nope" })).status).toBe(404);
    expect((await b.post("/passkey/delete-passkey", { id: created.body.id })).status).toBe(200);
    expectConforming();
  });

  it("API keys: create, read, list, change, verify, delete, sweep", async () => {
    const { b } = await signedUp("Keys");
    expect((await b.post("/api-key/create", { name: "x".repeat(40) })).status).toBe(400);
    const created = await b.post("/api-key/create", { name: "ci", expiresIn: 86_400, metadata: { a: 1 }, permissions: { organization: ["update"] } });
    expect(created.status).toBe(200);
    expect((await b.get(`/api-key/get?id=${created.body.id}`)).status).toBe(200);
    expect((await b.get("/api-key/get?id=nope")).status).toBe(404);
    expect((await b.get("/api-key/list?limit=1&sortBy=name")).status).toBe(200);
    expect((await b.get("/api-key/list?organizationId=nope")).status).toBe(403);
    expect((await b.post("/api-key/update", { keyId: created.body.id, name: "deploy" })).status).toBe(200);
    expect((await b.post("/api-key/update", { keyId: created.body.id })).status).toBe(400);
    const anonymous = browser();
    expect((await anonymous.post("/api-key/verify", { key: created.body.key })).status).toBe(200);
    expect((await anonymous.post("/api-key/verify", { key: "" })).status).toBe(400);
    expect((await b.post("/api-key/delete-all-expired-api-keys")).status).toBe(200);
    expect((await b.post("/api-key/delete", { keyId: created.body.id })).status).toBe(200);
    expect((await b.post("/api-key/delete", { keyId: created.body.id })).status).toBe(404);
    expectConforming();
  });

  it("organizations, members and invitations", async () => {
    const owner = await signedUp("Owner");
    const invitee = await signedUp("Invitee");
    const slug = `org-${Date.now().toString(36)}`;
    const o = owner.b;
    expect((await o.post("/organization/create", { name: "", slug })).status).toBe(400);
    const created = await o.post("/organization/create", { name: "Acme", slug, metadata: { plan: "pro" } });
    expect(created.status).toBe(200);
    const organizationId = created.body.id as string;
    expect((await o.post("/organization/create", { name: "Acme", slug })).status).toBeGreaterThanOrEqual(400);
    expect((await o.post("/organization/update", { data: { name: "Acme 2" }, organizationId })).status).toBe(200);
    expect((await o.post("/organization/update", { data: { name: "" }, organizationId })).status).toBe(400);
    expect((await o.post("/organization/set-active", { organizationId })).status).toBe(200);
    expect((await o.post("/organization/set-active", { organizationId: "" })).status).toBe(400);
    expect((await o.get(`/organization/get-full-organization?organizationId=${organizationId}`)).status).toBe(200);
    expect((await o.get("/organization/get-full-organization?organizationId=missing")).status).toBeGreaterThanOrEqual(400);
    expect((await o.get(`/organization/get-organization?organizationSlug=${slug}`)).status).toBe(200);
    expect((await o.get("/organization/get-organization?organizationId=missing")).status).toBeGreaterThanOrEqual(400);
    expect((await o.get("/organization/list")).status).toBe(200);
    expect((await o.get("/organization/list?probe=%00")).status).toBe(400);
    expect((await o.get("/organization/list-members")).status).toBe(200);
    expect((await o.get("/organization/list-members?limit=0")).status).toBe(400);
    expect((await o.get("/organization/get-active-member")).status).toBe(200);
    expect((await o.get("/organization/get-active-member-role")).status).toBe(200);
    expect((await o.get(`/organization/get-active-member-role?userId=${invitee.id}`)).status).toBe(400);
    expect((await invitee.b.get(`/organization/get-active-member?organizationId=${organizationId}`)).status).toBeGreaterThanOrEqual(400);
    expect((await o.post("/organization/check-slug", { slug: `free-${slug}` })).status).toBe(200);
    expect((await o.post("/organization/check-slug", { slug })).status).toBeGreaterThanOrEqual(400);
    expect((await o.post("/organization/has-permission", { permissions: { member: ["create"] } })).status).toBe(200);
    expect((await o.post("/organization/has-permission", {})).status).toBe(400);
    const role = await o.post("/organization/create-role", { role: "support", permission: { member: ["update"] } });
    expect(role.status).toBe(200);
    expect((await o.post("/organization/create-role", { role: "owner", permission: {} })).status).toBe(400);
    expect((await o.get("/organization/list-roles")).status).toBe(200);
    expect((await o.get("/organization/list-roles?organizationId=missing")).status).toBe(403);
    expect((await o.get(`/organization/get-role?roleId=${role.body.roleData.id}`)).status).toBe(200);
    expect((await o.get("/organization/get-role?roleName=missing")).status).toBe(400);
    expect((await o.post("/organization/update-role", { roleName: "support", data: { permission: { invitation: ["create"] } } })).status).toBe(200);
    expect((await o.post("/organization/update-role", { roleName: "support", data: { permission: { billing: ["read"] } } })).status).toBe(400);
    expect((await o.post("/organization/delete-role", { roleName: "admin" })).status).toBe(400);
    expect((await o.post("/organization/delete-role", { roleName: "support" })).status).toBe(200);

    expect((await o.post("/organization/invite-member", { email: "not an address", role: "member" })).status).toBe(400);
    const invited = await o.post("/organization/invite-member", { email: invitee.email, role: "member" });
    expect(invited.status).toBe(200);
    expect((await invitee.b.get(`/organization/get-invitation?id=${invited.body.id}`)).status).toBe(200);
    expect((await invitee.b.get("/organization/get-invitation?id=missing")).status).toBeGreaterThanOrEqual(400);
    expect((await o.get(`/organization/list-invitations?organizationId=${organizationId}`)).status).toBe(200);
    expect((await invitee.b.get(`/organization/list-invitations?organizationId=${organizationId}`)).status).toBeGreaterThanOrEqual(400);
    // Invitations are listed to a verified address only: the invitee verifies hers, so the listed one is checked.
    expect((await invitee.b.post("/send-verification-email", { email: invitee.email })).status).toBe(200);
    const verify = (await lastMail(invitee.b, invitee.email, "email-verification")).links.find((link) => link.includes("/verify-email"))!;
    expect([200, 302]).toContain((await invitee.b.request(verify)).status);
    const listed = await invitee.b.get("/organization/list-user-invitations");
    expect(listed.body.map((i: { id: string }) => i.id)).toEqual([invited.body.id]);
    expect((await invitee.b.get("/organization/list-user-invitations?probe=%00")).status).toBe(400);
    expect((await invitee.b.post("/organization/accept-invitation", { invitationId: "missing" })).status).toBeGreaterThanOrEqual(400);
    const accepted = await invitee.b.post("/organization/accept-invitation", { invitationId: invited.body.id });
    expect(accepted.status).toBe(200);

    const rejecter = await signedUp("Rejecter");
    const toReject = await o.post("/organization/invite-member", { email: rejecter.email, role: "member" });
    expect((await rejecter.b.post("/organization/reject-invitation", { invitationId: "missing" })).status).toBeGreaterThanOrEqual(400);
    expect((await rejecter.b.post("/organization/reject-invitation", { invitationId: toReject.body.id })).status).toBe(200);
    const toCancel = await o.post("/organization/invite-member", { email: uniqueEmail("cancelled"), role: "member" });
    expect((await o.post("/organization/cancel-invitation", { invitationId: "missing" })).status).toBeGreaterThanOrEqual(400);
    expect((await o.post("/organization/cancel-invitation", { invitationId: toCancel.body.id })).status).toBe(200);

    const memberId = accepted.body.member.id as string;
    expect((await o.post("/organization/update-member-role", { memberId, role: "admin", organizationId })).status).toBe(200);
    expect((await o.post("/organization/update-member-role", { memberId: "missing", role: "admin", organizationId })).status).toBeGreaterThanOrEqual(400);
    expect((await invitee.b.post("/organization/leave", { organizationId })).status).toBe(200);
    expect((await invitee.b.post("/organization/leave", { organizationId })).status).toBeGreaterThanOrEqual(400);
    const third = await signedUp("Third");
    const again = await o.post("/organization/invite-member", { email: third.email, role: "member" });
    await third.b.post("/organization/accept-invitation", { invitationId: again.body.id });
    expect((await o.post("/organization/remove-member", { memberIdOrEmail: third.email, organizationId })).status).toBe(200);
    expect((await o.post("/organization/remove-member", { memberIdOrEmail: "missing@example.com", organizationId })).status).toBeGreaterThanOrEqual(400);
    expect((await invitee.b.post("/organization/delete", { organizationId })).status).toBeGreaterThanOrEqual(400);
    expect((await o.post("/organization/delete", { organizationId })).status).toBe(200);
    expectConforming();
  });

  it("teams", async () => {
    const owner = await signedUp("TeamOwner");
    const stranger = await signedUp("TeamStranger");
    const o = owner.b;
    const created = await o.post("/organization/create", { name: "Teams", slug: `teams-${Date.now().toString(36)}` });
    const organizationId = created.body.id as string;
    expect((await o.post("/organization/create-team", { name: "" })).status).toBe(400);
    const team = await o.post("/organization/create-team", { name: "Looms", organizationId });
    expect(team.status).toBe(200);
    const teamId = team.body.id as string;
    expect((await o.post("/organization/create-team", { name: "Looms", organizationId })).status).toBe(400);
    expect((await o.get(`/organization/list-teams?organizationId=${organizationId}`)).status).toBe(200);
    expect((await stranger.b.get(`/organization/list-teams?organizationId=${organizationId}`)).status).toBe(403);
    expect((await o.post("/organization/update-team", { teamId, data: { name: "Mills" } })).status).toBe(200);
    expect((await stranger.b.post("/organization/update-team", { teamId, data: { name: "Mine" } })).status).toBe(400);
    expect((await o.post("/organization/add-team-member", { teamId, userId: owner.id })).status).toBe(200);
    expect((await o.post("/organization/add-team-member", { teamId, userId: stranger.id })).status).toBe(403);
    expect((await o.get(`/organization/list-team-members?teamId=${teamId}`)).status).toBe(200);
    expect((await stranger.b.get("/organization/list-team-members")).status).toBe(400);
    expect((await o.post("/organization/set-active-team", { teamId })).status).toBe(200);
    expect((await o.post("/organization/set-active-team", { teamId: null })).status).toBe(200);
    expect((await stranger.b.post("/organization/set-active-team", { teamId })).status).toBe(400);
    expect((await o.get("/organization/list-user-teams")).status).toBe(200);
    expect((await stranger.b.get(`/organization/list-user-teams?organizationId=${organizationId}`)).status).toBe(403);
    expect((await o.post("/organization/remove-team-member", { teamId, userId: owner.id })).status).toBe(200);
    expect((await o.post("/organization/remove-team-member", { teamId, userId: owner.id })).status).toBe(403);
    expect((await o.post("/organization/remove-team", { teamId })).status).toBe(200);
    expect((await o.post("/organization/remove-team", { teamId })).status).toBe(400);
    expectConforming();
  });

  it("the admin area", async () => {
    const { id: adminId, email: adminEmail } = await signedUp("Admin");
    await social.platform.services.identity.deps.store.updateUser(adminId, { role: "admin" });
    const a = browser();
    expect((await a.post("/sign-in/email", { email: adminEmail, password: PASSWORD })).status).toBe(200);
    const plain = await signedUp("Plain");
    const target = await signedUp("Target");

    expect((await plain.b.get("/admin/list-users")).status).toBe(403);
    expect((await a.get("/admin/list-users?limit=5")).status).toBe(200);
    expect((await a.get(`/admin/get-user?id=${target.id}`)).status).toBe(200);
    expect((await a.get("/admin/get-user?id=missing")).status).toBe(404);
    expect((await a.post("/admin/create-user", { email: uniqueEmail("created"), password: PASSWORD, name: "Created", role: "user" })).status).toBe(200);
    expect((await a.post("/admin/create-user", { email: target.email, password: PASSWORD, name: "Dup", role: "user" })).status).toBeGreaterThanOrEqual(400);
    expect((await a.post("/admin/set-role", { userId: target.id, role: "user" })).status).toBe(200);
    expect((await a.post("/admin/update-user", { userId: target.id, data: { name: "Renamed" } })).status).toBe(200);
    expect((await a.post("/admin/update-user", { userId: target.id, data: {} })).status).toBe(400);
    expect((await a.post("/admin/set-role", { userId: "missing", role: "user" })).status).toBeGreaterThanOrEqual(400);
    expect((await a.post("/admin/set-user-password", { userId: target.id, newPassword: "another-password-1" })).status).toBe(200);
    expect((await a.post("/admin/set-user-password", { userId: "missing", newPassword: "another-password-1" })).status).toBeGreaterThanOrEqual(400);
    const sessions = await a.post("/admin/list-user-sessions", { userId: target.id });
    expect(sessions.status).toBe(200);
    expect((await a.post("/admin/list-user-sessions", {})).status).toBe(400);
    expect((await a.post("/admin/revoke-user-session", { sessionToken: sessions.body.sessions[0].token })).status).toBe(200);
    expect((await a.post("/admin/revoke-user-session", {})).status).toBe(400);
    expect((await a.post("/admin/revoke-user-sessions", { userId: target.id })).status).toBe(200);
    expect((await a.post("/admin/revoke-user-sessions", {})).status).toBe(400);
    expect((await a.post("/admin/ban-user", { userId: target.id, banReason: "spam" })).status).toBe(200);
    expect((await a.post("/admin/ban-user", { userId: "missing" })).status).toBeGreaterThanOrEqual(400);
    expect((await a.post("/admin/unban-user", { userId: target.id })).status).toBe(200);
    expect((await a.post("/admin/unban-user", {})).status).toBe(400);
    expect((await a.post("/admin/has-permission", { permissions: { user: ["list"] } })).status).toBe(200);
    expect((await a.post("/admin/has-permission", {})).status).toBe(400);
    expect((await a.get("/admin/list-audit-events?limit=5")).status).toBe(200);
    expect((await a.get("/admin/list-audit-events?since=yesterday")).status).toBe(400);
    expect((await a.get("/admin/list-roles")).status).toBe(200);
    expect((await plain.b.get("/admin/list-roles")).status).toBe(403);
    expect((await a.post("/admin/stop-impersonating")).status).toBeGreaterThanOrEqual(400);
    expect((await a.post("/admin/impersonate-user", { userId: "missing" })).status).toBeGreaterThanOrEqual(400);
    expect((await a.post("/admin/impersonate-user", { userId: plain.id })).status).toBe(200);
    // Acting as the user, the admin changes none of the user's passkeys.
    expect((await a.post("/passkey/update-passkey", { id: "any", name: "Mine now" })).status).toBe(403);
    expect((await a.post("/passkey/delete-passkey", { id: "any" })).status).toBe(403);
    expect((await a.post("/admin/stop-impersonating")).status).toBe(200);
    expect((await a.post("/admin/remove-user", { userId: target.id })).status).toBe(200);
    expect((await a.post("/admin/remove-user", { userId: target.id })).status).toBeGreaterThanOrEqual(400);
    expectConforming();
  });

  it("social sign-in, linking and the provider's tokens", async () => {
    const b = browser();
    expect((await b.get("/social-providers")).status).toBe(200);
    expect((await b.get("/social-providers?probe=%00")).status).toBe(400);
    expect((await b.post("/sign-in/social", { provider: "nope" })).status).toBeGreaterThanOrEqual(400);
    social.idp.signInAs(social.anAccount("openapi"));
    const started = await b.post("/sign-in/social", { provider: "google", callbackURL: "/dashboard" });
    expect(started.status).toBe(200);
    await b.follow(started.body.url);
    const [google] = (await b.get("/list-accounts")).body as { id: string; providerId: string }[];
    expect(google?.providerId).toBe("google");
    expect((await b.post("/get-access-token", { accountId: google!.id })).status).toBe(200);
    expect((await b.post("/refresh-token", { accountId: google!.id })).status).toBe(200);
    expect((await b.get(`/account-info?accountId=${google!.id}`)).status).toBe(200);
    expect((await b.get("/callback/google?state=forged&code=x")).status).toBe(302);
    expect((await b.get("/callback/google?probe=%00")).status).toBe(400);
    const form = await b.request(`${social.platform.baseURL}/callback/google`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "state=s&code=c",
    });
    expect(form.status).toBe(302);
    expect(
      (
        await b.request(`${social.platform.baseURL}/callback/google?probe=%00`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "state=s",
        })
      ).status,
    ).toBe(400);

    const { b: linker, email: linkerEmail } = await signedUp("Linker");
    expect((await linker.post("/link-social", { provider: "nope" })).status).toBeGreaterThanOrEqual(400);
    social.idp.signInAs(social.anAccount("linked", { email: linkerEmail }));
    const link = await linker.post("/link-social", { provider: "google", callbackURL: "/settings" });
    expect(link.status).toBe(200);
    await linker.follow(link.body.url);
    const linked = ((await linker.get("/list-accounts")).body as { providerId: string }[]).find((account) => account.providerId === "google");
    expect(linked).toBeDefined();
    expect((await linker.post("/link-social", { provider: "google", callbackURL: "/settings" })).status).toBe(400);
    expect((await linker.post("/unlink-account", { providerId: "google" })).status).toBe(200);
    expectConforming();
  });

  it("mail sign-in: magic links and mailed codes", async () => {
    const b = browser();
    expect((await b.get("/mail-sign-in-options")).status).toBe(200);
    expect((await b.get("/mail-sign-in-options?probe=%00")).status).toBe(400);
    const { email } = await signedUp("Mailer");

    const m = browser();
    expect((await m.post("/sign-in/magic-link", { email, callbackURL: "/dashboard" })).status).toBe(200);
    expect((await m.post("/sign-in/magic-link", { email: "not-an-address" })).status).toBe(400);
    const link = (await lastMail(m, email, "magic-link")).links.find((l) => l.includes("/magic-link/verify"))!;
    expect((await m.request(link)).status).toBe(302);
    expect((await m.get("/magic-link/verify?token=forged")).status).toBe(400);
    const first = (await lastMail(m, email, "magic-link")).createdAt;
    expect((await m.post("/sign-in/magic-link", { email })).status).toBe(200);
    const bare = new URL((await lastMail(m, email, "magic-link", first)).links.find((l) => l.includes("/magic-link/verify"))!);
    bare.searchParams.delete("callbackURL");
    expect((await m.request(bare.href)).status).toBe(200);

    const o = browser();
    expect((await o.post("/email-otp/send-verification-otp", { email, type: "sign-in" })).status).toBe(200);
    expect((await o.post("/email-otp/send-verification-otp", { email, type: "change-email" })).status).toBe(400);
    const signIn = await mailedCode(o, email, "Your sign-in code");
    expect((await o.post("/email-otp/check-verification-otp", { email, type: "sign-in", otp: signIn.code })).status).toBe(200);
    expect((await o.post("/email-otp/check-verification-otp", { email, type: "sign-in", otp: "not-it" })).status).toBe(400);
    expect((await o.post("/sign-in/email-otp", { email, otp: signIn.code })).status).toBe(200);
    expect((await o.post("/sign-in/email-otp", { email, otp: signIn.code })).status).toBe(400);
    // The link took the password of the unverified account; a first one is set again.
    expect((await o.post("/set-password", { newPassword: "first-password-1" })).status).toBe(200);
    expect((await o.post("/set-password", { newPassword: "first-password-1" })).status).toBe(400);

    // The link verified the first address: another, unverified, user verifies by code.
    const { b: unverified, email: unverifiedEmail } = await signedUp("Unverified");
    expect((await unverified.post("/email-otp/send-verification-otp", { email: unverifiedEmail, type: "email-verification" })).status).toBe(200);
    const verification = await mailedCode(unverified, unverifiedEmail, "Verify your email address");
    expect((await unverified.post("/email-otp/verify-email", { email: unverifiedEmail, otp: "not-it" })).status).toBe(400);
    expect((await unverified.post("/email-otp/verify-email", { email: unverifiedEmail, otp: verification.code })).status).toBe(200);

    expect((await o.post("/forget-password/email-otp", { email: "not-an-address" })).status).toBe(400);
    expect((await o.post("/forget-password/email-otp", { email })).status).toBe(200);
    // Another address: the first has had its mails for this window (the per-recipient limit).
    expect((await o.post("/email-otp/request-password-reset", { email: "not-an-address" })).status).toBe(400);
    expect((await o.post("/email-otp/request-password-reset", { email: unverifiedEmail })).status).toBe(200);
    const reset = await mailedCode(o, unverifiedEmail, "Reset your password");
    expect((await o.post("/email-otp/reset-password", { email: unverifiedEmail, otp: "not-it", password: "new-password-456" })).status).toBe(400);
    expect((await o.post("/email-otp/reset-password", { email: unverifiedEmail, otp: reset.code, password: "new-password-456" })).status).toBe(200);
    expectConforming();
  });

  it("generic providers: /sign-in/oauth2, /oauth2/callback/{providerId}, /oauth2/link", async () => {
    const b = browser();
    expect((await b.post("/sign-in/oauth2", { providerId: "nope" })).status).toBe(404);
    social.idp.signInAs(social.anAccount("openapi-generic"));
    const started = await b.post("/sign-in/oauth2", { providerId: GENERIC_OIDC.id, callbackURL: "/dashboard" });
    expect(started.status).toBe(200);
    await b.follow(started.body.url);
    expect((await b.get(`/oauth2/callback/${GENERIC_OIDC.id}?state=forged&code=x`)).status).toBe(302);
    expect((await b.get(`/oauth2/callback/${GENERIC_OIDC.id}?probe=%00`)).status).toBe(400);

    const { b: linker, email } = await signedUp("Genericlinker");
    expect((await linker.post("/oauth2/link", { providerId: "nope", callbackURL: "/settings" })).status).toBe(404);
    social.idp.signInAs(social.anAccount("openapi-generic-linked", { email }));
    const link = await linker.post("/oauth2/link", { providerId: GENERIC_OAUTH2.id, callbackURL: "/settings" });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expectConforming();
  });

  it("single sign-on providers: register, list, read, change, delete", async () => {
    const owner = await signedUp("Ssoowner");
    const o = owner.b;
    const slug = `sso-${Date.now().toString(36)}`;
    const created = await o.post("/organization/create", { name: "Sso", slug });
    expect(created.status).toBe(200);
    const providerId = `acme-${Date.now().toString(36)}`;
    const oidcConfig = { clientId: social.idp.clientId, clientSecret: social.idp.clientSecret };
    expect((await o.post("/sso/register", { providerId, issuer: social.idp.issuer, domain: "not a domain", oidcConfig })).status).toBe(400);
    const registered = await o.post("/sso/register", { providerId, issuer: social.idp.issuer, domain: `${slug}.example.com`, oidcConfig });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(JSON.stringify(registered.body)).not.toContain(social.idp.clientSecret);
    expect((await o.get("/sso/providers")).status).toBe(200);
    expect((await o.get("/sso/providers?organizationId=")).status).toBe(400);
    expect((await o.get(`/sso/get-provider?providerId=${providerId}`)).status).toBe(200);
    expect((await o.get("/sso/get-provider?providerId=nobody")).status).toBe(404);
    const started = await o.post("/sign-in/sso", { providerId, callbackURL: "/" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await o.post("/sign-in/sso", { email: "ada@nobody.example", callbackURL: "/" })).status).toBe(400);
    expect((await o.get(`/sso/callback/${providerId}?state=forged&code=x`)).status).toBe(302);
    expect((await o.get(`/sso/callback/${providerId}?probe=%00`)).status).toBe(400);
    expect((await o.post("/sso/test-provider", { providerId })).status).toBe(200);
    expect((await o.post("/sso/test-provider", { providerId: "nobody" })).status).toBe(404);
    // A SAML provider: our SP metadata, the IdP's form POST to the ACS, the browser's GET after it.
    const samlIdp = await createSamlIdp();
    const samlId = `saml-${providerId}`;
    const saml = await o.post("/sso/register", {
      providerId: samlId,
      issuer: samlIdp.entityId,
      domain: `saml-${slug}.example.com`,
      samlConfig: { idpMetadata: { metadata: samlIdp.metadataXml() } },
    });
    expect(saml.status, JSON.stringify(saml.body)).toBe(200);
    expect(
      (
        await o.post("/sso/register", {
          providerId: `${samlId}-bad`,
          issuer: samlIdp.entityId,
          domain: `bad-${slug}.example.com`,
          samlConfig: { idpMetadata: { metadata: "<x/>" } },
        })
      ).status,
    ).toBe(400);
    expect((await o.get(`/sso/saml2/sp/metadata?providerId=${samlId}`)).status).toBe(200);
    expect((await o.get("/sso/saml2/sp/metadata?providerId=nobody")).status).toBe(404);
    const acs = (body: string) =>
      o.request(`${social.platform.baseURL}/sso/saml2/sp/acs/${samlId}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    expect((await acs("SAMLResponse=abcd&RelayState=x")).status).toBe(302);
    expect(
      (
        await o.request(`${social.platform.baseURL}/sso/saml2/sp/acs/${samlId}?probe=%00`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "x=1",
        })
      ).status,
    ).toBe(400);
    expect((await o.get(`/sso/saml2/callback/${samlId}?handoff=forged`)).status).toBe(302);
    expect((await o.get(`/sso/saml2/callback/${samlId}?probe=%00`)).status).toBe(400);
    await samlIdp.stop();
    expect((await o.post("/sso/update-provider", { providerId, enabled: false })).status).toBe(200);
    expect((await o.post("/sso/update-provider", { providerId })).status).toBe(400);
    expect((await o.post("/sso/delete-provider", { providerId })).status).toBe(200);
    expect((await o.post("/sso/delete-provider", { providerId })).status).toBe(404);
    expectConforming();
  });

  it("verified domains: the organization's routes and better-auth's provider routes", async () => {
    const { b, id } = await signedUp("Domainowner");
    const org = await b.post("/organization/create", { name: "Domains", slug: `domains-${Date.now().toString(36)}` });
    const organizationId = org.body.id as string;
    const name = `openapi-${Date.now().toString(36)}.example`;
    expect((await b.post("/organization/claim-domain", { organizationId, domain: "co.uk" })).status).toBe(400);
    const claim = await b.post("/organization/claim-domain", { organizationId, domain: name });
    expect(claim.status).toBe(200);
    expect((await b.get("/organization/list-domains?organizationId=nobody")).status).toBe(403);
    expect((await b.get(`/organization/list-domains?organizationId=${organizationId}`)).status).toBe(200);
    expect((await b.post("/organization/verify-domain", { organizationId, domainId: claim.body.id })).status).toBe(502);
    dns.setTxt(claim.body.record.name, [claim.body.record.value]);
    expect((await b.post("/organization/verify-domain", { organizationId, domainId: claim.body.id })).status).toBe(200);
    expect((await b.post("/organization/set-domain-auto-join", { organizationId, domainId: "nothing", role: "member" })).status).toBe(404);
    expect((await b.post("/organization/set-domain-auto-join", { organizationId, domainId: claim.body.id, role: "member" })).status).toBe(200);
    expect((await b.post("/organization/remove-domain", { organizationId, domainId: "nothing" })).status).toBe(404);
    expect((await b.post("/organization/remove-domain", { organizationId, domainId: claim.body.id })).status).toBe(200);

    const provider = aProvider({ organizationId, userId: id, domain: `idp-${name}` });
    await social.platform.services.sso.deps.store.insertProvider(provider);
    expect((await b.post("/sso/request-domain-verification", { providerId: "nobody" })).status).toBe(404);
    const requested = await b.post("/sso/request-domain-verification", { providerId: provider.providerId });
    expect(requested.status).toBe(200);
    expect((await b.post("/sso/verify-domain", { providerId: "nobody" })).status).toBe(404);
    dns.setTxt(`_auth-platform-challenge.${provider.domain}`, [`auth-platform-domain-verification=${requested.body.domainVerificationToken}`]);
    expect((await b.post("/sso/verify-domain", { providerId: provider.providerId })).status).toBe(200);
    expect((await social.platform.services.sso.deps.store.getProvider(provider.providerId))?.domainVerified).toBe(true);
    expectConforming();
  });

  it("SCIM: the owner's token routes and /scim/v2 with the bearer", async () => {
    const owner = await signedUp("Scimowner");
    const o = owner.b;
    const created = await o.post("/organization/create", { name: "Scim", slug: `scim-${Date.now().toString(36)}` });
    const organizationId = created.body.id;
    expect((await o.post("/organization/scim/generate-token", { organizationId, name: "" })).status).toBe(400);
    const generated = await o.post("/organization/scim/generate-token", { organizationId, name: "Okta" });
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    expect((await o.get(`/organization/scim/list-tokens?organizationId=${organizationId}`)).status).toBe(200);
    expect((await o.get("/organization/scim/list-tokens?organizationId=")).status).toBe(400);
    const scim = (method: string, path: string, token: string, body?: unknown) =>
      o.request(`${social.platform.baseURL}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const token = generated.body.token as string;
    const user = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `scim-${Date.now().toString(36)}@example.com` };
    const posted = await scim("POST", "/Users", token, user);
    expect(posted.status).toBe(201);
    const id = ((await posted.json()) as { id: string }).id;
    expect((await scim("POST", "/Users", token, user)).status).toBe(409);
    expect((await scim("GET", "/Users", token)).status).toBe(200);
    expect((await scim("GET", "/Users", "scim_wrong")).status).toBe(401);
    expect((await scim("GET", `/Users/${id}`, token)).status).toBe(200);
    expect((await scim("GET", "/Users/nobody", token)).status).toBe(404);
    expect((await scim("PUT", `/Users/${id}`, token, user)).status).toBe(200);
    expect((await scim("PUT", "/Users/nobody", token, user)).status).toBe(404);
    const patch = { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: "Scim" }] };
    expect((await scim("PATCH", `/Users/${id}`, token, patch)).status).toBe(200);
    expect((await scim("PATCH", `/Users/${id}`, token, { Operations: "no" })).status).toBe(400);
    expect((await scim("DELETE", `/Users/${id}`, token)).status).toBe(204);
    expect((await scim("DELETE", `/Users/${id}`, token)).status).toBe(404);
    expect((await o.post("/organization/scim/revoke-token", { organizationId, tokenId: generated.body.id })).status).toBe(200);
    expect((await o.post("/organization/scim/revoke-token", { organizationId, tokenId: generated.body.id })).status).toBe(404);
    expectConforming();
  });

  it("every operation of the document was answered with a checked success and a checked error", () => {
    const missing: string[] = [];
    for (const { key } of routes) {
      const statuses = [...(seen.get(key) ?? [])];
      if (!statuses.some((status) => status < 400)) missing.push(`${key}: no success`);
      if (!statuses.some((status) => status >= 400)) missing.push(`${key}: no error`);
    }
    expect(missing).toEqual([]);
  });
});
