/**
 * Bad bodies on every route, through the gateway over real gRPC: malformed, missing, mistyped, oversized
 * and hostile. Each answer is a 4xx with exactly { code, message } (or the route's success), never a 500.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { PASSWORD, ROUTES, label, send, type Session, aSession, isAlive } from "./bad-input-helpers.js";

describe(`bad input (${backendLabel()})`, () => {
  describe("malformed JSON is a 400 VALIDATION_ERROR 'Malformed JSON body'", () => {
    const MALFORMED = ["{bad", '{"email": }', '{"email":"a@b.c",}', "{'email':'a@b.c'}", '{"a":1}}', '{"a":"\\x"}', "[1,2", "undefined", "NaN"];
    for (const route of ROUTES) {
      it(label(route), async () => {
        const { cookie } = await aSession();
        for (const body of MALFORMED) {
          const res = await send(route.method, route.path, { body, headers: { cookie } });
          expect(res, body).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Malformed JSON body" } });
        }
      });
    }
  });

  describe("missing and mistyped fields are a 400 VALIDATION_ERROR naming the field", () => {
    async function expectFieldError(path: string, body: Record<string, unknown>, field: string, headers: Record<string, string> = {}) {
      const res = await send("POST", path, { json: body, headers });
      expect(res.status, `${path} ${JSON.stringify(body).slice(0, 100)}`).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.message).toMatch(new RegExp(`^Invalid ${field}\\b`));
    }

    const without = (body: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));

    it("POST /sign-up/email", async () => {
      const valid = { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD };
      for (const field of ["name", "email", "password"]) await expectFieldError("/sign-up/email", without(valid, field), field);
      await expectFieldError("/sign-up/email", {}, "name");
      const mistyped: Array<[string, unknown]> = [
        ["email", 5],
        ["password", null],
        ["name", ["Ada"]],
        ["rememberMe", "yes"],
        ["image", 5],
        ["username", 5],
        ["displayUsername", { first: "Ada" }],
        ["email", true],
        ["password", 12345678],
      ];
      for (const [field, value] of mistyped) await expectFieldError("/sign-up/email", { ...valid, [field]: value }, field);
      // A name is required (docs/http-api/sign-in.md#post-sign-upemail), as update-user holds it: an empty or blank one makes no account.
      for (const name of ["", "   "]) await expectFieldError("/sign-up/email", { ...valid, name }, "name");
      expect((await send("POST", "/sign-in/email", { json: { email: valid.email, password: PASSWORD } })).status).toBe(401);
    });

    it("POST /sign-in/email", async () => {
      const { email } = await aSession();
      const valid = { email, password: PASSWORD };
      for (const field of ["email", "password"]) await expectFieldError("/sign-in/email", without(valid, field), field);
      await expectFieldError("/sign-in/email", {}, "email");
      const mistyped: Array<[string, unknown]> = [
        ["email", 5],
        ["password", null],
        ["rememberMe", "yes"],
        ["rememberMe", 1],
        ["email", { $ne: null }],
        ["password", ["password-123"]],
      ];
      for (const [field, value] of mistyped) await expectFieldError("/sign-in/email", { ...valid, [field]: value }, field);
    });

    it("POST /sign-in/username", async () => {
      const { username } = await aSession();
      const valid = { username, password: PASSWORD };
      for (const field of ["username", "password"]) await expectFieldError("/sign-in/username", without(valid, field), field);
      const mistyped: Array<[string, unknown]> = [
        ["username", 5],
        ["password", null],
        ["rememberMe", "yes"],
        ["username", { $gt: "" }],
      ];
      for (const [field, value] of mistyped) await expectFieldError("/sign-in/username", { ...valid, [field]: value }, field);
    });

    it("POST /revoke-session (with a valid session)", async () => {
      const session = await aSession();
      const headers = { cookie: session.cookie };
      for (const body of [{}, { token: 5 }, { token: null }, { token: "" }, { token: "t".repeat(257) }, { token: { $ne: null } }, { tokens: ["x"] }]) {
        await expectFieldError("/revoke-session", body, "token", headers);
      }
      expect(await isAlive(session)).toBe(true);
    });

    it("GET /get-session: its query flags must be booleans", async () => {
      const { cookie } = await aSession();
      for (const [field, value] of [
        ["disableRefresh", "yes"],
        ["disableCookieCache", "maybe"],
        ["disableRefresh", "2"],
      ]) {
        const res = await send("GET", `/get-session?${field}=${value}`, { headers: { cookie } });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("VALIDATION_ERROR");
        expect(res.body.message).toMatch(new RegExp(`^Invalid ${field}\\b`));
      }
      const ok = await send("GET", "/get-session?disableRefresh=true&disableCookieCache=false", { headers: { cookie } });
      expect(ok.status).toBe(200);
      expect(ok.body.session).toBeDefined();
    });

    it("routes without fields ignore stray ones of any type and succeed", async () => {
      const stray = { token: 5, email: null, rememberMe: "yes", nested: { deep: [1, 2, 3] } };
      for (const route of ROUTES.filter((r) => !r.readsBody)) {
        const session = await aSession();
        const res = await send(route.method, route.path, { json: stray, headers: { cookie: session.cookie } });
        expect(res.status, label(route)).toBe(200);
      }
    });

    it("the session routes answer 401 UNAUTHORIZED without a session, before reading the body", async () => {
      for (const route of ROUTES.filter((r) => r.auth && !["/sign-out", "/get-session"].includes(r.path))) {
        const res = await send(route.method, route.path, { json: {} });
        expect(res, label(route)).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED", message: "Unauthorized" } });
      }
      expect((await send("POST", "/sign-out", { json: {} })).body).toEqual({ success: true });
      expect((await send("GET", "/get-session")).body).toBeNull();
    });
  });

  describe("a 2 MB body is a 400 REQUEST_BODY_TOO_LARGE", () => {
    const HUGE = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    for (const route of ROUTES) {
      it(label(route), async () => {
        const session = await aSession();
        const res = await send(route.method, route.path, { body: HUGE, headers: { cookie: session.cookie } });
        expect(res).toMatchObject({ status: 400, body: { code: "REQUEST_BODY_TOO_LARGE", message: "Request body too large" } });
        expect(await isAlive(session)).toBe(true);
      });
    }
  });

  describe("hostile bodies are answered, never with a 500", () => {
    it("a JSON array body: a 400 where a body is read, ignored elsewhere", async () => {
      for (const route of ROUTES) {
        // A refused body changes nothing, so one session serves the route; one that is answered (sign-out,
        // revoke-sessions) may end it, so each body gets a fresh one (each a sign-up and its password hash).
        const refusing = route.readsBody ? await aSession() : undefined;
        for (const body of [[], [{ email: "a@example.com", password: PASSWORD }], [null]]) {
          const session = refusing ?? (await aSession());
          const res = await send(route.method, route.path, { json: body, headers: { cookie: session.cookie } });
          if (route.readsBody) expect(res, label(route)).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
          else expect(res.status, label(route)).toBe(200);
        }
      }
    });

    it("a null, string, number or boolean body is a 400 VALIDATION_ERROR (only objects and arrays are JSON bodies here)", async () => {
      for (const route of ROUTES) {
        const session = await aSession();
        for (const body of ["null", '"a string"', "42", "true"]) {
          const res = await send(route.method, route.path, { body, headers: { cookie: session.cookie } });
          expect(res, `${label(route)} ${body}`).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
        }
      }
    });

    it("huge string fields just under the body limit are a 400 naming the field or a catalogue error", async () => {
      const huge = "x".repeat(900 * 1024);
      const session = await aSession();
      const cases: Array<[string, Record<string, unknown>]> = [
        ["/sign-up/email", { name: huge, email: uniqueEmail("bad-input"), password: PASSWORD }],
        ["/sign-up/email", { name: "Ada", email: `${huge}@example.com`, password: PASSWORD }],
        ["/sign-up/email", { name: "Ada", email: uniqueEmail("bad-input"), password: huge }],
        ["/sign-up/email", { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD, username: huge }],
        ["/sign-up/email", { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD, image: huge }],
        ["/sign-in/email", { email: huge, password: PASSWORD }],
        ["/sign-in/email", { email: session.email, password: huge }],
        ["/sign-in/username", { username: huge, password: PASSWORD }],
        ["/sign-in/username", { username: session.username, password: huge }],
        ["/revoke-session", { token: huge }],
      ];
      for (const [path, body] of cases) {
        const res = await send("POST", path, { json: body, headers: { cookie: session.cookie } });
        expect(res.status, `${path} ${Object.keys(body).join(",").slice(0, 40)}`).toBe(400);
      }
      expect(await isAlive(session)).toBe(true);
    });

    // The identity service echoes an unknown field's name into its error message, which travels in a gRPC
    // trailer: a name past the trailer size limit broke the call and surfaced as a 500.
    it("a huge unknown sign-up field name is ignored like any unknown field, never stored", async () => {
      for (const length of [1_000, 100_000, 500_000]) {
        const res = await send("POST", "/sign-up/email", { json: { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD, ["k".repeat(length)]: 1 } });
        expect(res.status, `a ${length}-character field name`).toBe(200);
        expect(Object.keys(res.body.user).some((key) => key.startsWith("kkk"))).toBe(false);
      }
    });

    it("unicode names round-trip, and a unicode password signs in whatever its normal form", async () => {
      const name = "Zoë Ångström 李小龍 🚀 مرحبا \u202eevil";
      const email = uniqueEmail("unicode");
      const password = "pa\u0301ss-wörd-🔑"; // "á" decomposed (NFD)
      const signUp = await send("POST", "/sign-up/email", { json: { name, email, password } });
      expect(signUp.status).toBe(200);
      expect(signUp.body.user.name).toBe(name);
      const cookie = signUp.setCookies.map((line) => line.split(";")[0]).join("; ");
      expect((await send("GET", "/get-session", { headers: { cookie } })).body.user.name).toBe(name);
      const signIn = await send("POST", "/sign-in/email", { json: { email, password: password.normalize("NFC") } });
      expect(signIn.status).toBe(200);
    });

    it("unicode and odd strings in every field are answered without a 500", async () => {
      const session = await aSession();
      // biome-ignore lint/suspicious/noTemplateCurlyInString: "${jndi:x}" is a literal attack string (Log4Shell), not a template.
      const odd = ["ü@例え.jp", "😀", "\ud800", "\u202e\u200b", "a\u0301", "𝒜𝒹𝒶", "' OR 1=1 --", '"; DROP TABLE user; --', "\\", "%00", "${jndi:x}"];
      for (const value of odd) {
        await send("POST", "/sign-up/email", { json: { name: value, email: uniqueEmail("odd"), password: PASSWORD, username: value } });
        await send("POST", "/sign-up/email", { json: { name: value, email: value, password: value } });
        await send("POST", "/sign-in/email", { json: { email: value, password: value } });
        await send("POST", "/sign-in/username", { json: { username: value, password: value } });
        await send("POST", "/revoke-session", { json: { token: value }, headers: { cookie: session.cookie } });
        const encoded = encodeURIComponent(value.toWellFormed());
        await send("GET", `/get-session?disableRefresh=${encoded}&callbackURL=${encoded}`, { headers: { cookie: session.cookie } });
        await send("GET", "/get-session", { headers: { authorization: `Bearer ${encoded}` } });
      }
      expect(await isAlive(session)).toBe(true);
    });

    // NUL characters pass JSON and zod, but SQL text cannot hold them: they must be refused as bad input.
    const NUL_CASES: Array<[string, string, (session: Session) => Record<string, unknown>]> = [
      ["/sign-up/email", "name", () => ({ name: "a\u0000b", email: uniqueEmail("nul"), password: PASSWORD })],
      ["/sign-up/email", "image", () => ({ name: "Ada", email: uniqueEmail("nul"), password: PASSWORD, image: "https://example.com/\u0000.png" })],
      ["/sign-up/email", "displayUsername", () => ({ name: "Ada", email: uniqueEmail("nul"), password: PASSWORD, displayUsername: "Ada\u0000" })],
      ["/sign-up/email", "password", () => ({ name: "Ada", email: uniqueEmail("nul"), password: "pass\u0000word-123" })],
      ["/sign-in/email", "email", (s) => ({ email: `${s.email}\u0000`, password: PASSWORD })],
      ["/sign-in/username", "username", (s) => ({ username: `${s.username}\u0000`, password: PASSWORD })],
      ["/revoke-session", "token", (s) => ({ token: `${s.token}\u0000` })],
    ];
    for (const [path, field, body] of NUL_CASES) {
      it(`a NUL character in ${path} ${field} is not a 500`, async () => {
        const session = await aSession();
        const res = await send("POST", path, { json: body(session), headers: { cookie: session.cookie } });
        expect(res.status).toBeLessThan(500);
        expect(await isAlive(session)).toBe(true);
      });
    }

    it("deeply nested JSON is a 400", async () => {
      const deepArray = "[".repeat(300_000) + "]".repeat(300_000);
      const deepObject = `${'{"a":'.repeat(80_000)}1${"}".repeat(80_000)}`;
      for (const body of [deepArray, deepObject]) {
        const res = await send("POST", "/sign-in/email", { body });
        expect(res).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
      }
    });

    // Sign-up passes fields it does not know on to the identity service as JSON: re-serialising a deeply
    // nested one overflowed the stack and surfaced as a 500.
    it("a deeply nested extra sign-up field is a 400", async () => {
      const deepObject = `${'{"a":'.repeat(80_000)}1${"}".repeat(80_000)}`;
      const body = `{"name":"Ada","email":"${uniqueEmail("deep")}","password":"${PASSWORD}","nested":${deepObject}}`;
      const res = await send("POST", "/sign-up/email", { body });
      expect(res).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
    });

    it("prototype keys are plain data", async () => {
      for (const key of ["__proto__", "constructor", "prototype"]) {
        const body = `{"${key}":{"isAdmin":true},"name":"Ada","email":"${uniqueEmail("proto")}","password":"${PASSWORD}"}`;
        const res = await send("POST", "/sign-up/email", { body });
        expect(res.status, key).toBeLessThan(500);
      }
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it("other content types and encodings are a 400", async () => {
      const text = await send("POST", "/sign-in/email", { body: "email=a@b.c&password=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
      expect(text).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
      const charset = await send("POST", "/sign-in/email", { body: "{}", headers: { "content-type": "application/json; charset=latin1" } });
      expect(charset).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Unsupported body encoding" } });
      const encoding = await send("POST", "/sign-in/email", { body: "{}", headers: { "content-encoding": "compress" } });
      expect(encoding).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Unsupported body encoding" } });
    });

    // Regression: a body declared gzip that is not gzip made zlib throw an untyped 400, mapped to a 500.
    it("a corrupt gzip body is a 400", async () => {
      const res = await send("POST", "/sign-in/email", { body: "definitely not gzip", headers: { "content-encoding": "gzip" } });
      expect(res).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Invalid request body" } });
    });
  });
});
