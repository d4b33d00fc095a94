/**
 * Bad fields on every account route (verification, password reset, change email and password, update and
 * delete user, linked accounts), through the gateway over real gRPC: malformed JSON, missing and mistyped
 * fields, oversized and hostile strings, a 2 MB body. Every answer is checked against the catalogue: never a
 * 5xx, every error body exactly { code, message }, with the catalogue's status for its code.
 */
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "@auth-platform/proto/errors";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { PASSWORD, UNKNOWN_RESET_TOKEN, send, expectError, aSession, currentUser, ROUTES, POST_ROUTES, call, without, wrongValues } from "./account-routes-bad-input-helpers.js";

describe(`bad input on the account routes (${backendLabel()})`, () => {
  describe("malformed JSON on every POST is a 400 VALIDATION_ERROR 'Malformed JSON body'", () => {
    const MALFORMED = ["{bad", '{"email": }', '{"email":"a@b.c",}', "{'email':'a@b.c'}", '{"a":1}}', '{"a":"\\x"}', "[1,2", "undefined", "NaN", '{"a":"\u0000'];
    for (const route of POST_ROUTES) {
      it(route.label, async () => {
        const session = await aSession();
        for (const body of MALFORMED) {
          for (const headers of [{ cookie: session.cookie }, {}] as Array<Record<string, string>>) {
            const res = await send(route.method, route.path, { body, headers });
            expectError(res, "VALIDATION_ERROR", `${route.label} ${body}`);
            expect(res.body.message, body).toBe("Malformed JSON body");
          }
        }
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
      });
    }
  });

  describe("a missing required field is a 400 VALIDATION_ERROR naming it", () => {
    for (const route of ROUTES.filter((r) => r.fields.some((f) => f.required))) {
      it(route.label, async () => {
        const session = await aSession();
        const valid = route.valid(session);
        for (const field of route.fields.filter((f) => f.required)) {
          const res = await call(route, without(valid, field.name), { cookie: session.cookie });
          expectError(res, "VALIDATION_ERROR", `${route.label} without ${field.name}`, field.name);
          expect(res.body.message).toMatch(new RegExp(`^Invalid ${field.name}\\b`));
        }
        // Nothing at all: the first required field is named.
        const first = route.fields.find((f) => f.required)!;
        const empty = await call(route, {}, { cookie: session.cookie });
        expectError(empty, "VALIDATION_ERROR", `${route.label} {}`, first.name);
        expect(await currentUser(session)).toMatchObject({ email: session.email });
      });
    }

    it("an empty string answers the catalogue's code for that field (nothing is changed)", async () => {
      const session = await aSession();
      const cookie = { cookie: session.cookie };
      const cases: Array<[string, string, Record<string, unknown>, ErrorCode, string?]> = [
        ["POST", "/send-verification-email", { email: "" }, "INVALID_EMAIL"],
        ["GET", "/verify-email?token=", {}, "VALIDATION_ERROR", "token"],
        ["GET", `/reset-password/${UNKNOWN_RESET_TOKEN}?callbackURL=`, {}, "VALIDATION_ERROR", "callbackURL"],
        ["POST", "/reset-password", { newPassword: "", token: UNKNOWN_RESET_TOKEN }, "PASSWORD_TOO_SHORT"],
        ["POST", "/reset-password", { newPassword: "new-password-1", token: "" }, "INVALID_TOKEN"],
        ["POST", "/change-email", { newEmail: "" }, "INVALID_EMAIL"],
        ["POST", "/change-password", { currentPassword: PASSWORD, newPassword: "" }, "PASSWORD_TOO_SHORT"],
        ["POST", "/change-password", { currentPassword: "", newPassword: "next-password-1" }, "INVALID_PASSWORD"],
        ["POST", "/update-user", { name: "" }, "VALIDATION_ERROR", "name"],
        ["POST", "/delete-user", { password: "" }, "INVALID_PASSWORD"],
        ["POST", "/delete-user", { token: "" }, "INVALID_TOKEN"],
        ["GET", "/delete-user/callback?token=", {}, "VALIDATION_ERROR", "token"],
        ["POST", "/unlink-account", { providerId: "" }, "VALIDATION_ERROR", "providerId"],
      ];
      for (const [method, path, json, code, field] of cases) {
        const res = await send(method, path, method === "POST" ? { json, headers: cookie } : { headers: cookie });
        expectError(res, code, `${method} ${path} ${JSON.stringify(json)}`, field);
      }
      // The forgot-password paths refuse an empty address as malformed (INVALID_EMAIL).
      for (const path of ["/forget-password", "/request-password-reset"]) {
        expectError(await send("POST", path, { json: { email: "" } }), "INVALID_EMAIL", `POST ${path}`);
      }
      expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
      expect((await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD } })).status).toBe(200);
    });

    it("a body that is not JSON (form or text content type) reads as empty: the first required field is named", async () => {
      const session = await aSession();
      for (const route of POST_ROUTES.filter((r) => r.fields.some((f) => f.required))) {
        const first = route.fields.find((f) => f.required)!;
        for (const [type, body] of [
          ["application/x-www-form-urlencoded", `${first.name}=x`],
          ["text/plain", JSON.stringify(route.valid(session))],
        ] as const) {
          const res = await send("POST", route.path, { body, headers: { "content-type": type, cookie: session.cookie } });
          expectError(res, "VALIDATION_ERROR", `${route.label} as ${type}`, first.name);
        }
      }
    });

    it("POST /reset-password without a token in body or query is a 400 INVALID_TOKEN (the token may come in either)", async () => {
      for (const body of [{ newPassword: "new-password-1" }, { newPassword: "new-password-1", token: null }]) {
        expectError(await send("POST", "/reset-password", { json: body }), "INVALID_TOKEN", JSON.stringify(body));
      }
      expectError(await send("POST", "/reset-password?token=a&token=b", { json: { newPassword: "new-password-1" } }), "VALIDATION_ERROR", "token twice in the query", "token");
    });
  });

  describe("a field of the wrong type is a 400 VALIDATION_ERROR naming it (callback URLs: a 403)", () => {
    for (const route of ROUTES.filter((r) => r.fields.length)) {
      it(route.label, async () => {
        const session = await aSession();
        const valid = route.valid(session);
        for (const field of route.fields) {
          for (const value of wrongValues(route, field)) {
            const what = `${route.label} ${field.name}=${JSON.stringify(value)}`;
            const res = await call(route, { ...valid, [field.name]: value }, { cookie: session.cookie });
            if (field.callback) expectError(res, field.callback, what);
            else expectError(res, "VALIDATION_ERROR", what, field.name);
          }
        }
        // Nothing happened to the user on the way.
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
        expect((await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD } })).status).toBe(200);
      });
    }

    it("POST /update-user: an empty or blank name is refused by name; fields that are not inputs, of any type, are ignored", async () => {
      const session = await aSession();
      for (const [body, field] of [
        [{ name: "" }, "name"],
        [{ name: "   " }, "name"],
      ] as const) {
        expectError(await send("POST", "/update-user", { json: body, headers: { cookie: session.cookie } }), "VALIDATION_ERROR", JSON.stringify(body), field);
      }
      for (const body of [
        { favouriteColour: "blue" },
        { role: "admin" },
        { emailVerified: true },
        { banned: { $ne: null } },
        { constructor: { prototype: 1 } },
        { toString: "x" },
      ]) {
        const res = await send("POST", "/update-user", { json: body, headers: { cookie: session.cookie } });
        expect({ status: res.status, body: res.body }, JSON.stringify(body)).toEqual({ status: 200, body: { status: true } });
      }
      const user = (await currentUser(session)) as Record<string, unknown>;
      // The admin fields are served, and keep their defaults whatever the request said.
      expect(user).toMatchObject({ emailVerified: false, role: "user", banned: false });
      expect(Object.hasOwn(user, "favouriteColour")).toBe(false);
      expectError(await send("POST", "/update-user", { json: { email: uniqueEmail() }, headers: { cookie: session.cookie } }), "EMAIL_CAN_NOT_BE_UPDATED", "email");
      const proto = await send("POST", "/update-user", { body: '{"__proto__":{"role":"admin"},"name":"Proto"}', headers: { cookie: session.cookie } });
      expect(proto.status).toBeLessThan(500);
      expect(await currentUser(session)).toMatchObject({ email: session.email });
      expect((await currentUser(session)) as Record<string, unknown>).not.toHaveProperty("role", "admin");
    });

    it("a JSON array, or a scalar, as the body is a 400 VALIDATION_ERROR on every POST", async () => {
      const session = await aSession();
      for (const route of POST_ROUTES) {
        for (const body of ["[]", JSON.stringify([route.valid(session)]), "null", '"a string"', "42", "true"]) {
          // Even the routes without a required field (update-user, delete-user) take only an object.
          const res = await send("POST", route.path, { body, headers: { cookie: session.cookie } });
          expectError(res, "VALIDATION_ERROR", `${route.label} ${body}`);
        }
      }
      expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
    });
  });

  describe("oversized and hostile strings are a 400 naming the field, never a 500", () => {
    const HUGE = "x".repeat(5_000);
    for (const route of ROUTES.filter((r) => r.fields.length)) {
      it(route.label, async () => {
        const session = await aSession();
        const valid = route.valid(session);
        for (const field of route.fields.filter((f) => f.kind === "string")) {
          const value = field.callback ? `/${HUGE}` : field.name.toLowerCase().includes("email") ? `${HUGE}@example.com` : HUGE;
          const res = await call(route, { ...valid, [field.name]: value }, { cookie: session.cookie });
          expectError(res, "VALIDATION_ERROR", `${route.label} ${field.name} of ${value.length}`, field.name);
        }
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
      });
    }

    it("a password over the configured maximum but under the body schema's is 400 PASSWORD_TOO_LONG", async () => {
      const session = await aSession();
      const long = "p".repeat(129);
      expectError(await send("POST", "/reset-password", { json: { newPassword: long, token: UNKNOWN_RESET_TOKEN } }), "PASSWORD_TOO_LONG", "reset");
      expectError(
        await send("POST", "/change-password", { json: { currentPassword: PASSWORD, newPassword: long }, headers: { cookie: session.cookie } }),
        "PASSWORD_TOO_LONG",
        "change",
      );
      expectError(
        await send("POST", "/change-password", { json: { currentPassword: PASSWORD, newPassword: "short" }, headers: { cookie: session.cookie } }),
        "PASSWORD_TOO_SHORT",
        "change",
      );
    });

    it("GET /reset-password/:token with an oversized or odd token lands on the callback with error=INVALID_TOKEN", async () => {
      for (const token of ["t".repeat(4_000), "%00", "..%2F..%2Fetc", "a%20b", "%F0%9F%98%80"]) {
        const res = await send("GET", `/reset-password/${token}?callbackURL=%2Freset`);
        expect({ status: res.status, location: res.location }, token.slice(0, 20)).toEqual({ status: 302, location: "/reset?error=INVALID_TOKEN" });
      }
    });

    // Bug: a malformed percent-escape in the path parameter makes the router throw a URIError (status 400,
    // but neither `type` nor `expose`), which the error mapper does not recognise: a 500.
    it("GET /reset-password/:token with a malformed percent-escape is a 4xx (or the INVALID_TOKEN redirect), not a 500", async () => {
      for (const token of ["%E0%A4%A", "%zz", "%"]) {
        const res = await send("GET", `/reset-password/${token}?callbackURL=%2Freset`);
        if (res.status === 302) expect(res.location, token).toBe("/reset?error=INVALID_TOKEN");
        else expectError(res, "VALIDATION_ERROR", token);
      }
    });

    // NUL passes JSON and zod, but no SQL text column takes it: it must be refused as bad input, not a 500.
    it("NUL characters in string fields are a 4xx, never a 500", async () => {
      const session = await aSession();
      const cases: Array<[string, Record<string, unknown>]> = [
        ["/change-email", { newEmail: `a\u0000${uniqueEmail()}` }],
        ["/send-verification-email", { email: `${session.email}\u0000` }],
        ["/reset-password", { newPassword: "new-password-1", token: `${UNKNOWN_RESET_TOKEN}\u0000` }],
        ["/unlink-account", { providerId: "credential\u0000" }],
        ["/delete-user", { token: "\u0000".repeat(32) }],
        // Mid-string: a trailing NUL is no test here, as scrypt's HMAC zero-pads the key ("pw\0" hashes as "pw").
        ["/change-password", { currentPassword: "password\u0000-123", newPassword: "next-password-1" }],
      ];
      for (const [path, body] of cases) {
        const res = await send("POST", path, { json: body, headers: { cookie: session.cookie } });
        expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).toBeGreaterThanOrEqual(400);
      }
      // A NUL is bad input on every route, forget-password included: refused alike for any address, so
      // the answer says nothing about which accounts exist.
      for (const email of [`${session.email}\u0000`, `${uniqueEmail("nobody")}\u0000`]) {
        expect(await send("POST", "/forget-password", { json: { email } })).toMatchObject({
          status: 400,
          body: { code: "VALIDATION_ERROR", message: "Invalid email: must not contain NUL characters" },
        });
      }
      for (const query of ["/verify-email?token=%00", `/delete-user/callback?token=${"%00".repeat(32)}`, "/verify-email?token=a&callbackURL=%2F%00"]) {
        const res = await send("GET", query, { headers: { cookie: session.cookie } });
        expect(res.status, `${query}: ${res.text}`).toBeGreaterThanOrEqual(400);
      }
      expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
    });

    // Bug: POST /update-user stores name and image as given; a NUL reaches the database, which refuses it
    // (PostgreSQL: "invalid message format"; SQLite: "unrecognized token"), and the answer is a 500.
    it("POST /update-user with a NUL in name or image is a 400 VALIDATION_ERROR naming the field, not a 500", async () => {
      const session = await aSession();
      for (const [field, value] of [
        ["name", "Ada\u0000Lovelace"],
        ["image", "https://img.example/\u0000.png"],
      ] as const) {
        const res = await send("POST", "/update-user", { json: { [field]: value }, headers: { cookie: session.cookie } });
        expectError(res, "VALIDATION_ERROR", `update-user ${field} with NUL`, field);
      }
      expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
    });
  });

  describe("a 2 MB body is a 400 REQUEST_BODY_TOO_LARGE", () => {
    const HUGE = JSON.stringify({ email: "x".repeat(2 * 1024 * 1024) });
    for (const route of ROUTES) {
      it(route.label, async () => {
        const session = await aSession();
        for (const headers of [{ cookie: session.cookie }, {}] as Array<Record<string, string>>) {
          const res = await send(route.method, route.path, { body: HUGE, headers });
          expectError(res, "REQUEST_BODY_TOO_LARGE", route.label);
        }
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
      });
    }
  });
});
