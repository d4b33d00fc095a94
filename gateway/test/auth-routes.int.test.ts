/** Every foundation route through the gateway over real gRPC: success and failure. */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { startPlatform } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform();

async function signedUp(options: { username?: string; rememberMe?: boolean } = {}) {
  const client = new TestClient(platform.baseURL);
  const email = uniqueEmail();
  const res = await client.post("/sign-up/email", { name: "Ada", email, password: "password-123", ...options });
  expect(res.status).toBe(200);
  return { client, email, user: res.body.user, token: res.body.token as string };
}

describe(`auth routes (${backendLabel()})`, () => {
  it("GET /ok answers ok", async () => {
    const res = await new TestClient(platform.baseURL).get("/ok");
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
  });

  it("GET /error shows the code, escaped, with a link back to the app", async () => {
    const res = await new TestClient(platform.baseURL).get("/error?error=<script>state_not_found");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.body).toContain("&lt;script&gt;state_not_found");
    expect(res.body).not.toContain("<script>");
    expect(res.body).toMatch(/<a href="[^"]*">Back to the application<\/a>/);
  });

  it("sign-up creates the user with a lower-cased email, signs in and sets a signed httpOnly cookie", async () => {
    const client = new TestClient(platform.baseURL);
    const email = uniqueEmail("Mixed.Case").replace("mixed", "MiXeD");
    const res = await client.post("/sign-up/email", { name: "Ada", email, password: "password-123" });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.body.user).toMatchObject({ name: "Ada", email: email.toLowerCase(), emailVerified: false, image: null });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=604\d{3}/);
    expect(decodeURIComponent(cookie.split(";")[0]!.split("=")[1]!)).toMatch(new RegExp(`^${res.body.token}\\.`));
    const session = await client.get("/get-session");
    expect(session.body.user.id).toBe(res.body.user.id);
    expect(session.body.session).toMatchObject({ token: res.body.token, userId: res.body.user.id, userAgent: expect.any(String) });
  });

  it("sign-up refuses an existing email with 422 USER_ALREADY_EXISTS, whatever its case", async () => {
    const { email } = await signedUp();
    const res = await new TestClient(platform.baseURL).post("/sign-up/email", { name: "B", email: email.toUpperCase(), password: "password-123" });
    expect(res).toMatchObject({ status: 422, body: { code: "USER_ALREADY_EXISTS", message: "User already exists" } });
  });

  it("sign-up checks the email and the password length", async () => {
    const client = new TestClient(platform.baseURL);
    expect((await client.post("/sign-up/email", { name: "A", email: "not-an-email", password: "password-123" })).body).toMatchObject({
      code: "INVALID_EMAIL",
      message: "Invalid email",
    });
    const short = await client.post("/sign-up/email", { name: "A", email: uniqueEmail(), password: "short" });
    expect(short).toMatchObject({ status: 400, body: { code: "PASSWORD_TOO_SHORT", message: "Password too short" } });
    const long = await client.post("/sign-up/email", { name: "A", email: uniqueEmail(), password: "x".repeat(129) });
    expect(long).toMatchObject({ status: 400, body: { code: "PASSWORD_TOO_LONG", message: "Password too long" } });
  });

  it("sign-in with email: right password gives a session; every failure the same generic 401", async () => {
    const { email } = await signedUp();
    const client = new TestClient(platform.baseURL);
    const ok = await client.post("/sign-in/email", { email: email.toUpperCase(), password: "password-123" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ redirect: false, token: expect.stringMatching(/^[A-Za-z0-9]{32}$/), user: { email } });
    expect(ok.headers.get("set-auth-token")).toContain(ok.body.token);
    const wrong = await client.post("/sign-in/email", { email, password: "wrong-password" });
    const unknown = await client.post("/sign-in/email", { email: uniqueEmail("nobody"), password: "password-123" });
    for (const res of [wrong, unknown]) {
      expect(res).toMatchObject({ status: 401, body: { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" } });
    }
  });

  it("sign-in with callbackURL answers redirect true and the url", async () => {
    const { email } = await signedUp();
    const res = await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: "password-123", callbackURL: "/dashboard" });
    expect(res.body).toMatchObject({ redirect: true, url: "/dashboard" });
  });

  it("rememberMe false gives a one-day session, a browser-session cookie and the dont-remember cookie", async () => {
    const { email } = await signedUp();
    const client = new TestClient(platform.baseURL);
    const res = await client.post("/sign-in/email", { email, password: "password-123", rememberMe: false });
    const cookies = res.headers.getSetCookie();
    const sessionCookie = cookies.find((c) => c.startsWith("better-auth.session_token="))!;
    expect(sessionCookie).not.toMatch(/Max-Age/);
    expect(cookies.some((c) => c.startsWith("better-auth.dont_remember="))).toBe(true);
    const session = await client.get("/get-session");
    const lifetime = Date.parse(session.body.session.expiresAt) - Date.parse(session.body.session.createdAt);
    expect(lifetime).toBe(86_400_000);
  });

  it("a remembered session's cookie Max-Age is exactly the configured expiry (604800), at sign-up and at sign-in", async () => {
    const email = uniqueEmail("maxage");
    const maxAgeOf = (headers: Headers) => /; Max-Age=(\d+)/.exec(headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="))!)?.[1];
    const signUp = await new TestClient(platform.baseURL).post("/sign-up/email", { name: "M", email, password: "password-123" });
    expect(maxAgeOf(signUp.headers)).toBe("604800");
    for (let attempt = 0; attempt < 3; attempt++) {
      const signIn = await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: "password-123" });
      expect(maxAgeOf(signIn.headers)).toBe("604800");
    }
  });

  it("a remembered sign-in clears the dont-remember cookie an earlier session left", async () => {
    const { email } = await signedUp();
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-in/email", { email, password: "password-123", rememberMe: false });
    expect(client.cookies.has("better-auth.dont_remember")).toBe(true);
    await client.post("/sign-in/email", { email, password: "password-123" });
    expect(client.cookies.has("better-auth.dont_remember")).toBe(false);
  });

  it("username sign-up and sign-in: lower-cased, unique, generic failure", async () => {
    const name = `Ada_${Date.now().toString(36)}`;
    const { email } = await signedUp({ username: name });
    const taken = await new TestClient(platform.baseURL).post("/sign-up/email", { name: "B", email: uniqueEmail(), password: "password-123", username: name.toUpperCase() });
    expect(taken).toMatchObject({ status: 422, body: { code: "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", message: "username is already taken. please try another." } });
    const client = new TestClient(platform.baseURL);
    const ok = await client.post("/sign-in/username", { username: name.toUpperCase(), password: "password-123" });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ email, username: name.toLowerCase() });
    expect(ok.body.token).toMatch(/^[A-Za-z0-9]{32}$/);
    const wrong = await client.post("/sign-in/username", { username: name, password: "nope-nope-nope" });
    const unknown = await client.post("/sign-in/username", { username: "nobody_here", password: "password-123" });
    for (const res of [wrong, unknown]) {
      expect(res).toMatchObject({ status: 401, body: { code: "INVALID_USERNAME_OR_PASSWORD", message: "invalid username or password" } });
    }
  });

  it("get-session answers null without a session, and null plus a cleared cookie for a forged one", async () => {
    const client = new TestClient(platform.baseURL);
    expect((await client.get("/get-session")).body).toBeNull();
    client.cookies.set("better-auth.session_token", encodeURIComponent(`${"A".repeat(32)}.forged`));
    const res = await client.get("/get-session");
    expect(res.body).toBeNull();
    expect(res.headers.getSetCookie().some((c) => /^better-auth\.session_token=;.*Max-Age=0/.test(c))).toBe(true);
  });

  it("accepts a bearer token in place of the cookie", async () => {
    const { token, user } = await signedUp();
    const client = new TestClient(platform.baseURL);
    const res = await client.get("/get-session", { authorization: `Bearer ${token}` });
    expect(res.body.user.id).toBe(user.id);
  });

  it("list-sessions lists the caller's live sessions and needs a session", async () => {
    const { client, email } = await signedUp();
    await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: "password-123" });
    const list = await client.get("/list-sessions");
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    expect(new Set(list.body.map((s: { userId: string }) => s.userId)).size).toBe(1);
    expect(await new TestClient(platform.baseURL).get("/list-sessions")).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
  });

  it("revoke-session ends one of the caller's sessions, and refuses another user's", async () => {
    const { client, email } = await signedUp();
    const other = new TestClient(platform.baseURL);
    const second = await other.post("/sign-in/email", { email, password: "password-123" });
    expect((await client.post("/revoke-session", { token: second.body.token })).body).toEqual({ status: true });
    expect((await other.get("/get-session")).body).toBeNull();
    expect((await client.get("/get-session")).body).not.toBeNull();

    const stranger = await signedUp();
    const res = await stranger.client.post("/revoke-session", { token: (await client.get("/get-session")).body.session.token });
    expect(res).toMatchObject({ status: 404, body: { code: "SESSION_NOT_FOUND" } });
    expect((await client.get("/get-session")).body).not.toBeNull();
  });

  it("revoke-other-sessions keeps the current one; revoke-sessions ends all", async () => {
    const { client, email } = await signedUp();
    const phone = new TestClient(platform.baseURL);
    await phone.post("/sign-in/email", { email, password: "password-123" });
    expect((await client.post("/revoke-other-sessions")).body).toEqual({ status: true });
    expect((await phone.get("/get-session")).body).toBeNull();
    expect((await client.get("/get-session")).body).not.toBeNull();

    await phone.post("/sign-in/email", { email, password: "password-123" });
    expect((await phone.post("/revoke-sessions")).body).toEqual({ status: true });
    expect((await phone.get("/get-session")).body).toBeNull();
    expect((await client.get("/get-session")).body).toBeNull();
  });

  it("the revoke calls need a session", async () => {
    const client = new TestClient(platform.baseURL);
    for (const path of ["/revoke-session", "/revoke-sessions", "/revoke-other-sessions"]) {
      expect((await client.post(path, { token: "x" })).status).toBe(401);
    }
  });

  it("sign-out ends the session and clears the cookie; signing out twice is fine", async () => {
    const { client, token } = await signedUp();
    const res = await client.post("/sign-out");
    expect(res.body).toEqual({ success: true });
    expect(client.cookies.size).toBe(0);
    expect((await new TestClient(platform.baseURL).get("/get-session", { authorization: `Bearer ${token}` })).body).toBeNull();
    expect((await client.post("/sign-out")).body).toEqual({ success: true });
  });

  it("an unknown path is a JSON 404", async () => {
    expect(await new TestClient(platform.baseURL).get("/no-such-route")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });
});

