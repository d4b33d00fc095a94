/**
 * The gateway's security headers. Its answers reach the browser on the web app's own origin (the web
 * server, Vite and the Ingress pass /api/auth through), so each must be inert there: JSON never sniffed
 * into HTML or a script (nosniff, a policy that allows nothing), never framed (a clickjacking frame around
 * the /error page or an answer), no Referer from a redirect or the /error page's link, and over https the
 * browser told to stay on https.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { createWebServer } from "../../web/server/web-server.js";

function expectInert(headers: Headers, what: string): void {
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(headers.get("x-frame-options"), what).toBe("DENY");
  expect(headers.get("referrer-policy"), what).toBe("no-referrer");
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp, what).toContain("default-src 'none'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toContain("script-src");
}

describe("security headers over http", () => {
  const platform = usePlatform();

  it("every kind of answer under the base path is inert in a browser, and no HSTS is sent over plain http", async () => {
    const http = platform.client();
    const answers = {
      "GET /ok": await http.get("/ok"),
      "GET /get-session (signed out)": await http.get("/get-session"),
      "POST /sign-in/email (bad body)": await http.post("/sign-in/email", { email: "<script>alert(1)</script>" }),
      "POST /sign-in/email (wrong password)": await http.post("/sign-in/email", { email: uniqueEmail("headers"), password: "password-123" }),
      "GET /no-such-route": await http.get("/no-such-route?<img src=x onerror=alert(1)>"),
      "GET /reset-password/{token} (redirect)": await http.get("/reset-password/not-a-token?callbackURL=%2Freset-password"),
      "GET /error": await http.get("/error?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E"),
      "OPTIONS /sign-in/email": await http.request("OPTIONS", "/sign-in/email", { headers: { origin: platform.origin, "access-control-request-method": "POST" } }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expectInert(res.headers, what);
      expect(res.headers.get("strict-transport-security"), what).toBeNull();
    }
    expect(answers["GET /reset-password/{token} (redirect)"].status).toBe(302);
    // The error page keeps its own inline style and still runs nothing.
    expect(answers["GET /error"].headers.get("content-type")).toContain("text/html");
    expect(answers["GET /error"].headers.get("content-security-policy")).toContain("style-src 'unsafe-inline'");
    expect(answers["GET /error"].body).not.toContain("<script>");
  });
});

describe("security headers behind https (AUTH_BASE_URL https)", () => {
  const platform = usePlatform({ env: { AUTH_BASE_URL: "https://auth.example.test/api/auth" } });

  it("tells the browser to keep to https on every answer", async () => {
    const http = platform.client();
    for (const res of [await http.get("/ok"), await http.get("/get-session"), await http.get("/error?error=x")]) {
      expect(res.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}$/);
      expectInert(res.headers, "https");
    }
  });

  it("the web server in front (https public URL) sends HSTS on its pages and passes the gateway's headers through", async () => {
    const root = mkdtempSync(join(tmpdir(), "web-headers-"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>app</title>");
    const web = createWebServer({ root, gatewayUrl: platform.origin, https: true });
    const origin = await new Promise<string>((resolve) => web.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(web.address() as AddressInfo).port}`)));
    try {
      const page = await fetch(`${origin}/account`);
      expect(page.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}$/);
      expect(page.headers.get("referrer-policy")).toBe("same-origin");
      // A page whose address carries a secret sends no Referer at all (web-server.ts).
      const reset = await fetch(`${origin}/reset-password?token=abc`);
      expect(reset.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}$/);
      expect(reset.headers.get("referrer-policy")).toBe("no-referrer");
      const api = await fetch(`${origin}/api/auth/ok`);
      expect(api.status).toBe(200);
      expectInert(api.headers, "through the web server");
      expect(api.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}$/);
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the web server over plain http", () => {
  it("sends no HSTS (a browser would pin the host, localhost included, to https)", async () => {
    const root = mkdtempSync(join(tmpdir(), "web-headers-"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>app</title>");
    const web = createWebServer({ root, gatewayUrl: "http://127.0.0.1:9" });
    const origin = await new Promise<string>((resolve) => web.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(web.address() as AddressInfo).port}`)));
    try {
      const page = await fetch(`${origin}/account`);
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("strict-transport-security")).toBeNull();
    } finally {
      await new Promise((resolve) => web.close(resolve));
      rmSync(root, { recursive: true, force: true });
    }
  });
});
