/** Session refresh past the update age, and configured extra user fields. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({
    env: {
      SESSION_UPDATE_AGE: "1",
      IDENTITY_USER_FIELDS: JSON.stringify({ phone: { type: "string", required: true }, age: { type: "number" }, plan: { type: "string", input: false } }),
    },
  });
});
afterAll(async () => {
  await platform?.stop();
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`session refresh (${backendLabel()})`, () => {
  it("extends a session used after the update age and reissues the cookie; disableRefresh leaves it", async () => {
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-up/email", { name: "R", email: uniqueEmail("refresh"), password: "password-123", phone: "+1 555" });
    const first = (await client.get("/get-session")).body.session;
    await wait(1_200);
    const untouched = await client.get("/get-session?disableRefresh=true");
    expect(untouched.body.session.expiresAt).toBe(first.expiresAt);
    expect(untouched.headers.getSetCookie()).toEqual([]);

    const refreshed = await client.get("/get-session");
    expect(Date.parse(refreshed.body.session.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    const cookie = refreshed.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    // Exactly the configured expiry, not a second short.
    expect(cookie).toMatch(/; Max-Age=604800(;|$)/);
    // The next read within the update age serves the extended session as is.
    expect((await client.get("/get-session")).body.session.expiresAt).toBe(refreshed.body.session.expiresAt);
  });

  it("never extends a rememberMe=false session", async () => {
    const email = uniqueEmail("short");
    await new TestClient(platform.baseURL).post("/sign-up/email", { name: "S", email, password: "password-123", phone: "1" });
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-in/email", { email, password: "password-123", rememberMe: false });
    const first = (await client.get("/get-session")).body.session;
    await wait(1_200);
    const later = await client.get("/get-session");
    expect(later.body.session.expiresAt).toBe(first.expiresAt);
    expect(later.headers.getSetCookie()).toEqual([]);
  });
});

describe(`configured user fields (${backendLabel()})`, () => {
  it("stores and serves extra fields, requires required ones, ignores server-only and unknown ones", async () => {
    const client = new TestClient(platform.baseURL);
    const ok = await client.post("/sign-up/email", { name: "F", email: uniqueEmail("fields"), password: "password-123", phone: "+44 20", age: 41 });
    expect(ok.body.user).toMatchObject({ phone: "+44 20", age: 41 });
    expect((await client.get("/get-session")).body.user).toMatchObject({ phone: "+44 20", age: 41 });

    const base = { name: "F", password: "password-123" };
    expect(await new TestClient(platform.baseURL).post("/sign-up/email", { ...base, email: uniqueEmail() })).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Missing field: phone" } });
    expect(await new TestClient(platform.baseURL).post("/sign-up/email", { ...base, email: uniqueEmail(), phone: 5 })).toMatchObject({ status: 400, body: { message: "Invalid field phone: expected string" } });
    // Fields that are not inputs (server-only `plan`, unknown `isAdmin`, `role`) are ignored, never stored.
    const extras = new TestClient(platform.baseURL);
    const ignored = await extras.post("/sign-up/email", { ...base, email: uniqueEmail(), phone: "1", plan: "enterprise", isAdmin: true, role: "admin" });
    expect(ignored.status).toBe(200);
    for (const user of [ignored.body.user, (await extras.get("/get-session")).body.user]) {
      expect(user).toMatchObject({ phone: "1" });
      expect(Object.keys(user)).not.toContain("plan");
      expect(Object.keys(user)).not.toContain("isAdmin");
      // The admin field is served, with the configured default: never the request's value.
      expect(user.role).toBe("user");
    }

    expect((await client.post("/update-user", { age: 42, role: "admin", plan: "enterprise", isAdmin: true })).body).toEqual({ status: true });
    const updated = (await client.get("/get-session")).body.user;
    expect(updated).toMatchObject({ phone: "+44 20", age: 42 });
    expect(updated.role).toBe("user");
    expect(Object.keys(updated)).not.toContain("plan");
    expect(Object.keys(updated)).not.toContain("isAdmin");
  });
});
