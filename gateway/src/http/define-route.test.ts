/**
 * defineRoute: the caller is checked before the input, the input is parsed with the declared schemas, the
 * answer goes out as JSON. mountRoutes: every request is served by the route express's router would pick.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import * as z from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { defineRoute, mountRoutes, type Route } from "./define-route.js";
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

describe("mountRoutes", () => {
  /** Each route answers which declaration served it, the template express labels it with, and its params. */
  const answering = (method: "get" | "post", path: string, served: string): Route =>
    defineRoute({ method, path, tag: "Meta", summary: served }, ({ req, res }) => {
      res.json({ served, template: (req.route as { path: string }).path, params: req.params });
    });
  const routes: Route[] = [
    answering("get", "/ok", "ok"),
    answering("get", "/items/:id", "item by id"),
    answering("get", "/items/latest", "latest item, declared after the pattern that matches it"),
    answering("post", "/items/latest", "post latest item"),
    answering("get", "/fails", "never"),
    answering("post", "/two/words", "two words"),
    answering("get", "/two/words", "two words, get"),
  ];
  routes[4] = defineRoute({ method: "get", path: "/fails", tag: "Meta", summary: "fails" }, () => {
    throw new AuthError("SESSION_NOT_FOUND");
  });

  /** An app serving the routes, 404 for the rest, and an error handler answering the error's code. */
  function app(serve: express.RequestHandler): express.Express {
    const served = express();
    served.use(serve);
    served.use((_req: Request, res: Response) => void res.status(404).json({ served: "nothing" }));
    served.use((error: AuthError, _req: Request, res: Response, _next: NextFunction) => void res.status(error.http).json({ error: error.code }));
    return served;
  }

  /** What express's router alone answers: every route registered in order on one router. */
  function routerAlone(): express.RequestHandler {
    const router = Router();
    for (const route of routes) router[route.spec.method](route.spec.path, (req, res) => route.handle(req, res, sessions));
    return router;
  }

  const servers: Server[] = [];
  const urls: string[] = [];
  beforeAll(async () => {
    for (const handler of [mountRoutes(routes, sessions), routerAlone()]) {
      const server = createServer(app(handler));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  const answer = async (base: string, method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method });
    return { status: res.status, body: await res.text() };
  };

  it.each([
    ["GET", "/ok"],
    ["GET", "/OK"],
    ["GET", "/ok/"],
    ["GET", "/ok//"],
    ["GET", "/ok?x=1"],
    ["GET", "/o%6B"],
    ["HEAD", "/ok"],
    ["POST", "/ok"],
    ["GET", "/items/latest"],
    ["POST", "/items/latest"],
    ["POST", "/Items/Latest/"],
    ["GET", "/items/7"],
    ["GET", "/fails"],
    ["POST", "/two/words"],
    ["GET", "/two/words"],
    ["HEAD", "/two/words"],
    ["GET", "/two"],
  ])("%s %s is answered as express's router answers it", async (method, path) => {
    const [ours, router] = await Promise.all(urls.map((base) => answer(base, method, path)));
    expect(ours).toEqual(router);
  });

  it("serves a literal path shadowed by an earlier pattern with the earlier route", async () => {
    expect(JSON.parse((await answer(urls[0]!, "GET", "/items/latest")).body)).toMatchObject({ served: "item by id", params: { id: "latest" } });
    expect(JSON.parse((await answer(urls[0]!, "POST", "/Items/Latest/")).body)).toEqual({ served: "post latest item", template: "/items/latest", params: {} });
  });
});
