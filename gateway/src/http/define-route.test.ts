/** defineRoute: the caller is checked before the input, the input is parsed with the declared schemas, the answer goes out as JSON. */
import type { Request, Response } from "express";
import * as z from "zod";
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { defineRoute } from "./define-route.js";
import type { CurrentSession, SessionResolver } from "./session.js";

const current = { session: { token: "t" }, user: { id: "u1" } } as unknown as CurrentSession;

/** A resolver knowing one token: "t" (its session), anything else none. */
const sessions = {
  tokenOf: (req: Request) => (req.headers.authorization ? "t" : null),
  require: async (req: Request) => {
    if (!req.headers.authorization) throw new AuthError("UNAUTHORIZED");
    return current;
  },
} as unknown as SessionResolver;

const request = (body: unknown, query: Record<string, string> = {}, signedIn = false) =>
  ({ body, query, headers: signedIn ? { authorization: "Bearer t" } : {} }) as unknown as Request;

function response() {
  const sent: { body?: unknown } = {};
  const json = (body: unknown) => {
    sent.body = body;
  };
  return { sent, res: { json } as unknown as Response };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "answered",
    (error: AuthError) => error.code,
  );

describe("defineRoute", () => {
  const body = z.object({ name: z.string().min(1) });
  const query = z.object({ limit: z.coerce.number().int() });

  it("hands the handler the parsed body and query, and answers its json", async () => {
    const route = defineRoute(
      { method: "post", path: "/x", tag: "Meta", summary: "x", body, query, response: z.object({ echo: z.string(), limit: z.number() }) },
      ({ body, query, json }) => json({ echo: body.name, limit: query.limit }),
    );
    const { sent, res } = response();
    await route.handle(request({ name: "Ada" }, { limit: "5" }), res, sessions);
    expect(sent.body).toEqual({ echo: "Ada", limit: 5 });
    expect(await codeOf(route.handle(request({ name: "" }, { limit: "5" }), res, sessions))).toBe("VALIDATION_ERROR");
    expect(await codeOf(route.handle(request({ name: "Ada" }, { limit: "many" }), res, sessions))).toBe("VALIDATION_ERROR");
  });

  it('session "required": 401 before the body is looked at, then the session is the handler\'s', async () => {
    let seen: CurrentSession | undefined;
    const route = defineRoute(
      { method: "post", path: "/x", tag: "Meta", summary: "x", session: "required", body, response: z.object({ ok: z.boolean() }) },
      ({ session, json }) => {
        seen = session;
        json({ ok: true });
      },
    );
    const { res } = response();
    expect(await codeOf(route.handle(request({ name: "" }), res, sessions))).toBe("UNAUTHORIZED");
    expect(await codeOf(route.handle(request({ name: "" }, {}, true), res, sessions))).toBe("VALIDATION_ERROR");
    expect(await codeOf(route.handle(request({ name: "Ada" }, {}, true), res, sessions))).toBe("answered");
    expect(seen).toBe(current);
  });

  it("a query checked by the route is not parsed (the handler answers a bad one itself)", async () => {
    const route = defineRoute({ method: "get", path: "/x", tag: "Meta", summary: "x", queryCheckedByRoute: query, redirect: true }, ({ req, res }) => {
      res.json({ valid: query.safeParse(req.query).success });
    });
    const { sent, res } = response();
    await route.handle(request(undefined, { limit: "many" }), res, sessions);
    expect(sent.body).toEqual({ valid: false });
  });
});
