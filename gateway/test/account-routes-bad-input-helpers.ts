/**
 * What the account-route bad-input suites share (account-routes-bad-input-fields, -rules): the routes and
 * their fields, one raw HTTP request whose answer is checked against the catalogue, and signed-in users.
 * Importing it starts the platform (with a real SMTP server) for the importing suite (usePlatform).
 *
 * Bad input on every account route (verification, password reset, change email and password,
 * update and delete user, linked accounts), through the gateway over real gRPC with mail to a real SMTP
 * server: malformed JSON, missing and mistyped fields, oversized strings and bodies, untrusted callback URLs,
 * and calls without a session. Every answer is checked against the catalogue: never a 5xx, every error body
 * exactly { code, message }, with the catalogue's status for its code. Also: no user enumeration.
 */
import { request } from "node:http";
import { expect } from "vitest";
import { ERRORS, type ErrorCode } from "@auth-platform/proto/errors";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

export const platform = usePlatform({ smtp: true });

export const PASSWORD = "password-123";
export const EVIL = "https://evil.example/x";
export const UNKNOWN_RESET_TOKEN = "A".repeat(24);

export interface Reply {
  status: number;
  /** The raw body text, byte for byte. */
  text: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  location: string | undefined;
  setCookies: string[];
}

/** Every answer of this suite: never a 5xx, and an error is JSON with exactly { code, message }. */
export function checked(reply: Reply, what: string): Reply {
  expect(reply.status, `${what} answered ${reply.status} ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(String(reply.headers["content-type"]), what).toMatch(/^application\/json/);
    expect(reply.body, what).toEqual({ code: expect.any(String), message: expect.any(String) });
  }
  return reply;
}

/** One raw HTTP request (node:http, so a GET can carry a body too), redirects not followed. */
export function send(method: string, path: string, options: { json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  const headers: Record<string, string> = {
    ...(body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(platform.baseURL + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const json = (res.headers["content-type"] ?? "").includes("json");
        const reply: Reply = {
          status: res.statusCode!,
          text,
          body: json && text ? JSON.parse(text) : text,
          headers: res.headers,
          location: res.headers.location,
          setCookies: res.headers["set-cookie"] ?? [],
        };
        try {
          resolve(checked(reply, `${method} ${path.slice(0, 120)}`));
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The answer must be the catalogue's error: its HTTP status, its code, and (except validation errors) its message. */
export function expectError(res: Reply, code: ErrorCode, what: string, field?: string) {
  expect({ status: res.status, code: res.body?.code }, `${what}: ${res.text.slice(0, 300)}`).toEqual({ status: ERRORS[code].http, code });
  if (code === "VALIDATION_ERROR" && field) expect(res.body.message, what).toMatch(new RegExp(`\\b${field}\\b`));
  else if (code !== "VALIDATION_ERROR") expect(res.body.message, what).toBe(ERRORS[code].message);
}

export interface Session {
  email: string;
  userId: string;
  token: string;
  cookie: string;
}

/** A new user, signed up and signed in: its session cookie. */
export async function aSession(label = "bad-lifecycle"): Promise<Session> {
  const email = uniqueEmail(label);
  const res = await send("POST", "/sign-up/email", { json: { name: "Ada", email, password: PASSWORD } });
  expect(res.status).toBe(200);
  const cookie = res.setCookies.map((line) => line.split(";")[0]).join("; ");
  return { email, userId: res.body.user.id, token: res.body.token, cookie };
}

export async function currentUser(session: Session): Promise<{ email: string; name: string } | null> {
  const res = await send("GET", "/get-session?disableCookieCache=true", { headers: { cookie: session.cookie } });
  return res.body?.user ?? null;
}

export const mailsTo = (email: string) => platform.smtp.mails.filter((m) => m.to.includes(email.toLowerCase())).length;

export type Kind = "string" | "boolean";
export interface Field {
  name: string;
  kind: Kind;
  /** Missing it is a VALIDATION_ERROR naming it. */
  required?: boolean;
  /** null is accepted (as absent). */
  nullable?: boolean;
  /** A callback URL field: checked against the trusted origins before the body schema. */
  callback?: ErrorCode;
}

export interface Route {
  method: "GET" | "POST";
  /** Path (for GET /reset-password/:token, with an unknown token in it). */
  path: string;
  label: string;
  /** Needs a session: 401 UNAUTHORIZED without one. */
  auth: boolean;
  /** Where the route reads its input. */
  input: "body" | "query" | "none";
  fields: Field[];
  /** A valid input for the session's user. */
  valid(session: Session): Record<string, unknown>;
}

export const callbackURL: Field = { name: "callbackURL", kind: "string", nullable: true, callback: "INVALID_CALLBACKURL" };
export const redirectTo: Field = { name: "redirectTo", kind: "string", nullable: true, callback: "INVALID_REDIRECTURL" };

export const ROUTES: Route[] = [
  {
    method: "POST",
    path: "/send-verification-email",
    label: "POST /send-verification-email",
    auth: false,
    input: "body",
    fields: [{ name: "email", kind: "string", required: true }, callbackURL],
    valid: (s) => ({ email: s.email }),
  },
  {
    method: "GET",
    path: "/verify-email",
    label: "GET /verify-email",
    auth: false,
    input: "query",
    fields: [{ name: "token", kind: "string", required: true }, callbackURL],
    valid: () => ({ token: "not-a-real-token" }),
  },
  {
    method: "POST",
    path: "/forget-password",
    label: "POST /forget-password",
    auth: false,
    input: "body",
    fields: [{ name: "email", kind: "string", required: true }, redirectTo],
    valid: (s) => ({ email: s.email }),
  },
  {
    method: "POST",
    path: "/request-password-reset",
    label: "POST /request-password-reset",
    auth: false,
    input: "body",
    fields: [{ name: "email", kind: "string", required: true }, redirectTo],
    valid: (s) => ({ email: s.email }),
  },
  {
    method: "GET",
    path: `/reset-password/${UNKNOWN_RESET_TOKEN}`,
    label: "GET /reset-password/:token",
    auth: false,
    input: "query",
    fields: [{ ...callbackURL, required: true, nullable: false }],
    valid: () => ({ callbackURL: "/reset" }),
  },
  {
    method: "POST",
    path: "/reset-password",
    label: "POST /reset-password",
    auth: false,
    input: "body",
    fields: [
      { name: "newPassword", kind: "string", required: true },
      { name: "token", kind: "string", nullable: true },
    ],
    valid: () => ({ newPassword: "new-password-1", token: UNKNOWN_RESET_TOKEN }),
  },
  {
    method: "POST",
    path: "/change-email",
    label: "POST /change-email",
    auth: true,
    input: "body",
    fields: [{ name: "newEmail", kind: "string", required: true }, callbackURL],
    valid: () => ({ newEmail: uniqueEmail("new") }),
  },
  {
    method: "POST",
    path: "/change-password",
    label: "POST /change-password",
    auth: true,
    input: "body",
    fields: [
      { name: "newPassword", kind: "string", required: true },
      { name: "currentPassword", kind: "string", required: true },
      { name: "revokeOtherSessions", kind: "boolean", nullable: true },
    ],
    valid: () => ({ currentPassword: PASSWORD, newPassword: "next-password-1" }),
  },
  {
    method: "POST",
    path: "/update-user",
    label: "POST /update-user",
    auth: true,
    input: "body",
    fields: [
      { name: "name", kind: "string" },
      { name: "image", kind: "string", nullable: true },
    ],
    valid: () => ({ name: "Grace" }),
  },
  {
    method: "POST",
    path: "/delete-user",
    label: "POST /delete-user",
    auth: true,
    input: "body",
    fields: [callbackURL, { name: "password", kind: "string", nullable: true }, { name: "token", kind: "string", nullable: true }],
    valid: () => ({ password: PASSWORD }),
  },
  {
    method: "GET",
    path: "/delete-user/callback",
    label: "GET /delete-user/callback",
    auth: true,
    input: "query",
    fields: [{ name: "token", kind: "string", required: true }, callbackURL],
    valid: () => ({ token: "a".repeat(32) }),
  },
  { method: "GET", path: "/list-accounts", label: "GET /list-accounts", auth: true, input: "none", fields: [], valid: () => ({}) },
  {
    method: "POST",
    path: "/unlink-account",
    label: "POST /unlink-account",
    auth: true,
    input: "body",
    fields: [
      { name: "providerId", kind: "string", required: true },
      { name: "accountId", kind: "string", nullable: true },
    ],
    valid: () => ({ providerId: "credential" }),
  },
];
export const POST_ROUTES = ROUTES.filter((r) => r.method === "POST");

/** Sends the input the way the route reads it: a JSON body (POST), or a query string (GET; arrays as repeated keys). */
export function call(route: Route, input: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Reply> {
  if (route.method === "POST") return send(route.method, route.path, { json: input, headers });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const qs = query.toString();
  return send(route.method, qs ? `${route.path}?${qs}` : route.path, { headers });
}

export const without = (input: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(input).filter(([key]) => key !== field));

/** Values of the wrong type for a field (a query string can only carry the array case). */
export function wrongValues(route: Route, field: Field): unknown[] {
  if (route.input === "query") return [["a", "b"]];
  const values: unknown[] = field.kind === "string" ? [5, 0, true, ["x"], { x: "y" }, {}] : ["yes", "true", 1, ["x"], {}];
  if (!field.nullable) values.push(null);
  return values;
}
