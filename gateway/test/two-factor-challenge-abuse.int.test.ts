/**
 * The two-factor challenge and trusted devices under attack, over raw HTTP: missing, forged, tampered,
 * expired and replayed challenge cookies; guessing past the attempt limit; trust that ends when two-factor
 * is disabled or the password changes; bad input answered 400 and anonymous calls 401, never a 500.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";

const platform = usePlatform();
const PASSWORD = "password-123";
const TWO_FACTOR_COOKIE = "better-auth.two_factor";
const TRUST_COOKIE = "better-auth.trust_device";

const codeFor = (totpURI: string) => totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(new Date()));

/** A signed-up user with two-factor active; the client is signed out, holding no cookie. */
async function enrolled() {
  const client = platform.client();
  const email = uniqueEmail("2fa-abuse");
  expect((await client.post("/sign-up/email", { name: "Ada", email, password: PASSWORD })).status).toBe(200);
  const enabled = await client.post("/two-factor/enable", { password: PASSWORD });
  expect(enabled.status).toBe(200);
  const totpURI = enabled.body.totpURI as string;
  expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI) })).status).toBe(200);
  await client.post("/sign-out");
  platform.clock.advance(30_000);
  return { client, email, totpURI };
}

async function challenge(client: TestClient, email: string) {
  const res = await client.post("/sign-in/email", { email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp"] });
  return client.cookies.get(TWO_FACTOR_COOKIE)!;
}

const sessionOf = async (client: TestClient) => (await client.get("/get-session")).body;

describe(`two-factor challenge abuse (${backendLabel()})`, () => {
  it("the two-factor cookie is signed, HttpOnly, SameSite=Lax and lives 10 minutes", async () => {
    const { client, email } = await enrolled();
    const res = await client.post("/sign-in/email", { email, password: PASSWORD });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${TWO_FACTOR_COOKIE}=`))!;
    expect(cookie).toMatch(/Max-Age=600(;|$)/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token=") && !/Max-Age=0/.test(c))).toBe(false);
  });

  it("a missing, forged or tampered challenge cookie is refused with 'invalid two factor cookie', even with the right code", async () => {
    const { client, email, totpURI } = await enrolled();
    const genuine = await challenge(client, email);
    const code = codeFor(totpURI);
    const attempts: Array<[string, Record<string, string>]> = [
      ["missing", { cookie: "" }],
      ["forged", { cookie: `${TWO_FACTOR_COOKIE}=${encodeURIComponent("x".repeat(32))}.${"A".repeat(43)}` }],
      ["tampered", { cookie: `${TWO_FACTOR_COOKIE}=${genuine.replace(/^./, (c) => (c === "a" ? "b" : "a"))}` }],
    ];
    for (const [label, headers] of attempts) {
      const res = await client.request("POST", "/two-factor/verify-totp", { json: { code }, headers });
      expect(res.status, label).toBe(401);
      expect(res.body, label).toMatchObject({ code: "INVALID_TWO_FACTOR_COOKIE", message: "invalid two factor cookie" });
    }
    // The genuine cookie still works afterwards, and only once.
    expect((await client.post("/two-factor/verify-totp", { code })).status).toBe(200);
    const replay = await client.request("POST", "/two-factor/verify-totp", { json: { code }, headers: { cookie: `${TWO_FACTOR_COOKIE}=${genuine}` } });
    expect(replay.body).toMatchObject({ code: "INVALID_TWO_FACTOR_COOKIE" });
  });

  it("an expired challenge is refused, whatever the browser still sends", async () => {
    const { client, email, totpURI } = await enrolled();
    const genuine = await challenge(client, email);
    platform.clock.advance(10 * 60_000 + 1_000);
    const res = await client.request("POST", "/two-factor/verify-totp", { json: { code: codeFor(totpURI) }, headers: { cookie: `${TWO_FACTOR_COOKIE}=${genuine}` } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "INVALID_TWO_FACTOR_COOKIE" });
    expect(await sessionOf(client)).toBeNull();
  });

  it("guessing is cut off: after 5 wrong codes the challenge is void and the right code no longer signs in", async () => {
    const { client, email, totpURI } = await enrolled();
    await challenge(client, email);
    const right = codeFor(totpURI);
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const res = await client.post("/two-factor/verify-totp", { code: wrong });
      expect(res.body, `attempt ${i + 1}`).toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    }
    const res = await client.post("/two-factor/verify-totp", { code: right });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "INVALID_TWO_FACTOR_COOKIE" });
    expect(await sessionOf(client)).toBeNull();
  });

  it("a wrong backup code or mailed code never creates a session; no mailed code means none is accepted", async () => {
    const { client, email } = await enrolled();
    await challenge(client, email);
    for (const [path, code] of [
      ["/two-factor/verify-backup-code", "aaaaa-bbbbb"],
      ["/two-factor/verify-otp", "123456"],
    ] as const) {
      const res = await client.post(path, { code });
      expect(res.status, path).toBe(401);
      expect(res.body).toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
      expect(res.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token=") && !/Max-Age=0/.test(c))).toBe(false);
    }
    expect(await sessionOf(client)).toBeNull();
  });

  it("disabling two-factor revokes trusted devices: once re-enabled, the old trusted-device cookie lets no one through", async () => {
    const { client, email, totpURI } = await enrolled();
    await challenge(client, email);
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI), trustDevice: true })).status).toBe(200);
    const trust = client.cookies.get(TRUST_COOKIE)!;
    expect((await client.post("/two-factor/disable", { password: "wrong-password" })).body).toMatchObject({ code: "INVALID_PASSWORD" });
    expect((await client.post("/two-factor/disable", { password: PASSWORD })).body).toEqual({ status: true });
    expect((await client.get("/get-session")).body.user.twoFactorEnabled).toBe(false);
    expect((await client.get("/two-factor/list-trusted-devices")).body).toEqual({ devices: [] });
    // Re-enabled: the old trusted-device cookie no longer lets anyone through.
    const again = await client.post("/two-factor/enable", { password: PASSWORD });
    platform.clock.advance(30_000);
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(again.body.totpURI) })).status).toBe(200);
    await client.post("/sign-out");
    const res = await client.request("POST", "/sign-in/email", { json: { email, password: PASSWORD }, headers: { cookie: `${TRUST_COOKIE}=${trust}` } });
    expect(res.body).toMatchObject({ twoFactorRedirect: true });
  });

  it("changing the password revokes trusted devices", async () => {
    const { client, email, totpURI } = await enrolled();
    await challenge(client, email);
    expect((await client.post("/two-factor/verify-totp", { code: codeFor(totpURI), trustDevice: true })).status).toBe(200);
    expect((await client.get("/two-factor/list-trusted-devices")).body.devices).toHaveLength(1);
    const changed = await client.post("/change-password", { currentPassword: PASSWORD, newPassword: "password-456" });
    expect(changed.status).toBe(200);
    expect((await client.get("/two-factor/list-trusted-devices")).body).toEqual({ devices: [] });
    await client.post("/sign-out");
    const res = await client.post("/sign-in/email", { email, password: "password-456" });
    expect(res.body).toMatchObject({ twoFactorRedirect: true });
  });

  it("a user may revoke only their own trusted devices", async () => {
    const victim = await enrolled();
    await challenge(victim.client, victim.email);
    expect((await victim.client.post("/two-factor/verify-totp", { code: codeFor(victim.totpURI), trustDevice: true })).status).toBe(200);
    const [device] = (await victim.client.get("/two-factor/list-trusted-devices")).body.devices;
    const attacker = platform.client();
    await attacker.post("/sign-up/email", { name: "Eve", email: uniqueEmail("eve"), password: PASSWORD });
    expect((await attacker.post("/two-factor/revoke-trusted-device", { id: device.id })).status).toBe(200);
    expect((await victim.client.get("/two-factor/list-trusted-devices")).body.devices).toHaveLength(1);
  });

  it("anonymous enrolment calls answer 401; bad input answers 400 naming the field, never a 500", async () => {
    const anonymous = platform.client();
    for (const path of ["/two-factor/enable", "/two-factor/disable", "/two-factor/get-totp-uri", "/two-factor/generate-backup-codes", "/two-factor/revoke-trusted-device"]) {
      expect((await anonymous.post(path, { password: PASSWORD, id: "x" })).status, path).toBe(401);
    }
    expect((await anonymous.get("/two-factor/list-trusted-devices")).status).toBe(401);
    expect((await anonymous.post("/two-factor/send-otp")).body).toMatchObject({ code: "INVALID_TWO_FACTOR_COOKIE" });

    const { client } = await enrolled();
    await client.post("/sign-in/email", { email: uniqueEmail("nobody"), password: PASSWORD });
    const bad: Array<[string, unknown]> = [
      ["/two-factor/verify-totp", { code: 123456 }],
      ["/two-factor/verify-totp", {}],
      ["/two-factor/verify-otp", { code: "123456", trustDevice: "yes" }],
      ["/two-factor/verify-backup-code", { code: ["a"] }],
      ["/two-factor/send-otp", { trustDevice: 1 }],
    ];
    for (const [path, body] of bad) {
      const res = await client.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    const signedIn = platform.client();
    await signedIn.post("/sign-up/email", { name: "Bo", email: uniqueEmail("bo"), password: PASSWORD });
    for (const [path, body] of [
      ["/two-factor/enable", {}],
      ["/two-factor/enable", { password: PASSWORD, method: "sms" }],
      ["/two-factor/revoke-trusted-device", { id: "" }],
    ] as const) {
      const res = await signedIn.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    expect((await signedIn.post("/two-factor/generate-backup-codes", { password: PASSWORD })).body).toMatchObject({ code: "TWO_FACTOR_ISNT_ENABLED" });
    expect((await signedIn.post("/two-factor/get-totp-uri", { password: PASSWORD })).body).toMatchObject({ code: "TOTP_NOT_ENABLED" });
  });
});
