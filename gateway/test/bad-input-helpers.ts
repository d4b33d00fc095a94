/**
 * What the bad-input suites share (bad-input-bodies, bad-input-callbacks-and-origin): the routes, one raw
 * HTTP request whose answer is checked (never a 5xx, an error exactly { code, message }), and signed-in
 * users. Importing it starts the platform for the importing suite (usePlatform).
 */
import { request } from "node:http";
import { expect } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import type { Platform } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";

export const PASSWORD = "password-123";
export const EVIL = "https://evil.example";
export const INVALID_CALLBACK = { code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" };
export const INVALID_ORIGIN = { code: "INVALID_ORIGIN", message: "Invalid origin" };

export interface Reply {
  status: number;
  body: any;
  setCookies: string[];
}

export interface Route {
  method: "GET" | "POST";
  path: string;
  /** Needs a session (401 without one). */
  auth: boolean;
  /** Reads a JSON body (so a body of the wrong shape is a 400). */
  readsBody: boolean;
}

export const ROUTES: Route[] = [
  { method: "POST", path: "/sign-up/email", auth: false, readsBody: true },
  { method: "POST", path: "/sign-in/email", auth: false, readsBody: true },
  { method: "POST", path: "/sign-in/username", auth: false, readsBody: true },
  { method: "POST", path: "/revoke-session", auth: true, readsBody: true },
  { method: "POST", path: "/revoke-sessions", auth: true, readsBody: false },
  { method: "POST", path: "/revoke-other-sessions", auth: true, readsBody: false },
  { method: "POST", path: "/sign-out", auth: true, readsBody: false },
  { method: "GET", path: "/get-session", auth: true, readsBody: false },
  { method: "GET", path: "/list-sessions", auth: true, readsBody: false },
];
export const POST_ROUTES = ROUTES.filter((r) => r.method === "POST");
export const label = (route: Route) => `${route.method} ${route.path}`;

export const platform = usePlatform();

/** Every answer of this suite: never a 5xx, and an error is exactly { code, message }. */
export function checked(reply: Reply, what: string): Reply {
  expect(reply.status, `${what} answered ${reply.status} ${JSON.stringify(reply.body)}`).toBeLessThan(500);
  if (reply.status >= 400) expect(reply.body, what).toEqual({ code: expect.any(String), message: expect.any(String) });
  return reply;
}

/**
 * One raw HTTP request (node:http, so a GET can carry a body too). A JSON body gets its content type and
 * an exact content-length unless the headers say otherwise.
 */
export async function send(
  method: string,
  path: string,
  options: { json?: unknown; body?: string | Buffer; headers?: Record<string, string>; base?: Platform } = {},
): Promise<Reply> {
  const base = options.base ?? platform;
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  const headers: Record<string, string> = {
    ...(body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } : {}),
    ...options.headers,
  };
  const reply = await new Promise<Reply>((resolve, reject) => {
    const req = request(base.baseURL + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const json = (res.headers["content-type"] ?? "").includes("json");
        resolve({ status: res.statusCode!, body: json && text ? JSON.parse(text) : text, setCookies: res.headers["set-cookie"] ?? [] });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
  return checked(reply, `${method} ${path}`);
}

let usernames = 0;
export interface Session {
  email: string;
  username: string;
  token: string;
  cookie: string;
}

/** A new user with a username, signed in: its session cookie. */
export async function aSession(base: Platform = platform): Promise<Session> {
  usernames += 1;
  const email = uniqueEmail("bad-input");
  const username = `u_${Date.now().toString(36)}_${usernames}`;
  const res = await send("POST", "/sign-up/email", { json: { name: "Ada", email, password: PASSWORD, username }, base });
  expect(res.status).toBe(200);
  const cookie = res.setCookies.map((line) => line.split(";")[0]).join("; ");
  return { email, username, token: res.body.token, cookie };
}

export async function isAlive(session: Session, base: Platform = platform): Promise<boolean> {
  const res = await send("GET", "/get-session", { headers: { cookie: session.cookie }, base });
  return res.body !== null && res.body.session?.token === session.token;
}

/** A valid body for the route, for the user of `session` (revoke-session gets another of its sessions). */
export async function validBody(route: Route, session: Session, base: Platform = platform): Promise<unknown> {
  switch (route.path) {
    case "/sign-up/email":
      return { name: "Ada", email: uniqueEmail("bad-input"), password: PASSWORD };
    case "/sign-in/email":
      return { email: session.email, password: PASSWORD };
    case "/sign-in/username":
      return { username: session.username, password: PASSWORD };
    case "/revoke-session": {
      const other = await send("POST", "/sign-in/email", { json: { email: session.email, password: PASSWORD }, base });
      expect(other.status).toBe(200);
      return { token: other.body.token };
    }
    default:
      return route.method === "POST" ? {} : undefined;
  }
}
