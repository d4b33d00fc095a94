/**
 * Passkeys through the gateway: better-auth 1.7's passkey client (its $fetch-backed actions; the WebAuthn
 * ceremonies answered by a software authenticator, testing/software-authenticator.ts) and plain HTTP. What
 * a user depends on (register, list, rename, delete, sign in, answer a two-factor challenge) and what an
 * attacker tries: replayed and expired challenges, another origin or relying party, another user's
 * credential or ceremony, a counter that goes backwards, a deleted passkey, no session, a banned user.
 */
import { describe, expect, it } from "vitest";
import { passkeyAuthClient } from "@auth-platform/test-clients/passkey";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { dumpTable, stringsIn } from "../../testing/dumps.js";
import type { TestClient } from "../../testing/http.js";
import { SoftwareAuthenticator } from "../../testing/software-authenticator.js";
import { usePlatform } from "../../testing/use-platform.js";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { sign } from "../src/http/cookies.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

const platform = usePlatform();
const COOKIE = "better-auth.passkey";

const authenticator = () => new SoftwareAuthenticator(platform.origin, new URL(platform.origin).hostname);

/** Registers a passkey for the signed-in client with `device`; answers the verify-registration response. */
async function register(c: TestClient, device: SoftwareAuthenticator, name?: string) {
  const options = await c.get("/passkey/generate-register-options");
  expect(options.status).toBe(200);
  return c.post("/passkey/verify-registration", { response: device.create(options.body), name });
}

/** Signs in with `device` on a new client (no session): the verify-authentication response. */
async function signInWith(device: SoftwareAuthenticator, overrides: Parameters<SoftwareAuthenticator["get"]>[1] = {}, c = platform.client()) {
  const options = await c.get("/passkey/generate-authenticate-options");
  expect(options.status).toBe(200);
  const res = await c.post("/passkey/verify-authentication", { response: device.get(options.body, overrides) });
  return { c, res };
}

describe(`passkeys through the better-auth 1.7 passkey client (${backendLabel()})`, () => {
  it("registers, lists, renames and deletes a passkey, and signs in with it in between", async () => {
    const { cookies, customFetchImpl } = browserFetch(platform.origin);
    const client = passkeyAuthClient(platform.baseURL, customFetchImpl);
    const email = `passkey-${Date.now()}@example.com`;
    expect((await client.signUp.email({ name: "Ada", email, password: PASSWORD })).error).toBeNull();
    const device = authenticator();

    const options = await client.$fetch<any>("/passkey/generate-register-options", { method: "GET", query: { name: "ada-laptop" } });
    expect(options.error).toBeNull();
    expect(options.data).toMatchObject({ rp: { name: "Auth Platform", id: "127.0.0.1" }, user: { name: "ada-laptop", displayName: "Ada" }, attestation: "none" });
    expect(cookies.has(COOKIE)).toBe(true);
    const created = await client.$fetch<any>("/passkey/verify-registration", { method: "POST", body: { response: device.create(options.data), name: "Laptop" } });
    expect(created.error).toBeNull();
    expect(cookies.has(COOKIE)).toBe(false);
    expect(created.data).toMatchObject({
      name: "Laptop",
      counter: 0,
      deviceType: "multiDevice",
      backedUp: true,
      transports: "internal",
      credentialID: device.credentials[0]!.id.toString("base64url"),
    });

    const listed = await client.passkey.listUserPasskeys();
    expect(listed.error).toBeNull();
    expect(listed.data).toEqual([created.data]);

    const renamed = await client.passkey.updatePasskey({ id: created.data.id, name: "Work laptop" });
    expect(renamed.error).toBeNull();
    expect(renamed.data!.passkey).toMatchObject({ id: created.data.id, name: "Work laptop" });

    await client.signOut();
    const auth = await client.$fetch<any>("/passkey/generate-authenticate-options", { method: "GET" });
    expect(auth.data.allowCredentials ?? []).toEqual([]);
    const signedIn = await client.$fetch<any>("/passkey/verify-authentication", { method: "POST", body: { response: device.get(auth.data) } });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user.email).toBe(email.toLowerCase());
    expect((await client.getSession()).data?.user.email).toBe(email.toLowerCase());
    expect((await client.passkey.listUserPasskeys()).data![0]!.counter).toBe(1);

    const deleted = await client.passkey.deletePasskey({ id: created.data.id });
    expect(deleted.error).toBeNull();
    expect(deleted.data).toEqual({ status: true });
    expect((await client.passkey.listUserPasskeys()).data).toEqual([]);
  });

  it("answers the catalogue's codes the client knows", async () => {
    const { customFetchImpl } = browserFetch(platform.origin);
    const client = passkeyAuthClient(platform.baseURL, customFetchImpl);
    const listed = await client.passkey.listUserPasskeys();
    expect(listed.error).toMatchObject({ status: 401 });
    const noCeremony = await client.$fetch("/passkey/verify-authentication", { method: "POST", body: { response: { id: "x" } } });
    expect(noCeremony.error).toMatchObject({ status: 400, code: "CHALLENGE_NOT_FOUND", message: "Challenge not found" });
  });
});