describe("CORS", () => {
  it("answers a trusted origin's preflight and echoes it with credentials; ignores an untrusted one", async () => {
    const trusted = await startPlatform({ env: { AUTH_TRUSTED_ORIGINS: "http://app.example.test" } });
    try {
      const preflight = await fetch(`${trusted.baseURL}/sign-in/email`, {
        method: "OPTIONS",
        headers: { origin: "http://app.example.test", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("http://app.example.test");
      expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
      expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");

      const ok = await fetch(`${trusted.baseURL}/ok`, { headers: { origin: "http://app.example.test" } });
      expect(ok.headers.get("access-control-allow-origin")).toBe("http://app.example.test");
      expect(ok.headers.get("access-control-expose-headers")).toContain("set-auth-token");

      const evil = await fetch(`${trusted.baseURL}/sign-in/email`, { method: "OPTIONS", headers: { origin: "http://evil.example.test", "access-control-request-method": "POST" } });
      expect(evil.headers.get("access-control-allow-origin")).toBeNull();
      expect((await fetch(`${trusted.baseURL}/ok`, { headers: { origin: "http://evil.example.test" } })).headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await trusted.stop();
    }
  });
});

describe("base path", () => {
  it("mounts the API under AUTH_BASE_PATH", async () => {
    const custom = await startPlatform({ env: { AUTH_BASE_PATH: "/identity/v1", AUTH_BASE_URL: "" } });
    try {
      expect((await fetch(`${custom.origin}/identity/v1/ok`)).status).toBe(200);
      expect((await fetch(`${custom.origin}/api/auth/ok`)).status).toBe(404);
    } finally {
      await custom.stop();
    }
  });
});

describe("bodies no route accepts", () => {
  it("refuses a NUL character and very deep nesting with a 400 naming the problem", async () => {
    const client = new TestClient(platform.baseURL);
    expect(await client.post("/sign-up/email", { name: "A\u0000B", email: uniqueEmail(), password: "password-123" })).toMatchObject({
      status: 400,
      body: { code: "VALIDATION_ERROR", message: "Invalid name: must not contain NUL characters" },
    });
    const deep = `${'{"a":'.repeat(10_000)}"leaf"${"}".repeat(10_000)}`;
    const res = await client.request("POST", "/sign-up/email", {
      body: `{"name":"A","email":"${uniqueEmail()}","password":"password-123","extra":${deep}}`,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/nested too deeply/);
  });
});
