/**
 * The express example of docs/internal-api.md ("Protecting an express service with @auth-platform/node")
 * is run as written, protected by the package, against the platform over mutual TLS with the internal-client
 * certificate: a signed-in user (or an API key) gets 200, and once the gateway has answered a sign-out or a revoke, the
 * example answers 401 at once, although it held the session in its cache (WatchSessionEvents' ack gated
 * the answer).
 */
import { once } from "node:events";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import { uniqueEmail } from "../../../testing/http.js";
import { usePlatform } from "../../../testing/use-platform.js";
import type { AuthClient } from "../src/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const platform = usePlatform();

/** The doc's code block, written next to this test so its imports resolve as in a service using the package. */
function exampleFile(): string {
  const doc = readFileSync(join(ROOT, "docs/internal-api.md"), "utf8");
  const after = doc.slice(doc.indexOf("Protecting an express service with `@auth-platform/node`"));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  expect(code, "the example's code block").toBeDefined();
  const file = join(ROOT, "packages/node/test", `.example-service-${process.pid}.ts`);
  writeFileSync(file, code!);
  return file;
}

let file: string;
let auth: AuthClient;
let server: Server;
let base: string;

beforeAll(async () => {
  file = exampleFile();
  const tls = platform.grpcTls("internal-client");
  if (tls.kind !== "mtls") throw new Error("the platform runs with mutual TLS");
  process.env.AUTH_CLIENT_TLS_DIR = tls.dir;
  process.env.AUTH_SESSION_TARGET = platform.sessionAddress;
  process.env.AUTH_IDENTITY_TARGET = platform.env.IDENTITY_SERVICE_URL;
  const example = (await import(pathToFileURL(file).href)) as { auth: AuthClient; app: { listen(port: number, host: string): Server } };
  auth = example.auth;
  server = example.app.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The stream is up and holds a lease: from here the cache serves.
  await eventually(async () => expect(auth.cacheLive()).toBe(true));
});
afterAll(async () => {
  auth?.close();
  server?.close();
  rmSync(file, { force: true });
});

const me = (headers: Record<string, string>) => fetch(`${base}/me`, { headers });

describe(`an express service protected by @auth-platform/node (${backendLabel()})`, () => {
  it("answers a signed-in user from its cache, and 401 as soon as the gateway answered the sign-out", async () => {
    const browser = platform.client();
    const email = uniqueEmail("example");
    const signUp = await browser.post("/sign-up/email", { name: "Ada", email, password: "password-123" });
    expect(signUp.status).toBe(200);
    const cookie = `better-auth.session_token=${encodeURIComponent(browser.cookies.get("better-auth.session_token")!)}`;

    const first = await me({ cookie });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ userId: signUp.body.user.id, email, role: "user" });
    expect(auth.cacheSize()).toBe(1);
    // The bearer form of the same session, and the cached copy answers again.
    expect((await me({ authorization: `Bearer ${signUp.body.token}` })).status).toBe(200);
    expect((await me({ cookie })).status).toBe(200);

    expect((await browser.post("/sign-out", {})).status).toBe(200);
    expect(auth.cacheSize()).toBe(0);
    const after = await me({ cookie });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" });
    expect((await me({ authorization: `Bearer ${signUp.body.token}` })).status).toBe(401);
  });

  it("drops every session of a user whose sessions the user revoked elsewhere, at once", async () => {
    const browser = platform.client();
    const signUp = await browser.post("/sign-up/email", { name: "Bob", email: uniqueEmail("example"), password: "password-123" });
    expect(signUp.status).toBe(200);
    const other = platform.client();
    const signIn = await other.post("/sign-in/email", { email: signUp.body.user.email, password: "password-123" });
    expect(signIn.status).toBe(200);
    const held = await me({ authorization: `Bearer ${signIn.body.token}` });
    expect(held.status).toBe(200);

    expect((await browser.post("/revoke-other-sessions", {})).status).toBe(200);
    expect((await me({ authorization: `Bearer ${signIn.body.token}` })).status).toBe(401);
    expect((await me({ authorization: `Bearer ${signUp.body.token}` })).status).toBe(200);
  });

  it("answers an API key's owner, and 401 once the key is deleted or for a made-up key", async () => {
    const browser = platform.client();
    const signUp = await browser.post("/sign-up/email", { name: "Key", email: uniqueEmail("example"), password: "password-123" });
    expect(signUp.status).toBe(200);
    const created = await browser.post("/api-key/create", { name: "svc" });
    expect(created.status).toBe(200);
    const answered = await me({ "x-api-key": created.body.key });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ userId: signUp.body.user.id, keyId: created.body.id });
    expect((await me({ "x-api-key": `${created.body.key}x` })).status).toBe(401);
    expect((await browser.post("/api-key/delete", { keyId: created.body.id })).status).toBe(200);
    expect((await me({ "x-api-key": created.body.key })).status).toBe(401);
  });

  it("answers 401 without a credential, with a made-up one, or with a tampered cookie, and never a 500", async () => {
    expect((await me({})).status).toBe(401);
    expect((await me({ authorization: "Bearer not-a-session" })).status).toBe(401);
    expect((await me({ cookie: "better-auth.session_token=made-up.signature" })).status).toBe(401);
    expect((await me({ cookie: "better-auth.session_token=%E0%A4%A" })).status).toBe(401);
    // A JWT-shaped bearer with no key set configured.
    expect((await me({ authorization: "Bearer a.b.c" })).status).toBe(401);
  });
});