describe(`passkey ceremonies under attack, over plain HTTP (${backendLabel()})`, () => {
  it("registration needs a session (401), and a fresh one", async () => {
    const anonymous = platform.client();
    expect((await anonymous.get("/passkey/generate-register-options")).status).toBe(401);
    expect((await anonymous.post("/passkey/verify-registration", { response: { id: "x" } })).status).toBe(401);

    const { c } = await aUser(platform);
    platform.clock.advance(86_400_000 + 1_000);
    const stale = await c.get("/passkey/generate-register-options");
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe("SESSION_IS_NOT_FRESH");
  });

  it("a registration ceremony is good once, for 5 minutes, for the session that started it", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    const options = await c.get("/passkey/generate-register-options");
    const cookie = c.cookies.get(COOKIE)!;
    expect((await c.post("/passkey/verify-registration", { response: device.create(options.body) })).status).toBe(200);
    // Replayed: the same cookie and a fresh answer to the same challenge.
    c.cookies.set(COOKIE, cookie);
    const replayed = await c.post("/passkey/verify-registration", { response: device.create(options.body) });
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe("CHALLENGE_NOT_FOUND");

    const expiring = await c.get("/passkey/generate-register-options");
    platform.clock.advance(301_000);
    const expired = await c.post("/passkey/verify-registration", { response: device.create(expiring.body) });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe("CHALLENGE_NOT_FOUND");

    // Another user's ceremony (its cookie carried into this user's session) registers nothing for either.
    const other = await aUser(platform);
    const theirs = await other.c.get("/passkey/generate-register-options");
    c.cookies.set(COOKIE, other.c.cookies.get(COOKIE)!);
    const foreign = await c.post("/passkey/verify-registration", { response: device.create(theirs.body) });
    expect(foreign.status).toBe(401);
    expect(foreign.body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY");
    expect((await other.c.get("/passkey/list-user-passkeys")).body).toEqual([]);
    expect((await c.get("/passkey/list-user-passkeys")).body).toHaveLength(1);
  });

  it("a ceremony answers only its own kind, and a forged cookie names none", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    expect((await register(c, device)).status).toBe(200);
    const registration = await c.get("/passkey/generate-register-options");
    const signInWithRegistration = await c.post("/passkey/verify-authentication", { response: device.get({ challenge: registration.body.challenge }) });
    expect(signInWithRegistration.status).toBe(400);
    expect(signInWithRegistration.body.code).toBe("CHALLENGE_NOT_FOUND");
    const authentication = await c.get("/passkey/generate-authenticate-options");
    const registerWithAuthentication = await c.post("/passkey/verify-registration", { response: device.create({ ...authentication.body, rp: {}, user: { id: "x" } }) });
    expect(registerWithAuthentication.status).toBe(400);
    expect(registerWithAuthentication.body.code).toBe("CHALLENGE_NOT_FOUND");

    const forger = platform.client();
    await forger.get("/passkey/generate-authenticate-options");
    const [token] = forger.cookies.get(COOKIE)!.split(".");
    forger.cookies.set(COOKIE, `${token}.forged-signature`);
    const forged = await forger.post("/passkey/verify-authentication", { response: device.get({ challenge: "x" }) });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe("CHALLENGE_NOT_FOUND");
  });

  it("the challenge table holds no attempt token: a dump of it answers no ceremony", async () => {
    const { c } = await aUser(platform);
    await c.get("/passkey/generate-register-options");
    const anonymous = platform.client();
    await anonymous.get("/passkey/generate-authenticate-options");
    const tokens = [c, anonymous].map((client) => decodeURIComponent(client.cookies.get(COOKIE)!).split(".")[0]!);
    const dumped = stringsIn(await dumpTable(platform.env.IDENTITY_DATABASE_URL!, "passkey_challenge"));
    expect(dumped.size).toBeGreaterThan(0);
    for (const token of tokens) expect(dumped.has(token)).toBe(false);
    // Each stored id, signed as the attempt cookie with the real secret, names no ceremony.
    for (const id of [...dumped].filter((value) => value.length >= 32).slice(0, 20)) {
      const attacker = platform.client();
      attacker.cookies.set(COOKIE, sign(id, platform.env.AUTH_SECRET!));
      const res = await attacker.post("/passkey/verify-authentication", { response: { id: "x" } });
      expect(res.body.code).toBe("CHALLENGE_NOT_FOUND");
    }
  });

  it("refuses a registration signed for another origin or relying party, or answering another challenge", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    for (const overrides of [{ origin: "https://evil.example" }, { rpId: "evil.example" }, { challenge: "c3RvbGVu" }]) {
      const options = await c.get("/passkey/generate-register-options");
      const res = await c.post("/passkey/verify-registration", { response: device.create(options.body, overrides) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "FAILED_TO_VERIFY_REGISTRATION", message: "Failed to verify registration" });
    }
    expect((await c.get("/passkey/list-user-passkeys")).body).toEqual([]);
  });

  it("refuses the same credential registered twice", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    const options = await c.get("/passkey/generate-register-options");
    const response = device.create(options.body);
    expect((await c.post("/passkey/verify-registration", { response })).status).toBe(200);
    const again = await c.get("/passkey/generate-register-options");
    expect(again.body.excludeCredentials).toEqual([{ id: response.id, type: "public-key", transports: ["internal"] }]);
    const withSameChallenge = { ...response, response: { ...response.response } };
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString());
    withSameChallenge.response.clientDataJSON = Buffer.from(JSON.stringify({ ...clientData, challenge: again.body.challenge })).toString("base64url");
    const res = await c.post("/passkey/verify-registration", { response: withSameChallenge });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("PREVIOUSLY_REGISTERED");
  });

  it("a sign-in ceremony is good once and for 5 minutes; another origin, relying party or challenge fails", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    expect((await register(c, device)).status).toBe(200);

    const anonymous = platform.client();
    const options = await anonymous.get("/passkey/generate-authenticate-options");
    const cookie = anonymous.cookies.get(COOKIE)!;
    expect((await anonymous.post("/passkey/verify-authentication", { response: device.get(options.body) })).status).toBe(200);
    const replay = platform.client();
    replay.cookies.set(COOKIE, cookie);
    const replayed = await replay.post("/passkey/verify-authentication", { response: device.get(options.body) });
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe("CHALLENGE_NOT_FOUND");

    const late = platform.client();
    const expiring = await late.get("/passkey/generate-authenticate-options");
    platform.clock.advance(301_000);
    const expired = await late.post("/passkey/verify-authentication", { response: device.get(expiring.body) });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe("CHALLENGE_NOT_FOUND");

    for (const overrides of [{ origin: "https://evil.example" }, { rpId: "evil.example" }, { challenge: "c3RvbGVu" }]) {
      const { c: attacker, res } = await signInWith(device, overrides);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "AUTHENTICATION_FAILED", message: "Authentication failed" });
      expect(attacker.cookies.has("better-auth.session_token")).toBe(false);
    }
  });

  it("a counter that goes backwards (a cloned authenticator) fails; the next one up signs in", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    await register(c, device);
    expect((await signInWith(device, { counter: 10 })).res.status).toBe(200);
    const cloned = await signInWith(device, { counter: 5 });
    expect(cloned.res.status).toBe(401);
    expect(cloned.res.body.code).toBe("AUTHENTICATION_FAILED");
    const same = await signInWith(device, { counter: 10 });
    expect(same.res.status).toBe(401);
    expect((await signInWith(device, { counter: 11 })).res.status).toBe(200);
  });

  it("signing in by passkey alone needs the user verified on the authenticator", async () => {
    const { c } = await aUser(platform);
    const device = authenticator();
    await register(c, device);
    const { res } = await signInWith(device, { userVerified: false });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("AUTHENTICATION_FAILED");
  });

  it("a deleted passkey signs no one in; another user's passkey cannot be renamed or deleted", async () => {
    const owner = await aUser(platform);
    const device = authenticator();
    const { body: passkey } = await register(owner.c, device);
    const other = await aUser(platform);
    for (const [path, body] of [
      ["/passkey/update-passkey", { id: passkey.id, name: "Mine" }],
      ["/passkey/delete-passkey", { id: passkey.id }],
    ] as const) {
      const res = await other.c.post(path, body);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "PASSKEY_NOT_FOUND", message: "Passkey not found" });
    }
    const [kept] = (await owner.c.get("/passkey/list-user-passkeys")).body;
    expect(kept.id).toBe(passkey.id);
    expect(kept).not.toHaveProperty("name");

    expect((await owner.c.post("/passkey/delete-passkey", { id: passkey.id })).status).toBe(200);
    const { res } = await signInWith(device);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("PASSKEY_NOT_FOUND");
  });

  it("refuses a banned user after the proof, with the ban", async () => {
    const user = await aUser(platform);
    const device = authenticator();
    await register(user.c, device);
    const admin = await anAdmin(platform);
    expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
    const { c, res } = await signInWith(device);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("BANNED_USER");
    expect(c.cookies.has("better-auth.session_token")).toBe(false);
  });

  it("an impersonating admin adds, renames and deletes none of the user's passkeys", async () => {
    const user = await aUser(platform);
    const device = authenticator();
    await register(user.c, device);
    const [passkey] = (await user.c.get("/passkey/list-user-passkeys")).body as Array<{ id: string; name: string | null }>;
    const admin = await anAdmin(platform);
    expect((await admin.c.post("/admin/impersonate-user", { userId: user.id })).status).toBe(200);
    const refusals = [
      await admin.c.get("/passkey/generate-register-options"),
      await admin.c.post("/passkey/update-passkey", { id: passkey!.id, name: "Admin's now" }),
      await admin.c.post("/passkey/delete-passkey", { id: passkey!.id }),
    ];
    for (const res of refusals)
      expect(res.body).toMatchObject({ code: "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING", message: "Sign-in methods cannot be changed while impersonating" });
    expect(refusals.map((res) => res.status)).toEqual([403, 403, 403]);
    expect((await user.c.get("/passkey/list-user-passkeys")).body).toEqual([passkey]);
  });

  it("better-auth 1.1's options request (a POST naming an email) signs in too, and names nobody's passkeys", async () => {
    const user = await aUser(platform);
    const device = authenticator();
    expect((await register(user.c, device)).status).toBe(200);
    const c = platform.client();
    const known = await c.post("/passkey/generate-authenticate-options", { email: user.email });
    const unknown = await platform.client().post("/passkey/generate-authenticate-options", { email: "nobody@example.com" });
    expect(known.status).toBe(200);
    // The same shape for a known address and an unknown one: no credential list that tells them apart.
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
    expect(known.body.allowCredentials ?? []).toEqual([]);
    const res = await c.post("/passkey/verify-authentication", { response: device.get(known.body) });
    expect(res.status).toBe(200);
    expect((await c.get("/get-session")).body.session).toMatchObject({ userId: user.id, authMethod: "passkey" });
  });

  it("refuses deleting the last passkey of a user with no other way to sign in", async () => {
    const user = await aUser(platform);
    const device = authenticator();
    const { body: first } = await register(user.c, device);
    const { body: second } = await register(user.c, device);
    const store = platform.services.identity.deps.store;
    for (const account of await store.listAccounts(user.id)) await store.deleteAccount(account.id);
    expect((await user.c.post("/passkey/delete-passkey", { id: first.id })).status).toBe(200);
    const last = await user.c.post("/passkey/delete-passkey", { id: second.id });
    expect(last.status).toBe(400);
    expect(last.body).toMatchObject({ code: "YOU_CANT_DELETE_YOUR_LAST_WAY_TO_SIGN_IN", message: "You can't delete your last way to sign in" });
    expect((await signInWith(device)).res.status).toBe(200);
  });

  it("bad input is a 400, never a 500", async () => {
    const { c } = await aUser(platform);
    expect((await c.get("/passkey/generate-register-options?authenticatorAttachment=floppy")).status).toBe(400);
    await c.get("/passkey/generate-register-options");
    const garbage = await c.post("/passkey/verify-registration", { response: { id: "x", response: { clientDataJSON: "!!", attestationObject: 7 } } });
    expect(garbage.status).toBe(400);
    expect(garbage.body.code).toBe("FAILED_TO_VERIFY_REGISTRATION");
    expect((await c.post("/passkey/verify-registration", { response: "text" })).status).toBe(400);
    expect((await c.post("/passkey/update-passkey", { id: "x", name: "  " })).status).toBe(400);
    const anonymous = platform.client();
    await anonymous.get("/passkey/generate-authenticate-options");
    const bad = await anonymous.post("/passkey/verify-authentication", { response: { id: "x", response: {} } });
    expect(bad.status).toBe(404);
    expect(bad.body.code).toBe("PASSKEY_NOT_FOUND");
    const huge = await anonymous.post("/passkey/verify-authentication", { response: { id: "x".repeat(40_000) } });
    expect(huge.status).toBe(400);
  });
});

