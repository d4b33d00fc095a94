/**
 * The web app's run-time settings: the API's base path and the analytics script, read from the environment
 * (bad values refused with a sentence naming the variable) and written into index.html by the production
 * server, which then passes the configured base path, and only that, on to the gateway.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { carriesSecret, injectRuntimeConfig, pageConfig, runtimeConfigFromEnv } from "./runtime-config.js";
import { createWebServer } from "./web-server.js";

const INDEX = '<!doctype html>\n<html>\n  <head>\n    <title>app</title>\n  </head>\n  <body><script type="module" src="/assets/app-1.js"></script></body>\n</html>';

describe("runtime config from the environment", () => {
  it("defaults to /api/auth and no analytics script", () => {
    expect(runtimeConfigFromEnv({})).toEqual({ basePath: "/api/auth" });
    expect(runtimeConfigFromEnv({ AUTH_BASE_PATH: "", WEB_ANALYTICS_PATH: "" })).toEqual({ basePath: "/api/auth" });
  });

  it("takes the gateway's AUTH_BASE_PATH (trailing slash dropped) and WEB_ANALYTICS_PATH", () => {
    expect(runtimeConfigFromEnv({ AUTH_BASE_PATH: "/auth/", WEB_ANALYTICS_PATH: "/_vercel/insights/script.js" })).toEqual({
      basePath: "/auth",
      analyticsPath: "/_vercel/insights/script.js",
    });
  });

  it.each([
    ["AUTH_BASE_PATH", "/"],
    ["AUTH_BASE_PATH", "api/auth"],
    ["AUTH_BASE_PATH", '/a"><script>'],
    ["WEB_ANALYTICS_PATH", "https://evil.example/script.js"],
    ["WEB_ANALYTICS_PATH", "//evil.example/script.js"],
    ["WEB_ANALYTICS_PATH", "/a.js?x=<b>"],
    ["WEB_ANALYTICS_PATH", "script.js"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => runtimeConfigFromEnv({ [name]: value })).toThrow(name);
  });

  it("writes the base path and the script into the head, nothing else changed", () => {
    const html = injectRuntimeConfig(INDEX, { basePath: "/auth", analyticsPath: "/insights.js" });
    expect(html).toContain('<meta name="auth-api-base-path" content="/auth" />');
    expect(html).toContain('<script defer src="/insights.js"></script>');
    expect(html.indexOf("/insights.js")).toBeLessThan(html.indexOf("</head>"));
    expect(html.replace(/\s*<meta name="auth-api-base-path"[^>]*>/, "").replace(/\s*<script defer[^>]*><\/script>/, "")).toBe(INDEX);
  });

  it.each([
    "/reset-password?token=abc",
    "/reset-password/abc",
    "/Reset-Password/abc",
    "/reset%2Dpassword/abc",
    "/verify-email?token=abc",
    "/accept-invitation/inv-1",
    "/account?token=abc",
  ])("sees a secret in the address %s: no analytics script there", (path) => {
    const url = new URL(path, "http://app.example");
    expect(carriesSecret(url)).toBe(true);
    expect(pageConfig({ basePath: "/auth", analyticsPath: "/insights.js" }, url)).toEqual({ basePath: "/auth" });
  });

  it.each(["/", "/account", "/reset-passwords", "/sign-in?redirect=%2Faccount", "/reset-password-help"])("sees no secret in the address %s: the analytics script stays", (path) => {
    const url = new URL(path, "http://app.example");
    expect(carriesSecret(url)).toBe(false);
    expect(pageConfig({ basePath: "/auth", analyticsPath: "/insights.js" }, url)).toEqual({ basePath: "/auth", analyticsPath: "/insights.js" });
  });
});

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("web server with run-time settings", () => {
  let dir: string;
  let gateway: Server;
  let configured: Server;
  let plain: Server;
  let origin: string;
  let plainOrigin: string;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "web-runtime-"));
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(join(dir, "assets", "app-1.js"), "console.log(1)");
    gateway = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
    const gatewayUrl = await listen(gateway);
    configured = createWebServer({ root: dir, gatewayUrl, config: { basePath: "/auth", analyticsPath: "/_vercel/insights/script.js" } });
    plain = createWebServer({ root: dir, gatewayUrl });
    origin = await listen(configured);
    plainOrigin = await listen(plain);
  });

  afterAll(async () => {
    for (const server of [configured, plain]) {
      server.closeAllConnections();
      await close(server);
    }
    await close(gateway);
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves every route's index page with the base path and the analytics script, /index.html included", async () => {
    for (const path of ["/", "/account", "/index.html"]) {
      // Uncompressed, so Content-Length is the page's own length (web-server.test.ts checks the compressed pages).
      const res = await fetch(`${origin}${path}`, { headers: { "accept-encoding": "identity" } });
      const html = await res.text();
      expect(res.status, path).toBe(200);
      expect(html).toContain('<meta name="auth-api-base-path" content="/auth" />');
      expect(html).toContain('<script defer src="/_vercel/insights/script.js"></script>');
      expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(html));
      expect(res.headers.get("cache-control")).toBe("no-cache");
    }
    const head = await fetch(`${origin}/account`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("serves a page whose address carries a token without the analytics script and sending no Referer; other pages unchanged", async () => {
    for (const path of ["/reset-password?token=abc123", "/reset-password/abc123", "/verify-email?token=abc123", "/accept-invitation/inv-1", "/index.html?token=abc123"]) {
      const res = await fetch(`${origin}${path}`, { headers: { "accept-encoding": "identity" } });
      const html = await res.text();
      expect(res.status, path).toBe(200);
      expect(html, path).toContain('<meta name="auth-api-base-path" content="/auth" />');
      expect(html, path).not.toContain("/_vercel/insights/script.js");
      expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(html));
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
    // The script tag of the other pages is served from the same cached file, and comes back.
    const other = await fetch(`${origin}/account`);
    expect(await other.text()).toContain('<script defer src="/_vercel/insights/script.js"></script>');
    expect(other.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("passes the configured base path on to the gateway, and /api/auth no more", async () => {
    expect(await (await fetch(`${origin}/auth/ok`)).json()).toEqual({ ok: true });
    expect(seen.at(-1)).toBe("GET /auth/ok");
    const before = seen.length;
    expect((await fetch(`${origin}/api/auth/sign-out`, { method: "POST" })).status).toBe(405);
    expect(await (await fetch(`${origin}/api/auth/ok`)).text()).toContain("<title>app</title>");
    expect(seen.length).toBe(before);
  });

  it("unset: the default base path and no script tag at all", async () => {
    const html = await (await fetch(`${plainOrigin}/account`)).text();
    expect(html).toContain('<meta name="auth-api-base-path" content="/api/auth" />');
    expect(html).not.toContain("<script defer");
    expect(html.match(/<script/g)).toHaveLength(1);
    expect((await fetch(`${plainOrigin}/api/auth/ok`)).status).toBe(200);
    expect(seen.at(-1)).toBe("GET /api/auth/ok");
  });
});
