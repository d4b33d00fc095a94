/**
 * Untrusted callback URLs on the sign-in and sign-up routes, and cross-site POSTs carrying a cookie (the
 * Origin check), through the gateway over real gRPC: a 403 with exactly { code, message }, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";
import { PASSWORD, EVIL, INVALID_CALLBACK, INVALID_ORIGIN, ROUTES, POST_ROUTES, label, platform, send, aSession, isAlive, validBody } from "./bad-input-helpers.js";

describe(`bad input (${backendLabel()})`, () => {
  describe("callback URLs", () => {
    it("an untrusted callbackURL in the body is a 403 INVALID_CALLBACKURL on every POST route, and nothing happens", async () => {
      for (const route of POST_ROUTES) {
        const session = await aSession();
        const body = { ...((await validBody(route, session)) as object), callbackURL: `${EVIL}/x` };
        const res = await send(route.method, route.path, { json: body, headers: { cookie: session.cookie } });
        expect(res, label(route)).toMatchObject({ status: 403, body: INVALID_CALLBACK });
        expect(res.setCookies, label(route)).toEqual([]);
        expect(await isAlive(session), label(route)).toBe(true);
      }
    });

    it("an untrusted callbackURL in the query is a 403 INVALID_CALLBACKURL on every route", async () => {
      for (const route of ROUTES) {
        const session = await aSession();
        const json = await validBody(route, session);
        const res = await send(route.method, `${route.path}?callbackURL=${encodeURIComponent(`${EVIL}/x`)}`, { json, headers: { cookie: session.cookie } });
        expect(res, label(route)).toMatchObject({ status: 403, body: INVALID_CALLBACK });
      }
    });

    it("look-alike, protocol-relative, backslash and script URLs are refused too", async () => {
      const session = await aSession();
      const host = new URL(platform.origin).host;
      for (const url of ["//evil.example/x", "/\\evil.example", "javascript:alert(1)", `http://${host}.evil.example/`, `${EVIL}?${platform.origin}`, "data:text/html,x"]) {
        const res = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL: url } });
        expect(res, url).toMatchObject({ status: 403, body: INVALID_CALLBACK });
      }
    });

    it("each callback field answers its own code", async () => {
      const session = await aSession();
      const cases: Array<[string, string, string]> = [
        ["redirectTo", "INVALID_REDIRECTURL", "Invalid redirectURL"],
        ["errorCallbackURL", "INVALID_ERRORCALLBACKURL", "Invalid errorCallbackURL"],
        ["newUserCallbackURL", "INVALID_NEWUSERCALLBACKURL", "Invalid newUserCallbackURL"],
      ];
      for (const [field, code, message] of cases) {
        const res = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, [field]: `${EVIL}/x` } });
        expect(res, field).toMatchObject({ status: 403, body: { code, message } });
      }
    });

    it("a non-string callbackURL is refused, not a 500", async () => {
      const session = await aSession();
      for (const callbackURL of [5, ["/ok"], { href: "/ok" }, true]) {
        const res = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL } });
        expect(res, JSON.stringify(callbackURL)).toMatchObject({ status: 403, body: INVALID_CALLBACK });
      }
    });

    it("a relative callbackURL, or one on the gateway's own origin, is accepted", async () => {
      const session = await aSession();
      const signIn = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL: "/dashboard" } });
      expect(signIn).toMatchObject({ status: 200, body: { redirect: true, url: "/dashboard" } });
      const own = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL: `${platform.origin}/after` } });
      expect(own).toMatchObject({ status: 200, body: { redirect: true, url: `${platform.origin}/after` } });
      const signUp = await send("POST", "/sign-up/email", { json: { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD, callbackURL: "/welcome" } });
      expect(signUp.status).toBe(200);
      const query = await send("GET", "/get-session?callbackURL=%2Fhome", { headers: { cookie: session.cookie } });
      expect(query.status).toBe(200);
      expect(query.body.session.token).toBe(session.token);
    });
  });

  describe("the Origin check on POSTs carrying a cookie", () => {
    it("a foreign Origin is a 403 INVALID_ORIGIN on every POST route, and nothing happens", async () => {
      for (const route of POST_ROUTES) {
        const session = await aSession();
        const json = await validBody(route, session);
        const res = await send(route.method, route.path, { json, headers: { cookie: session.cookie, origin: EVIL } });
        expect(res, label(route)).toMatchObject({ status: 403, body: INVALID_ORIGIN });
        expect(res.setCookies, label(route)).toEqual([]);
        expect(await isAlive(session), label(route)).toBe(true);
      }
    });

    it("a foreign Referer, an opaque 'null' Origin, and a look-alike origin are refused too", async () => {
      const session = await aSession();
      const host = new URL(platform.origin).host;
      const foreign: Array<Record<string, string>> = [
        { referer: `${EVIL}/page` },
        { origin: "null" },
        { origin: `http://${host}.evil.example` },
        { origin: "not a url" },
        { origin: platform.origin.replace("http:", "https:") },
      ];
      for (const headers of foreign) {
        const res = await send("POST", "/revoke-other-sessions", { json: {}, headers: { cookie: session.cookie, ...headers } });
        expect(res, JSON.stringify(headers)).toMatchObject({ status: 403, body: INVALID_ORIGIN });
      }
      expect(await isAlive(session)).toBe(true);
    });

    it("the gateway's own Origin (or Referer) is accepted on every POST route", async () => {
      for (const route of POST_ROUTES) {
        const session = await aSession();
        const json = await validBody(route, session);
        const res = await send(route.method, route.path, { json, headers: { cookie: session.cookie, origin: platform.origin } });
        expect(res.status, `${label(route)}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      const session = await aSession();
      const viaReferer = await send("POST", "/revoke-other-sessions", { json: {}, headers: { cookie: session.cookie, referer: `${platform.origin}/app/settings` } });
      expect(viaReferer).toMatchObject({ status: 200, body: { status: true } });
    });

    it("is not applied without a cookie (no ambient credentials to abuse) nor to GETs", async () => {
      const session = await aSession();
      const signIn = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD }, headers: { origin: EVIL } });
      expect(signIn.status).toBe(200);
      const read = await send("GET", "/get-session", { headers: { cookie: session.cookie, origin: EVIL } });
      expect(read.status).toBe(200);
      expect(read.body.session.token).toBe(session.token);
    });

    describe("with AUTH_TRUSTED_ORIGINS", () => {
      const APP = "https://app.example.com";
      let trusted: Platform;
      beforeAll(async () => {
        trusted = await startPlatform({ env: { AUTH_TRUSTED_ORIGINS: APP } });
      });
      afterAll(async () => {
        await trusted?.stop();
      });

      it("accepts POSTs from the configured origin and still refuses others", async () => {
        for (const route of POST_ROUTES) {
          const session = await aSession(trusted);
          const json = await validBody(route, session, trusted);
          const res = await send(route.method, route.path, { json, headers: { cookie: session.cookie, origin: APP }, base: trusted });
          expect(res.status, `${label(route)}: ${JSON.stringify(res.body)}`).toBe(200);
        }
        const session = await aSession(trusted);
        for (const origin of [EVIL, "https://other.example.com", "http://app.example.com", "https://app.example.com.evil.example"]) {
          const res = await send("POST", "/revoke-other-sessions", { json: {}, headers: { cookie: session.cookie, origin }, base: trusted });
          expect(res, origin).toMatchObject({ status: 403, body: INVALID_ORIGIN });
        }
        const own = await send("POST", "/revoke-other-sessions", { json: {}, headers: { cookie: session.cookie, origin: trusted.origin }, base: trusted });
        expect(own.status).toBe(200);
      });

      it("accepts callback URLs on the configured origin", async () => {
        const session = await aSession(trusted);
        const res = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL: `${APP}/after` }, base: trusted });
        expect(res).toMatchObject({ status: 200, body: { redirect: true, url: `${APP}/after` } });
        const evil = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD, callbackURL: `${EVIL}/x` }, base: trusted });
        expect(evil).toMatchObject({ status: 403, body: INVALID_CALLBACK });
      });
    });
  });
});
