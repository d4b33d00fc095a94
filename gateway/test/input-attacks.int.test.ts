/**
 * Hostile input the other bad-input suites do not send: configured extra user fields named like
 * Object.prototype members ("constructor", "toString"), the same names as admin update-user data, and
 * addresses and usernames that only become valid, and someone else's, once lower-cased (KELVIN SIGN,
 * U+212A, lower-cases to an ASCII "k"). Each answer is the catalogue's 4xx or the route's success, with
 * nothing broken stored.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD } from "./admin-fixtures.js";

const platform = usePlatform({
  env: { IDENTITY_USER_FIELDS: JSON.stringify({ constructor: { type: "string", required: true }, toString: { type: "number" } }) },
});

const KELVIN = "\u212A";
/** An admin (the required `constructor` field given at sign-up), signed in afresh so the session carries the role. */
async function anAdmin() {
  const email = uniqueEmail("proto-admin");
  const up = await platform.client().post("/sign-up/email", { name: "Ada", email, password: PASSWORD, constructor: "admin" });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  await platform.services.identity.deps.store.updateUser(up.body.user.id, { role: "admin" });
  const c = platform.client();
  expect((await c.post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
  return c;
}

const refusal = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.code, message: res.body?.message });

describe(`extra user fields named like Object.prototype members (${backendLabel()})`, () => {
  it("a required field named constructor is required: sign-up without it is 400 Missing field, with it stored and served", async () => {
    const missing = await platform.client().post("/sign-up/email", { name: "F", email: uniqueEmail("proto"), password: PASSWORD });
    expect(refusal(missing)).toEqual({ status: 400, code: "VALIDATION_ERROR", message: "Missing field: constructor" });

    const c = platform.client();
    const ok = await c.post("/sign-up/email", { name: "F", email: uniqueEmail("proto"), password: PASSWORD, constructor: "ctor", toString: 7 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await c.get("/get-session")).body.user).toMatchObject({ constructor: "ctor", toString: 7 });
  });

  it("admin update-user: data named constructor or toString is an extra field, stored when configured; never a garbled 400", async () => {
    const admin = await anAdmin();
    const target = await platform.client().post("/sign-up/email", { name: "T", email: uniqueEmail("target"), password: PASSWORD, constructor: "before" });
    expect(target.status).toBe(200);
    const userId = target.body.user.id as string;
    const updated = await admin.post("/admin/update-user", { userId, data: { constructor: "after", toString: 3 } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id: userId, constructor: "after", toString: 3 });
    // A name no field has is ignored, like any unknown field: nothing stored, no error.
    const unknown = await admin.post("/admin/update-user", { userId, data: { hasOwnProperty: "x", name: "Renamed" } });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(200);
    expect(unknown.body.name).toBe("Renamed");
    expect(Object.keys(unknown.body)).not.toContain("hasOwnProperty");
    // The real refusals still answer their own messages.
    expect(refusal(await admin.post("/admin/update-user", { userId, data: { email: "x@example.com" } }))).toEqual({
      status: 400,
      code: "VALIDATION_ERROR",
      message: "Email cannot be updated through admin update-user",
    });
  });
});

describe(`addresses and usernames that only lower-case into valid ones (${backendLabel()})`, () => {
  it("sign-up with a KELVIN SIGN address is 400 INVALID_EMAIL (also when the lower-cased address is taken); nothing is stored", async () => {
    const email = `kelvin-${Date.now().toString(36)}@example.com`;
    const lookAlike = email.replace(/^k/, KELVIN);
    expect(lookAlike.toLowerCase()).toBe(email);
    expect(refusal(await platform.client().post("/sign-up/email", { name: "K", email: lookAlike, password: PASSWORD, constructor: "c" }))).toMatchObject({
      status: 400,
      code: "INVALID_EMAIL",
    });
    expect(await platform.services.identity.deps.store.findUserByEmail(email)).toBeNull();

    const owner = platform.client();
    expect((await owner.post("/sign-up/email", { name: "K", email, password: PASSWORD, constructor: "c" })).status).toBe(200);
    expect(refusal(await platform.client().post("/sign-up/email", { name: "K", email: lookAlike, password: PASSWORD, constructor: "c" }))).toMatchObject({
      status: 400,
      code: "INVALID_EMAIL",
    });
    // Sign-in with the look-alike is the generic failure, never the owner's session.
    const signIn = await platform.client().post("/sign-in/email", { email: lookAlike, password: PASSWORD });
    expect(refusal(signIn)).toEqual({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" });
    // A reset asked for the look-alike is refused as malformed, like any invalid address.
    expect(refusal(await platform.client().post("/request-password-reset", { email: lookAlike }))).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
  });

  it("a KELVIN SIGN username is 400 VALIDATION_ERROR at sign-up, update-user and is-username-available; the ASCII one is untouched", async () => {
    const username = `kelvin_${Date.now().toString(36)}`;
    const lookAlike = username.replace(/^k/, KELVIN);
    expect(lookAlike.toLowerCase()).toBe(username);
    const c = new TestClient(platform.baseURL);
    const signUp = await c.post("/sign-up/email", { name: "K", email: uniqueEmail("kelvin-user"), password: PASSWORD, username: lookAlike, constructor: "c" });
    expect(refusal(signUp)).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(await platform.services.identity.deps.store.findUserByUsername(username)).toBeNull();

    const own = platform.client();
    expect((await own.post("/sign-up/email", { name: "K", email: uniqueEmail("kelvin-user"), password: PASSWORD, constructor: "c" })).status).toBe(200);
    expect(refusal(await own.post("/update-user", { username: lookAlike }))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((await own.get("/get-session")).body.user.username).toBeNull();
    expect(refusal(await own.post("/is-username-available", { username: lookAlike }))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    // Upper-case ASCII is still just the same name.
    expect((await own.post("/update-user", { username: username.toUpperCase() })).status).toBe(200);
    expect((await own.get("/get-session")).body.user.username).toBe(username);
  });
});
