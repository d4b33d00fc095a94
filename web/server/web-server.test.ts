/**
 * The web app's production server: files and the index page for the app's routes, never a file outside
 * its folder, and /api/auth passed on to the gateway (method, body, cookies, the client's address) and back.
 * Files go out precompressed as the request accepts, cached by kind and revalidated; source maps never.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../testing/ports.js";
import { precompressFolder } from "../build/precompress.js";
import { acceptedEncodings, createWebServer } from "./web-server.js";

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

let dir: string;
let root: string;
let gateway: Server;
let web: Server;
let origin: string;
const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];

/** A script large enough to be worth compressing, and the favicon, as a build writes them. */
const SCRIPT = `export const words = [${Array.from({ length: 400 }, (_, i) => `"word-${i % 37}"`).join(", ")}];\n`;
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><title>icon</title><path d="M16 1.5 3.5 6v9c0 7.6 5.3 13.4 12.5 15.5" fill="#1d4ed8"/></svg>';
const INDEX = `<!doctype html><head><title>app</title></head><body>${"<p>The app's page, long enough to be worth compressing.</p>".repeat(20)}</body>`;

/** A request with exactly these headers (fetch adds its own Accept-Encoding and decompresses), its raw bytes back. */
function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const decoded = (body: Buffer, encoding: string | undefined) => (encoding === "br" ? brotliDecompressSync(body) : encoding === "gzip" ? gunzipSync(body) : body);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "web-server-"));
  root = join(dir, "web");
  mkdirSync(join(root, "assets"), { recursive: true });
  writeFileSync(join(root, "index.html"), INDEX);
  writeFileSync(join(root, "assets", "app-123.js"), "console.log(1)");
  writeFileSync(join(root, "assets", "words-4f2a.js"), SCRIPT);
  // A source map left in the public folder by mistake (the build moves them out): still never served.
  writeFileSync(join(root, "assets", "words-4f2a.js.map"), '{"version":3,"sources":["src/words.ts"]}');
  writeFileSync(join(root, "favicon.svg"), ICON);
  writeFileSync(join(root, "robots.txt"), "User-agent: *\nDisallow:\n");
  writeFileSync(join(root, "logo.png"), Buffer.alloc(600, 7));
  await precompressFolder(root);
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

  it("sends the precompressed copy of the best encoding the request accepts, br then gzip, else the file itself", async () => {
    const cases: [string | undefined, string | undefined][] = [
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["br;q=0, gzip;q=0.5", "gzip"],
      ["*", "br"],
      ["gzip;q=0, *;q=0.1", "br"],
      ["identity", undefined],
      ["deflate", undefined],
      ["br;q=0, gzip;q=0", undefined],
      [undefined, undefined],
    ];
    for (const [accept, encoding] of cases) {
      const res = await raw("/assets/words-4f2a.js", accept === undefined ? {} : { "accept-encoding": accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers["content-encoding"], accept).toBe(encoding);
      expect(res.headers.vary, accept).toBe("Accept-Encoding");
      expect(res.headers["content-type"], accept).toBe("text/javascript; charset=utf-8");
      expect(Number(res.headers["content-length"]), accept).toBe(res.body.length);
      expect(decoded(res.body, encoding).toString(), accept).toBe(SCRIPT);
      if (encoding) expect(res.body.length, accept).toBeLessThan(Buffer.byteLength(SCRIPT));
    }
    // The same through fetch (undici asks for a compressed copy and decompresses it).
    const fetched = await fetch(`${origin}/assets/words-4f2a.js`);
    expect(["br", "gzip"]).toContain(fetched.headers.get("content-encoding"));
    expect(await fetched.text()).toBe(SCRIPT);
  });

  it("compresses the index page (written with the run-time settings) as the request accepts", async () => {
    for (const encoding of ["br", "gzip", undefined]) {
      const res = await raw("/account", encoding ? { "accept-encoding": encoding } : {});
      expect(res.status).toBe(200);
      expect(res.headers["content-encoding"]).toBe(encoding);
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(Number(res.headers["content-length"])).toBe(res.body.length);
      const html = decoded(res.body, encoding).toString();
      expect(html).toContain("<title>app</title>");
      expect(html).toContain('<meta name="auth-api-base-path" content="/api/auth" />');
    }
  });

  it("answers HEAD with the headers of the copy it would send, and no body", async () => {
    const res = await raw("/assets/words-4f2a.js", { "accept-encoding": "gzip" }, "HEAD");
    const get = await raw("/assets/words-4f2a.js", { "accept-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(Number(res.headers["content-length"])).toBe(get.body.length);
    expect(res.body.length).toBe(0);
  });

  it("ignores Range: the whole file or copy, never a range of a compressed copy", async () => {
    for (const encoding of ["br", "identity"]) {
      const res = await raw("/assets/words-4f2a.js", { "accept-encoding": encoding, range: "bytes=0-9" });
      expect(res.status).toBe(200);
      expect(res.headers["content-range"]).toBeUndefined();
      expect(res.headers["accept-ranges"]).toBeUndefined();
      expect(decoded(res.body, res.headers["content-encoding"]).toString()).toBe(SCRIPT);
    }
  });

  it("caches hashed assets for a year, the index page never without revalidating, other files an hour", async () => {
    const kinds: [string, string][] = [
      ["/assets/words-4f2a.js", "public, max-age=31536000, immutable"],
      ["/assets/app-123.js", "public, max-age=31536000, immutable"],
      ["/", "no-cache"],
      ["/index.html", "no-cache"],
      ["/reset-password/abc", "no-cache"],
      ["/favicon.svg", "public, max-age=3600"],
      ["/robots.txt", "public, max-age=3600"],
      ["/logo.png", "public, max-age=3600"],
    ];
    for (const [path, cacheControl] of kinds) {
      const res = await raw(path, { "accept-encoding": "gzip, br" });
      expect(res.status, path).toBe(200);
      expect(res.headers["cache-control"], path).toBe(cacheControl);
      expect(res.headers.etag, path).toMatch(/^"[^"]+"$/);
    }
    expect((await raw("/robots.txt")).headers["last-modified"]).toBeDefined();
    // An image is not compressed again: no copy, no Vary.
    const image = await raw("/logo.png", { "accept-encoding": "gzip, br" });
    expect(image.headers["content-encoding"]).toBeUndefined();
    expect(image.headers.vary).toBeUndefined();
    expect(image.headers["content-type"]).toBe("image/png");
  });

  it("answers a revalidation of an unchanged file or page with 304, each encoding with its own validator", async () => {
    for (const path of ["/assets/words-4f2a.js", "/favicon.svg", "/account", "/"]) {
      for (const encoding of ["br", "gzip", "identity"]) {
        const first = await raw(path, { "accept-encoding": encoding });
        const etag = String(first.headers.etag);
        const again = await raw(path, { "accept-encoding": encoding, "if-none-match": etag });
        expect(again.status, `${path} ${encoding}`).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        expect(again.headers["cache-control"]).toBe(first.headers["cache-control"]);
        expect(again.headers.vary).toBe("Accept-Encoding");
        // A copy in another encoding is another representation: sent in full.
        const other = await raw(path, { "accept-encoding": encoding === "br" ? "gzip" : "br", "if-none-match": etag });
        expect(other.status, `${path} ${encoding}, asked in another encoding`).toBe(200);
        expect(decoded(other.body, other.headers["content-encoding"]).length).toBeGreaterThan(0);
      }
    }
    const file = await raw("/robots.txt");
    expect((await raw("/robots.txt", { "if-modified-since": String(file.headers["last-modified"]) })).status).toBe(304);
    expect((await raw("/robots.txt", { "if-modified-since": new Date(0).toUTCString() })).status).toBe(200);
    expect((await raw("/assets/words-4f2a.js", { "if-none-match": '"another"' })).status).toBe(200);
  });

  it("never serves a source map, present or not", async () => {
    for (const path of ["/assets/words-4f2a.js.map", "/assets/words-4f2a.js%2Emap", "/assets/missing.js.map"]) {
      const res = await raw(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString(), path).not.toContain("sources");
    }
  });

  it("serves the favicon, as SVG at /favicon.svg and at /favicon.ico", async () => {
    for (const path of ["/favicon.svg", "/favicon.ico"]) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe("image/svg+xml");
      expect(await res.text(), path).toBe(ICON);
    }
  });
});

describe("acceptedEncodings", () => {
  it("reads Accept-Encoding's names and weights, in our order of preference", () => {
    expect(acceptedEncodings(undefined)).toEqual([]);
    expect(acceptedEncodings("")).toEqual([]);
    expect(acceptedEncodings("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
    expect(acceptedEncodings("GZIP;Q=0.8")).toEqual(["gzip"]);
    expect(acceptedEncodings("x-gzip")).toEqual(["gzip"]);
    expect(acceptedEncodings("br;q=0")).toEqual([]);
    expect(acceptedEncodings("*;q=0")).toEqual([]);
    expect(acceptedEncodings("*, gzip;q=0")).toEqual(["br"]);
    expect(acceptedEncodings("identity;q=1, *;q=0")).toEqual([]);
  });
});
