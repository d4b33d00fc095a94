/**
 * Attacks on the session cookie, the session routes, the Origin check and callback URLs, end to end:
 * forged and tampered cookies, a browser's dont-remember choice lost on a password change, session answers
 * a shared cache could keep, fixation, other users' sessions, expiry seen through every cache, a wildcard
 * trusted origin behind https, and the open-redirect corpus on every route that takes a callback in its body.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { sign } from "../src/http/cookies.js";
import { redirectCorpus } from "./redirect-corpus.js";

const PASSWORD = "password-123";
const SESSION_COOKIE = "better-auth.session_token";
const DONT_REMEMBER = "better-auth.dont_remember";
const DAY_MS = 86_400_000;

interface SignedIn {
  http: TestClient;
  email: string;
  token: string;
  /** The session cookie's value as the browser holds it. */
  cookie: string;
}

/** The Set-Cookie line of `name` in a response, or undefined. */
const setCookieOf = (res: { headers: Headers }, name: string) => res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));

describe(`session cookies and session routes (${backendLabel()})`, () => {
  const platform = usePlatform();

  async function signedUp(label = "cookie"): Promise<SignedIn> {
    const http = platform.client();
    const email = uniqueEmail(label);
    const res = await http.post("/sign-up/email", { name: "Cookie", email, password: PASSWORD });
    expect(res.status).toBe(200);
    return { http, email, token: res.body.token, cookie: http.cookies.get(SESSION_COOKIE)! };
  }

  async function signedIn(email: string, rememberMe?: boolean): Promise<SignedIn> {
    const http = platform.client();
    const res = await http.post("/sign-in/email", { email, password: PASSWORD, ...(rememberMe === undefined ? {} : { rememberMe }) });
    expect(res.status).toBe(200);
    return { http, email, token: res.body.token, cookie: http.cookies.get(SESSION_COOKIE)! };
  }

  /** The session a bare request with these headers reads (null: none). */
  async function sessionWith(headers: Record<string, string>): Promise<{ token?: string } | null> {
    const res = await new TestClient(platform.baseURL).get("/get-session", headers);
    expect(res.status).toBe(200);
    return res.body?.session ?? null;
  }

  it("sets the session cookie HttpOnly, SameSite=Lax, Path=/, host-only; a dont-remember one without Max-Age, with a signed marker", async () => {
    const remembered = await signedUp();
    const again = await remembered.http.post("/sign-in/email", { email: remembered.email, password: PASSWORD });
    expect(setCookieOf(again, SESSION_COOKIE)).toMatch(/^better-auth\.session_token=[A-Za-z0-9]{32}\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const forgetful = await platform.client().post("/sign-in/email", { email: remembered.email, password: PASSWORD, rememberMe: false });
    expect(setCookieOf(forgetful, SESSION_COOKIE)).toMatch(/^better-auth\.session_token=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(setCookieOf(forgetful, DONT_REMEMBER)).toMatch(/^better-auth\.dont_remember=true\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it("refuses a tampered, truncated, unsigned, foreign-signed, swapped or shadowed cookie, clears it, and lets it act nowhere", async () => {
    const victim = await signedUp();
    const other = await signedUp();
    const [token, signature] = victim.cookie.split(".") as [string, string];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    const forged: Record<string, string> = {
      tampered: `${token}.${flipped}`,
      truncated: `${token}.${signature.slice(0, 20)}`,
      "signature only": `.${signature}`,
      unsigned: token,
      "another secret": encodeURIComponent(sign(token, "another-secret-0123456789-0123456789")),
      "another token's signature": `${token}.${other.cookie.split(".")[1]}`,
      "token with a dot": `${token}.x.${signature}`,
      "bad escape": "%E0%A4%A",
      "forged first, real second": `${token}.${flipped}; ${SESSION_COOKIE}=${victim.cookie}`,
    };
    for (const [label, value] of Object.entries(forged)) {
      const cookie = `${SESSION_COOKIE}=${value}`;
      const res = await new TestClient(platform.baseURL).get("/get-session", { cookie });
      expect(res.body, label).toBeNull();
      expect(setCookieOf(res, SESSION_COOKIE), label).toMatch(/^better-auth\.session_token=; .*Max-Age=0/);
      const act = await new TestClient(platform.baseURL).post("/revoke-sessions", {}, { cookie });
      expect(act, label).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
    }
    for (const authorization of [`Bearer ${sign(token, "another-secret-0123456789-0123456789")}`, `Bearer ${token}.${flipped}`, `Basic ${token}`]) {
      expect(await sessionWith({ authorization }), authorization).toBeNull();
    }
    // The real cookie first (the browser's own) still works, and the victim's session outlived every attempt.
    expect((await sessionWith({ cookie: `${SESSION_COOKIE}=${victim.cookie}; ${SESSION_COOKIE}=${token}.${flipped}` }))?.token).toBe(token);
    expect((await victim.http.get("/get-session")).body.session.token).toBe(token);
  });

  it("a password change that ends the other sessions keeps a dont-remember browser's cookie a browser-session cookie", async () => {
    const { email } = await signedUp();
    const shared = await signedIn(email, false);
    const res = await shared.http.post("/change-password", { currentPassword: PASSWORD, newPassword: "password-456", revokeOtherSessions: true });
    expect(res.status).toBe(200);
    const cookie = setCookieOf(res, SESSION_COOKIE);
    expect(cookie).toContain(`better-auth.session_token=${sign(res.body.token, platform.env.AUTH_SECRET!)}`);
    // No Max-Age: closing the browser (a shared computer) still ends it, as the user asked at sign-in.
    expect(cookie).not.toMatch(/Max-Age/i);
    expect(shared.http.cookies.has(DONT_REMEMBER)).toBe(true);
    expect((await shared.http.get("/get-session")).body.session.token).toBe(res.body.token);
    expect(await sessionWith({ authorization: `Bearer ${shared.token}` })).toBeNull();

    // A remembered browser still gets a remembered cookie.
    const home = platform.client();
    expect((await home.post("/sign-in/email", { email, password: "password-456" })).status).toBe(200);
    const again = await home.post("/change-password", { currentPassword: "password-456", newPassword: PASSWORD, revokeOtherSessions: true });
    expect(setCookieOf(again, SESSION_COOKIE)).toMatch(/Max-Age=604800/);
    expect(home.cookies.has(DONT_REMEMBER)).toBe(false);
  });

  it("answers that carry a session, a token or a user are never stored by a browser or a shared cache", async () => {
    const user = await signedUp();
    const answers = [
      await user.http.get("/get-session"),
      await user.http.get("/list-sessions"),
      await user.http.get("/list-accounts"),
      await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD }),
      await new TestClient(platform.baseURL).get("/get-session", { authorization: `Bearer ${user.token}` }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control"), res.headers.get("content-type") ?? "").toBe("no-store");
    }
  });

  it("sign-in always issues a new token, whatever session cookie the browser brought (no fixation)", async () => {
    const attacker = await signedUp("fixer");
    const victim = await signedUp("fixed");
    const browser = platform.client();
    const planted = { cookie: `${SESSION_COOKIE}=${attacker.cookie}` };
    const res = await browser.request("POST", "/sign-in/email", { json: { email: victim.email, password: PASSWORD }, headers: planted });
    expect(res.status).toBe(200);
    expect(res.body.token).not.toBe(attacker.token);
    expect(setCookieOf(res, SESSION_COOKIE)).toContain(`=${sign(res.body.token, platform.env.AUTH_SECRET!)};`);
    // The planted session is still the attacker's alone; the victim's new one is not reachable with it.
    expect((await sessionWith(planted))?.token).toBe(attacker.token);
    expect((await attacker.http.get("/list-sessions")).body.map((s: { token: string }) => s.token)).not.toContain(res.body.token);
  });

  it("one user cannot read or end another's session; sign-out and revocations end sessions server-side", async () => {
    const alice = await signedUp("alice");
    const bob = await signedUp("bob");
    const bobElsewhere = await signedIn(bob.email);
    const bobSession = (await bob.http.get("/list-sessions")).body.find((s: { token: string }) => s.token === bob.token);
    for (const token of [bob.token, bob.cookie, bobSession.id]) {
      expect(await alice.http.post("/revoke-session", { token })).toMatchObject({ status: 404, body: { code: "SESSION_NOT_FOUND" } });
    }
    expect((await alice.http.get("/list-sessions")).body.map((s: { userId: string }) => s.userId)).toEqual([(await alice.http.get("/get-session")).body.user.id]);
    expect((await bob.http.get("/get-session")).body.session.token).toBe(bob.token);

    // Warm (the gateway reads a shared Redis cache directly): the revocation must still hold at once.
    expect((await bobElsewhere.http.get("/get-session")).body.session.token).toBe(bobElsewhere.token);
    expect((await bob.http.post("/revoke-other-sessions")).status).toBe(200);
    expect(await sessionWith({ authorization: `Bearer ${bobElsewhere.token}` })).toBeNull();
    expect((await bob.http.post("/sign-out")).body).toEqual({ success: true });
    expect(await sessionWith({ cookie: `${SESSION_COOKIE}=${bob.cookie}` })).toBeNull();
    expect(await sessionWith({ authorization: `Bearer ${bob.token}` })).toBeNull();
    expect((await alice.http.get("/get-session")).body.session.token).toBe(alice.token);
  });

  // Last in this platform: the clock does not come back.
  it("an expired session reads as none everywhere (warm cache or not) and get-session clears its cookie", async () => {
    const { email } = await signedUp("expiry");
    const remembered = await signedIn(email);
    const forgetful = await signedIn(email, false);
    // Warm every cache with both sessions.
    for (const s of [remembered, forgetful]) expect((await s.http.get("/get-session")).body.session.token).toBe(s.token);

    platform.clock.advance(DAY_MS + 60_000);
    expect(await sessionWith({ authorization: `Bearer ${forgetful.token}` })).toBeNull();
    const cleared = await new TestClient(platform.baseURL).get("/get-session", { cookie: `${SESSION_COOKIE}=${forgetful.cookie}` });
    expect(setCookieOf(cleared, SESSION_COOKIE)).toMatch(/Max-Age=0/);
    expect((await forgetful.http.post("/revoke-other-sessions")).status).toBe(401);

    platform.clock.advance(7 * DAY_MS);
    expect(await sessionWith({ cookie: `${SESSION_COOKIE}=${remembered.cookie}` })).toBeNull();
    expect(await sessionWith({ authorization: `Bearer ${remembered.token}` })).toBeNull();
    expect((await remembered.http.get("/list-sessions")).status).toBe(401);
  });
});

describe(`a wildcard trusted origin behind https (${backendLabel()})`, () => {
  const SELF = "https://auth.example.com";
  const platform = usePlatform({ env: { AUTH_BASE_URL: `${SELF}/api/auth`, AUTH_TRUSTED_ORIGINS: "https://*.apps.example.com" } });
  const SECURE_COOKIE = `__Secure-${SESSION_COOKIE}`;
  const TRUSTED = [SELF, "https://one.apps.example.com", "https://two-2.apps.example.com"];
  const FOREIGN = [
    "https://apps.example.com",
    "https://a.b.apps.example.com",
    "https://.apps.example.com",
    "http://one.apps.example.com",
    "https://one.apps.example.com:8443",
    "https://one.apps.example.com.evil.example",
    "https://one.apps.example.com%2eevil.example",
    "https://evilapps.example.com",
    "https://one-apps.example.com",
    "https://auth.example.com.evil.example",
    "https://auth.example.com:444",
    "http://auth.example.com",
    "https://evil.example",
    "null",
  ];

  it("names the cookie __Secure- and marks it Secure, HttpOnly, SameSite=Lax, host-only", async () => {
    const http = platform.client();
    const res = await http.post("/sign-up/email", { name: "Secure", email: uniqueEmail("secure"), password: PASSWORD, rememberMe: false });
    expect(res.status).toBe(200);
    expect(setCookieOf(res, SECURE_COOKIE)).toMatch(/^__Secure-better-auth\.session_token=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    expect(setCookieOf(res, `__Secure-${DONT_REMEMBER}`)).toMatch(/; Secure$/);
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/Domain=/i);
    // The unprefixed name a sibling host could plant over plain http is not read.
    const planted = await new TestClient(platform.baseURL).get("/get-session", { cookie: `${SESSION_COOKIE}=${http.cookies.get(SECURE_COOKIE)}` });
    expect(planted.body).toBeNull();
    const signOut = await http.post("/sign-out");
    expect(setCookieOf(signOut, SECURE_COOKIE)).toMatch(/Max-Age=0; Secure$/);
  });

  it("takes a cookie-bearing POST from one label under the wildcard and from itself, never from a look-alike", async () => {
    const http = platform.client();
    expect((await http.post("/sign-up/email", { name: "Origin", email: uniqueEmail("origin"), password: PASSWORD })).status).toBe(200);
    for (const origin of FOREIGN) {
      const res = await http.request("POST", "/revoke-other-sessions", { json: {}, headers: { origin } });
      expect(res, origin).toMatchObject({ status: 403, body: { code: "INVALID_ORIGIN" } });
      if (origin !== "null") {
        const viaReferer = await http.request("POST", "/revoke-other-sessions", { json: {}, headers: { referer: `${origin}/page` } });
        expect(viaReferer, `referer ${origin}`).toMatchObject({ status: 403, body: { code: "INVALID_ORIGIN" } });
      }
    }
    for (const origin of TRUSTED) {
      expect((await http.request("POST", "/revoke-other-sessions", { json: {}, headers: { origin } })).status, origin).toBe(200);
    }
  });

  it("answers CORS with the exact trusted origin and credentials, never a wildcard, and nothing to others", async () => {
    for (const origin of [...TRUSTED, ...FOREIGN]) {
      const trusted = TRUSTED.includes(origin);
      const preflight = await fetch(`${platform.baseURL}/sign-in/email`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
      const read = await fetch(`${platform.baseURL}/ok`, { headers: { origin } });
      for (const res of [preflight, read]) {
        expect(res.headers.get("access-control-allow-origin"), origin).toBe(trusted ? origin : null);
        expect(res.headers.get("access-control-allow-credentials"), origin).toBe(trusted ? "true" : null);
        expect(res.headers.get("vary"), origin).toMatch(/Origin/);
      }
    }
  });

  it("accepts callback URLs on those origins only", async () => {
    const http = platform.client();
    const email = uniqueEmail("callback");
    expect((await http.post("/sign-up/email", { name: "Callback", email, password: PASSWORD })).status).toBe(200);
    for (const origin of FOREIGN.filter((o) => o !== "null")) {
      const res = await http.post("/send-verification-email", { email, callbackURL: `${origin}/done` });
      expect(res, origin).toMatchObject({ status: 403, body: { code: "INVALID_CALLBACKURL" } });
    }
    for (const origin of TRUSTED) {
      const res = await platform.client().post("/sign-in/email", { email, password: PASSWORD, callbackURL: `${origin}/done` });
      expect(res.body.url, origin).toBe(`${origin}/done`);
    }
  });
});

describe(`the open-redirect corpus on every route that takes a callback in its body (${backendLabel()})`, () => {
  const platform = usePlatform();

  interface CallbackRoute {
    path: string;
    fields: Array<"callbackURL" | "errorCallbackURL" | "newUserCallbackURL">;
    body: (email: string) => Record<string, unknown>;
    signedIn: boolean;
  }
  const ROUTES: CallbackRoute[] = [
    { path: "/sign-up/email", fields: ["callbackURL"], body: () => ({ name: "Redirect", email: uniqueEmail("redirect-sign-up"), password: PASSWORD }), signedIn: false },
    { path: "/sign-in/email", fields: ["callbackURL"], body: (email) => ({ email, password: PASSWORD }), signedIn: false },
    { path: "/sign-in/username", fields: ["callbackURL"], body: () => ({ username: "nobody", password: PASSWORD }), signedIn: false },
    { path: "/send-verification-email", fields: ["callbackURL"], body: (email) => ({ email }), signedIn: false },
    { path: "/sign-in/social", fields: ["callbackURL", "errorCallbackURL", "newUserCallbackURL"], body: () => ({ provider: "github" }), signedIn: false },
    { path: "/change-email", fields: ["callbackURL"], body: () => ({ newEmail: uniqueEmail("redirect-new") }), signedIn: true },
    { path: "/delete-user", fields: ["callbackURL"], body: () => ({ password: PASSWORD }), signedIn: true },
    { path: "/link-social", fields: ["callbackURL", "errorCallbackURL"], body: () => ({ provider: "github" }), signedIn: true },
    { path: "/sign-in/oauth2", fields: ["callbackURL", "errorCallbackURL", "newUserCallbackURL"], body: () => ({ providerId: "corp-sso" }), signedIn: false },
    { path: "/oauth2/link", fields: ["callbackURL", "errorCallbackURL"], body: () => ({ providerId: "corp-sso" }), signedIn: true },
  ];
  const REFUSED = {
    callbackURL: { code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" },
    errorCallbackURL: { code: "INVALID_ERRORCALLBACKURL", message: "Invalid errorCallbackURL" },
    newUserCallbackURL: { code: "INVALID_NEWUSERCALLBACKURL", message: "Invalid newUserCallbackURL" },
  };

  it("refuses every bypass in every callback field with the field's 403 (a NUL with a 400), and nothing happens", async () => {
    const user = platform.client();
    const email = uniqueEmail("redirect");
    expect((await user.post("/sign-up/email", { name: "Redirect", email, password: PASSWORD })).status).toBe(200);
    const token = user.cookies.get(SESSION_COOKIE)!;
    const outbox = async () => {
      await platform.mailSettled();
      return (await user.get<{ messages: unknown[] }>(`/dev/outbox?to=${encodeURIComponent(email)}`)).body.messages.length;
    };
    const mailedBefore = await outbox();
    for (const route of ROUTES) {
      for (const field of route.fields) {
        for (const value of redirectCorpus(platform.origin).refused) {
          const headers: Record<string, string> = route.signedIn ? { cookie: `${SESSION_COOKIE}=${token}` } : {};
          const res = await new TestClient(platform.baseURL).post(route.path, { ...route.body(email), [field]: value }, headers);
          const expected = value.includes("\u0000") ? { status: 400, body: { code: "VALIDATION_ERROR" } } : { status: 403, body: REFUSED[field] };
          expect(res, `${route.path} ${field} ${JSON.stringify(value)}`).toMatchObject(expected);
          expect(res.headers.getSetCookie(), `${route.path} ${field} ${JSON.stringify(value)}`).toEqual([]);
        }
      }
    }
    // The user is as it was: same address (change-email moves an unverified one at once), still there,
    // still signed in; and no mail was sent (verification, deletion).
    expect((await user.get("/get-session")).body.user.email).toBe(email);
    expect(await outbox()).toBe(mailedBefore);
  }, 120_000);

  it("writes every accepted callback as a sign-in url that stays on the app", async () => {
    const email = uniqueEmail("redirect-ok");
    expect((await platform.client().post("/sign-up/email", { name: "Redirect", email, password: PASSWORD })).status).toBe(200);
    for (const callbackURL of redirectCorpus(platform.origin).staysOnApp) {
      const res = await platform.client().post("/sign-in/email", { email, password: PASSWORD, callbackURL });
      expect(res.status, JSON.stringify(callbackURL)).toBe(200);
      const url: string = res.body.url;
      expect(url, JSON.stringify(callbackURL)).not.toMatch(/^(\/\/|\/\\|\\)/);
      expect(new URL(url, platform.baseURL).origin, `${JSON.stringify(callbackURL)} -> ${url}`).toBe(platform.origin);
    }
  }, 120_000);
});
