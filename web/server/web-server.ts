/**
 * The web app's production server (`npm start`, the chart's web Deployment): a plain node HTTP server that
 * serves the built app (dist/web/) with a fallback to index.html for the app's own routes, and passes the
 * API's base path (/api/auth unless AUTH_BASE_PATH says otherwise) through to the gateway, so the browser
 * sees one origin as it does behind the Ingress. index.html carries the run-time settings
 * (runtime-config.ts): the base path the app calls, and the analytics script when one is configured,
 * except on a page whose address carries a secret (a reset token...), which also sends no Referer at all.
 * Every request is counted in the process's HTTP RED metrics (services/runtime/src/metrics.ts) by the
 * kind of route that answered it, never the raw path, so a scan of random paths cannot grow the label set.
 */
import { createReadStream, type Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { extname, join, normalize, sep } from "node:path";
import { recordHttpRequest } from "@auth-platform/runtime/metrics";
import { carriesSecret, DEFAULT_RUNTIME_CONFIG, injectRuntimeConfig, type RuntimeConfig } from "./runtime-config.js";

export interface WebServerOptions {
  /** The folder holding index.html and assets/ (vite build's output). */
  root: string;
  /** The gateway's origin, e.g. http://127.0.0.1:3000 (its base path is proxied). */
  gatewayUrl: string;
  /** The API's base path and the analytics script (default: /api/auth, none). */
  config?: RuntimeConfig;
  /** The app's public URL is https: every page and file tells the browser to keep to https (HSTS). */
  https?: boolean;
}

/** The `route` label of the HTTP metrics: which kind of answer a request got. */
export const WEB_ROUTES = {
  /** Passed through to the gateway (its own metrics break it down by route). */
  api: "api",
  /** A file of the built app (assets, favicon...). */
  static: "static",
  /** index.html, for one of the app's own routes. */
  index: "index",
  healthz: "healthz",
  /** A missing file, or a method the static server refuses. */
  unmatched: "unmatched",
} as const;
type WebRoute = (typeof WEB_ROUTES)[keyof typeof WEB_ROUTES];

/** Records the request's metrics once it is answered (or its connection is lost). */
function observe(req: IncomingMessage, res: ServerResponse): (route: WebRoute) => void {
  const started = performance.now();
  let route: WebRoute = WEB_ROUTES.unmatched;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    recordHttpRequest(req.method ?? "GET", route, res.statusCode, (performance.now() - started) / 1000);
  };
  res.once("finish", end);
  res.once("close", end);
  return (kind) => (route = kind);
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/** Headers of every page and file: no framing, no sniffing, scripts and connections to this origin only. */
const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

/**
 * HSTS when the app is public over https: one year, for this host only (subdomains are not the platform's).
 * The gateway sends the same on its answers (gateway/src/http/security-headers.ts).
 */
const HTTPS_ONLY = { "Strict-Transport-Security": "max-age=31536000" };

/**
 * A page whose address carries a secret (runtime-config.ts carriesSecret) sends no Referer, not even to
 * this origin: its requests (the API's, an image's) would carry the address with the token otherwise.
 */
const NO_REFERRER = { "Referrer-Policy": "no-referrer" };

/** Hop-by-hop headers are not forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

function proxy(req: IncomingMessage, res: ServerResponse, gateway: URL): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const client = req.socket.remoteAddress ?? "";
  const forwarded = req.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = forwarded ? `${String(forwarded)}, ${client}` : client;
  headers["x-forwarded-host"] = req.headers.host ?? "";
  headers["x-forwarded-proto"] = "encrypted" in req.socket && req.socket.encrypted ? "https" : "http";
  const send = gateway.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send({ protocol: gateway.protocol, hostname: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers }, (answer) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    res.writeHead(answer.statusCode ?? 502, out);
    answer.pipe(res);
  });
  upstream.on("error", () => {
    if (res.headersSent) return res.destroy();
    res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: "BAD_GATEWAY", message: "The authentication service is not reachable. Please try again later." }));
  });
  req.pipe(upstream);
}

/** The file under root a URL path names, or undefined when it leaves root or is not a file. */
async function fileFor(root: string, pathname: string): Promise<{ path: string; stats: Stats } | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const path = normalize(join(root, decoded));
  if (path !== root && !path.startsWith(root + sep)) return undefined;
  try {
    const stats = await stat(path);
    return stats.isFile() ? { path, stats } : undefined;
  } catch {
    return undefined;
  }
}

