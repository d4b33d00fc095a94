/**
 * The account routes' rules on bad input, through the gateway over real gRPC with mail to a real SMTP
 * server: an untrusted callback URL changes nothing, the session routes need a session, and no answer tells
 * whether an address is registered.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import {
  platform,
  PASSWORD,
  EVIL,
  UNKNOWN_RESET_TOKEN,
  type Reply,
  send,
  expectError,
  aSession,
  currentUser,
  mailsTo,
  callbackURL,
  ROUTES,
  call,
} from "./account-routes-bad-input-helpers.js";

describe(`bad input on the account routes (${backendLabel()})`, () => {
  describe("an untrusted callback URL is a 403 for its field, and nothing happens", () => {
    for (const route of ROUTES) {
      const own = route.fields.find((f) => f.callback);
      it(`${route.label} (${own?.name ?? "callbackURL"})`, async () => {
        const session = await aSession();
        await platform.smtp.waitFor(session.email);
        await platform.mailSettled();
        const mailsBefore = mailsTo(session.email);
        const fields = own ? [own] : [callbackURL];
        for (const field of fields) {
          for (const url of [EVIL, "//evil.example/x", "/\\evil.example", "javascript:alert(1)", `${platform.origin}.evil.example/x`]) {
            const res = await call(route, { ...route.valid(session), [field.name]: url }, { cookie: session.cookie });
            expectError(res, field.callback!, `${route.label} ${field.name}=${url}`);
            expect(res.setCookies, route.label).toEqual([]);
          }
        }
        // Any callback field is checked wherever it appears, in the body or the query.
        const query = await send(
          route.method,
          `${route.path}?redirectTo=${encodeURIComponent(EVIL)}`,
          route.input === "body" ? { json: route.valid(session), headers: { cookie: session.cookie } } : { headers: { cookie: session.cookie } },
        );
        expectError(query, "INVALID_REDIRECTURL", `${route.label} ?redirectTo`);
        await platform.mailSettled();
        expect(mailsTo(session.email), `${route.label} sent mail`).toBe(mailsBefore);
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
        expect((await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD } })).status).toBe(200);
      });
    }

    it("the same routes accept a relative callback and one on the gateway's origin", async () => {
      const session = await aSession();
      const sve = await send("POST", "/send-verification-email", { json: { email: session.email, callbackURL: `${platform.origin}/verified` } });
      expect(sve).toMatchObject({ status: 200, body: { status: true } });
      const fp = await send("POST", "/forget-password", { json: { email: session.email, redirectTo: "/reset" } });
      expect(fp).toMatchObject({ status: 200, body: { status: true } });
      const landing = await send("GET", `/reset-password/${UNKNOWN_RESET_TOKEN}?callbackURL=${encodeURIComponent(`${platform.origin}/reset`)}`);
      expect(landing).toMatchObject({ status: 302, location: `${platform.origin}/reset?error=INVALID_TOKEN` });
      const verify = await send("GET", "/verify-email?token=garbage&callbackURL=%2Fdone");
      expect(verify).toMatchObject({ status: 302, location: "/done?error=invalid_token" });
    });
  });

  describe("without a session the session routes are a 401 UNAUTHORIZED; the others need none", () => {
    const FORGED: Array<Record<string, string>> = [
      {},
      { cookie: "better-auth.session_token=not-a-token" },
      { cookie: `better-auth.session_token=${"a".repeat(32)}.${"b".repeat(43)}` },
      { authorization: "Bearer garbage" },
      { authorization: `Bearer ${"a".repeat(32)}` },
    ];
    for (const route of ROUTES.filter((r) => r.auth)) {
      it(route.label, async () => {
        const session = await aSession();
        for (const headers of FORGED) {
          const res = await call(route, route.valid(session), headers);
          expectError(res, "UNAUTHORIZED", `${route.label} ${JSON.stringify(headers)}`);
        }
        // A signed-out session's cookie is no better.
        const ended = await aSession();
        expect((await send("POST", "/sign-out", { json: {}, headers: { cookie: ended.cookie } })).status).toBe(200);
        expectError(await call(route, route.valid(ended), { cookie: ended.cookie }), "UNAUTHORIZED", `${route.label} signed out`);
        expect(await currentUser(session)).toMatchObject({ email: session.email, name: "Ada" });
      });
    }

    it("GET /delete-user/callback without a session and with a callbackURL redirects with error=unauthorized", async () => {
      const res = await send("GET", `/delete-user/callback?token=${"a".repeat(32)}&callbackURL=%2Fgoodbye`);
      expect({ status: res.status, location: res.location }).toEqual({ status: 302, location: "/goodbye?error=unauthorized" });
    });

    it("the verification and reset routes answer without a session", async () => {
      const { email } = await aSession();
      expect(await send("POST", "/send-verification-email", { json: { email } })).toMatchObject({ status: 200, body: { status: true } });
      expect(await send("POST", "/forget-password", { json: { email } })).toMatchObject({ status: 200, body: { status: true } });
      expect(await send("POST", "/request-password-reset", { json: { email } })).toMatchObject({ status: 200, body: { status: true } });
      expectError(await send("GET", "/verify-email?token=garbage"), "INVALID_TOKEN", "verify");
      expectError(await send("POST", "/reset-password", { json: { newPassword: "new-password-1", token: UNKNOWN_RESET_TOKEN } }), "INVALID_TOKEN", "reset");
      expect(await send("GET", `/reset-password/${UNKNOWN_RESET_TOKEN}?callbackURL=%2Freset`)).toMatchObject({ status: 302, location: "/reset?error=INVALID_TOKEN" });
    });
  });

  describe("no user enumeration", () => {
    /** What a caller can observe of an answer: status, body bytes, and whether it sets cookies. */
    const observed = (res: Reply) => ({ status: res.status, text: res.text, contentType: res.headers["content-type"], setCookies: res.setCookies });

    async function verifiedSession() {
      const session = await aSession("verified");
      const link = linkIn(await platform.smtp.waitFor(session.email, (m) => m.text.includes("/verify-email")), "/verify-email");
      // The mailed link lands on the app root (its default callbackURL).
      expect((await send("GET", link.slice(platform.baseURL.length))).status).toBe(302);
      return session;
    }

    for (const path of ["/forget-password", "/request-password-reset"]) {
      it(`POST ${path}: byte-identical answers for a known, a verified and an unknown address; 400 for a malformed one`, async () => {
        const known = await aSession();
        const verified = await verifiedSession();
        expectError(await send("POST", path, { json: { email: "not-an-email", redirectTo: "/reset" } }), "INVALID_EMAIL", "a malformed address");
        const answers = [];
        for (const email of [known.email, known.email.toUpperCase(), verified.email, uniqueEmail("unknown")]) {
          answers.push(observed(await send("POST", path, { json: { email, redirectTo: "/reset" } })));
        }
        expect(answers[0]!.status).toBe(200);
        for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
        // Only the known addresses get mail.
        await platform.smtp.waitFor(known.email, (m) => m.text.includes("/reset-password/"));
        await platform.smtp.waitFor(verified.email, (m) => m.text.includes("/reset-password/"));
      });
    }

    it("POST /send-verification-email: byte-identical answers for an unverified, a verified and an unknown address", async () => {
      const known = await aSession();
      const verified = await verifiedSession();
      await platform.mailSettled();
      const verifiedMails = mailsTo(verified.email);
      const answers = [];
      for (const email of [known.email, verified.email, known.email.toUpperCase(), uniqueEmail("unknown")]) {
        answers.push(observed(await send("POST", "/send-verification-email", { json: { email, callbackURL: "/verified" } })));
      }
      expect(answers[0]!.status).toBe(200);
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
      await platform.smtp.waitFor(known.email, (m) => linkIn(m, "/verify-email").includes("callbackURL=%2Fverified"));
      await platform.mailSettled();
      expect(mailsTo(verified.email)).toBe(verifiedMails);
    });

    it("sign-in: a wrong password and an unknown email answer byte-identical bodies and the same status", async () => {
      const known = await aSession();
      const verified = await verifiedSession();
      const attempts = [
        { email: known.email, password: "wrong-password" },
        { email: verified.email, password: "wrong-password" },
        { email: uniqueEmail("unknown"), password: "wrong-password" },
        { email: uniqueEmail("unknown"), password: PASSWORD },
        { email: "not-an-email", password: PASSWORD },
      ];
      const answers = [];
      for (const json of attempts) answers.push(observed(await send("POST", "/sign-in/email", { json })));
      expect(answers[0]).toMatchObject({ status: 401, setCookies: [] });
      expect(JSON.parse(answers[0]!.text)).toEqual({ code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" });
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
    });
  });
});
