/**
 * The web app's production server: files and the index page for the app's routes, never a file outside
 * its folder, and /api/auth passed on to the gateway (method, body, cookies, the client's address) and back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../testing/ports.js";
import { createWebServer } from "./web-server.js";

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

let dir: string;
let root: string;
let gateway: Server;
let web: Server;
let origin: string;
const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "web-server-"));
  root = join(dir, "web");
  mkdirSync(join(root, "assets"), { recursive: true });
  writeFileSync(join(root, "index.html"), "<!doctype html><title>app</title>");
  writeFileSync(join(root, "assets", "app-123.js"), "console.log(1)");
  writeFileSync(join(dir, "secret.txt"), "outside the root");
  gateway = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(201, { "content-type": "application/json", "set-cookie": "session=abc; Path=/; HttpOnly" });
      res.end(JSON.stringify({ echoed: body }));
    });
  });
  const gatewayUrl = await listen(gateway);
  web = createWebServer({ root, gatewayUrl });
  origin = await listen(web);
});

afterAll(async () => {
  web.closeAllConnections();
  await close(web);
  await close(gateway);
  rmSync(dir, { recursive: true, force: true });
});

describe("web server", () => {
  it("serves the index page for the app's routes, not cached, with the security headers", async () => {
    for (const path of ["/", "/account", "/reset-password/abc?x=1"]) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain("<title>app</title>");
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("serves hashed assets as immutable, and answers 404 for a missing file", async () => {
    const asset = await fetch(`${origin}/assets/app-123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${origin}/assets/missing.js`)).status).toBe(404);
  });

  it("never serves a file outside its folder", async () => {
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt", "/%2e%2e%5csecret.txt"]) {
      const res = await fetch(`${origin}${path}`);
      expect(await res.text(), path).not.toContain("outside the root");
    }
  });

  it("passes /api/auth requests on to the gateway with method, body, cookies and the client's address, and the answer back", async () => {
    const res = await fetch(`${origin}/api/auth/sign-in/email?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: "a=b", origin: "http://app.example", "x-forwarded-for": "203.0.113.9" },
      body: JSON.stringify({ email: "a@example.com" }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("set-cookie")).toBe("session=abc; Path=/; HttpOnly");
    expect(await res.json()).toEqual({ echoed: JSON.stringify({ email: "a@example.com" }) });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: "POST", url: "/api/auth/sign-in/email?x=1", body: JSON.stringify({ email: "a@example.com" }) });
    expect(request.headers).toMatchObject({ cookie: "a=b", origin: "http://app.example", "x-forwarded-for": "203.0.113.9, 127.0.0.1", "x-forwarded-proto": "http" });
  });

  it("refuses methods other than GET and HEAD outside the API", async () => {
    expect((await fetch(`${origin}/account`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${origin}/api/authx`, { method: "POST" })).status).toBe(405);
  });

  it("answers 502 with a readable message when the gateway is down", async () => {
    const [port] = await freePorts(1);
    const orphan = createWebServer({ root, gatewayUrl: `http://127.0.0.1:${port}` });
    const url = await listen(orphan);
    const res = await fetch(`${url}/api/auth/ok`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ code: "BAD_GATEWAY", message: "The authentication service is not reachable. Please try again later." });
    await close(orphan);
  });
});