describe(`a passkey as the second factor (${backendLabel()})`, () => {
  /** A user with TOTP on and a passkey, signed out; a new client holding the two-factor challenge. */
  async function challenged() {
    const user = await aUser(platform);
    const enabled = await user.c.post("/two-factor/enable", { password: PASSWORD });
    const secret = base32Decode(new URL(enabled.body.totpURI).searchParams.get("secret")!);
    expect((await user.c.post("/two-factor/verify-totp", { code: totpCode(secret, totpStep(new Date())) })).status).toBe(200);
    const device = authenticator();
    expect((await register(user.c, device)).status).toBe(200);
    const c = platform.client();
    const signIn = await c.post("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(signIn.body).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp", "passkey"] });
    return { user, device, c };
  }

  it("the challenged user's passkey completes the sign-in (no user verification needed), once", async () => {
    const { user, device, c } = await challenged();
    const options = await c.get("/passkey/generate-authenticate-options");
    expect(options.body.allowCredentials).toEqual([{ id: device.credentials[0]!.id.toString("base64url"), type: "public-key", transports: ["internal"] }]);
    const res = await c.post("/two-factor/verify-passkey", { response: device.get(options.body, { userVerified: false }), trustDevice: true });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(c.cookies.has("better-auth.session_token")).toBe(true);
    expect(c.cookies.has("better-auth.trust_device")).toBe(true);
    expect(c.cookies.has("better-auth.two_factor")).toBe(false);
    expect((await c.get("/get-session")).body).toMatchObject({ user: { id: user.id }, session: { authMethod: "password", secondFactor: "passkey" } });
  });

  it("another user's passkey, or a bad assertion, is a wrong answer that counts", async () => {
    const { c } = await challenged();
    const stranger = await aUser(platform);
    const strangerDevice = authenticator();
    await register(stranger.c, strangerDevice);
    const options = await c.get("/passkey/generate-authenticate-options");
    const foreign = await c.post("/two-factor/verify-passkey", { response: strangerDevice.get({ ...options.body, allowCredentials: [] }) });
    expect(foreign.status).toBe(401);
    expect(foreign.body.code).toBe("INVALID_TWO_FACTOR_AUTHENTICATION");
    // The ceremony was taken by that answer: a second one without a new ceremony is wrong too.
    const again = await c.post("/two-factor/verify-passkey", { response: strangerDevice.get({ ...options.body, allowCredentials: [] }) });
    expect(again.body.code).toBe("INVALID_TWO_FACTOR_AUTHENTICATION");
    expect(c.cookies.has("better-auth.session_token")).toBe(false);
  });

  it("without the two-factor cookie there is nothing to answer", async () => {
    const c = platform.client();
    const res = await c.post("/two-factor/verify-passkey", { response: { id: "x" } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("INVALID_TWO_FACTOR_COOKIE");
  });

  it("signing in by passkey skips the two-factor challenge", async () => {
    const { user, device } = await challenged();
    const { c, res } = await signInWith(device);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(res.body.session).toMatchObject({ authMethod: "passkey", secondFactor: null });
    expect((await c.get("/get-session")).body.session).toMatchObject({ authMethod: "passkey", secondFactor: null });
  });
});