function sendFile(req: IncomingMessage, res: ServerResponse, security: Record<string, string>, file: { path: string; stats: Stats }, status = 200): void {
  // Hashed assets never change; index.html must be re-read so a new release is picked up.
  const immutable = file.path.includes(`${sep}assets${sep}`);
  res.writeHead(status, {
    ...security,
    "Content-Type": TYPES[extname(file.path)] ?? "application/octet-stream",
    "Content-Length": String(file.stats.size),
    "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
  });
  if (req.method === "HEAD") return void res.end();
  createReadStream(file.path).pipe(res);
}

/** index.html with the run-time settings written in; browsers must revalidate it, so a new release is picked up. */
function sendIndex(req: IncomingMessage, res: ServerResponse, security: Record<string, string>, body: Buffer): void {
  res.writeHead(200, { ...security, "Content-Type": TYPES[".html"]!, "Content-Length": String(body.length), "Cache-Control": "no-cache" });
  res.end(req.method === "HEAD" ? undefined : body);
}

export function createWebServer(options: WebServerOptions): Server {
  const root = normalize(options.root);
  const gateway = new URL(options.gatewayUrl);
  const config = options.config ?? DEFAULT_RUNTIME_CONFIG;
  const security = options.https ? { ...SECURITY_HEADERS, ...HTTPS_ONLY } : SECURITY_HEADERS;
  const indexPath = join(root, "index.html");
  // The page with the settings written in (with and without the analytics script), read again only when
  // the file changes (a build in place).
  let page: { mtimeMs: number; size: number; body: Buffer; secretBody: Buffer } | undefined;
  const indexPage = async (file: { path: string; stats: Stats }, secret: boolean): Promise<Buffer> => {
    if (page?.mtimeMs !== file.stats.mtimeMs || page.size !== file.stats.size) {
      const html = await readFile(file.path, "utf8");
      page = {
        mtimeMs: file.stats.mtimeMs,
        size: file.stats.size,
        body: Buffer.from(injectRuntimeConfig(html, config)),
        secretBody: Buffer.from(injectRuntimeConfig(html, { basePath: config.basePath })),
      };
    }
    return secret ? page.secretBody : page.body;
  };
  return createServer(async (req, res) => {
    const routed = observe(req, res);
    const url = new URL(req.url ?? "/", "http://web.invalid");
    if (url.pathname === config.basePath || url.pathname.startsWith(`${config.basePath}/`)) {
      routed(WEB_ROUTES.api);
      return proxy(req, res, gateway);
    }
    if (url.pathname === "/healthz") {
      routed(WEB_ROUTES.healthz);
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end("ok");
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" });
      return void res.end();
    }
    const file = await fileFor(root, url.pathname);
    if (file && file.path !== indexPath) {
      routed(WEB_ROUTES.static);
      return sendFile(req, res, security, file);
    }
    // A path with a file extension is a missing file; anything else is one of the app's routes.
    if (!file && extname(url.pathname)) {
      res.writeHead(404, { ...security, "content-type": "text/plain" });
      return void res.end("Not found");
    }
    routed(WEB_ROUTES.index);
    const index = await fileFor(root, "/index.html");
    if (!index) {
      res.writeHead(500, { "content-type": "text/plain" });
      return void res.end("The web app is not built: run `npm run build`.");
    }
    const secret = carriesSecret(url);
    sendIndex(req, res, secret ? { ...security, ...NO_REFERRER } : security, await indexPage(index, secret));
  });
}
