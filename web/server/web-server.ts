/**
 * The web app's production server (`npm start`, the chart's web Deployment): a plain node HTTP server that
 * serves the built app (dist/web/) with a fallback to index.html for the app's own routes, and passes the
 * API's base path (/api/auth unless AUTH_BASE_PATH says otherwise) through to the gateway, so the browser
 * sees one origin as it does behind the Ingress. index.html carries the run-time settings
 * (runtime-config.ts): the base path the app calls, and the analytics script when one is configured,
 * except on a page whose address carries a secret (a reset token...), which also sends no Referer at all.
 * Files go out as the build precompressed them (.br, .gz beside each; web/build/precompress.ts) when the
 * request accepts it, hashed assets cached for a year, index.html revalidated every time (ETag, 304), and
 * source maps never (404: the build keeps them in dist/sourcemaps/, outside the public folder).
 * Every request is counted in the process's HTTP RED metrics (services/runtime/src/metrics.ts) by the
 * kind of route that answered it, never the raw path, so a scan of random paths cannot grow the label set.
 */
import { createHash } from "node:crypto";
import { createReadStream, type Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { extname, join, normalize, relative, sep } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { recordHttpRequest } from "@auth-platform/runtime/metrics";
import { COMPRESSIBLE, PRECOMPRESSED } from "../build/precompress.js";
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

/**
 * The encodings of the precompressed copies the request accepts (RFC 9110 §12.5.3), in our order of
 * preference (br, then gzip): q=0 refuses one, `*` stands for those not named. Empty: the file as it is.
 */
export function acceptedEncodings(header: string | string[] | undefined): ("br" | "gzip")[] {
  if (header === undefined) return [];
  const weights = new Map<string, number>();
  for (const part of String(header).toLowerCase().split(",")) {
    const [name = "", ...params] = part.split(";").map((piece) => piece.trim());
    if (!name) continue;
    const q = params.map((param) => /^q=([0-9.]+)$/.exec(param)?.[1]).find((value) => value !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => weights.get(name) ?? (name === "gzip" ? weights.get("x-gzip") : undefined) ?? weights.get("*") ?? 0;
  return PRECOMPRESSED.map(({ encoding }) => encoding).filter((encoding) => weight(encoding) > 0);
}

/**
 * How long a browser or proxy keeps a file: the hashed files under assets/ forever (a new build names new
 * files), index.html never without asking again (no-cache: it names the current build's files), and the
 * other public files (favicon...) an hour, so a new one shows within the hour.
 */
const CACHE_CONTROL = {
  hashed: "public, max-age=31536000, immutable",
  index: "no-cache",
  other: "public, max-age=3600",
} as const;

/** Whether the request's copy is still current (RFC 9110 §13.1.2, §13.1.3): If-None-Match wins over If-Modified-Since. */
function notModified(req: IncomingMessage, etag: string, lastModified?: Date): boolean {
  const match = req.headers["if-none-match"];
  if (match !== undefined) return match.trim() === "*" || match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
  const since = req.headers["if-modified-since"];
  if (!since || !lastModified) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(lastModified.getTime() / 1000) * 1000 <= time;
}

/** A strong validator of one encoding of a file: its size and modification time, and the encoding. */
const fileETag = (stats: Stats, encoding?: string) => `"${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}${encoding ? `-${encoding}` : ""}"`;

/** The precompressed copy (file.br, file.gz) of the best encoding the request accepts, if the build wrote one. */
async function precompressedCopy(req: IncomingMessage, path: string): Promise<{ encoding: string; path: string; stats: Stats } | undefined> {
  for (const encoding of acceptedEncodings(req.headers["accept-encoding"])) {
    const copy = `${path}${PRECOMPRESSED.find((p) => p.encoding === encoding)!.suffix}`;
    const stats = await stat(copy).catch(() => undefined);
    if (stats?.isFile()) return { encoding, path: copy, stats };
  }
  return undefined;
}

/**
 * A file of the build: its precompressed copy when the request accepts one (Content-Encoding, and Vary so a
 * cache keeps each encoding apart), with its validators, so a revalidation is a 304. A Range header is
 * ignored: the whole file (or copy) is sent, never a range of a compressed copy.
 */
async function sendFile(req: IncomingMessage, res: ServerResponse, security: Record<string, string>, root: string, file: { path: string; stats: Stats }): Promise<void> {
  const type = extname(file.path);
  const compressible = COMPRESSIBLE.has(type);
  const copy = compressible ? await precompressedCopy(req, file.path) : undefined;
  const sent = copy ?? { path: file.path, stats: file.stats, encoding: undefined };
  const hashed = relative(root, file.path).startsWith(`assets${sep}`);
  const headers: Record<string, string> = {
    ...security,
    "Cache-Control": hashed ? CACHE_CONTROL.hashed : CACHE_CONTROL.other,
    ETag: fileETag(sent.stats, sent.encoding),
    "Last-Modified": sent.stats.mtime.toUTCString(),
    ...(compressible ? { Vary: "Accept-Encoding" } : {}),
  };
  if (notModified(req, headers.ETag!, sent.stats.mtime)) return void res.writeHead(304, headers).end();
  res.writeHead(200, {
    ...headers,
    "Content-Type": TYPES[type] ?? "application/octet-stream",
    "Content-Length": String(sent.stats.size),
    ...(sent.encoding ? { "Content-Encoding": sent.encoding } : {}),
  });
  if (req.method === "HEAD") return void res.end();
  createReadStream(sent.path).pipe(res);
}

/** One index page, as it is and compressed (each only when smaller), with a validator of its content. */
interface IndexPage {
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  etag: string;
}

/** index.html is compressed here, not at build time: the run-time settings are written into it. */
function indexPage(html: string): IndexPage {
  const identity = Buffer.from(html);
  const br = brotliCompressSync(identity);
  const gzip = gzipSync(identity);
  return {
    identity,
    ...(br.length < identity.length ? { br } : {}),
    ...(gzip.length < identity.length ? { gzip } : {}),
    etag: createHash("sha256").update(identity).digest("base64url").slice(0, 22),
  };
}

/** index.html with the run-time settings written in; browsers must revalidate it, so a new release is picked up. */
function sendIndex(req: IncomingMessage, res: ServerResponse, security: Record<string, string>, page: IndexPage): void {
  const encoding = acceptedEncodings(req.headers["accept-encoding"]).find((name) => page[name]);
  const body = encoding ? page[encoding]! : page.identity;
  const headers: Record<string, string> = {
    ...security,
    "Cache-Control": CACHE_CONTROL.index,
    ETag: `"${page.etag}${encoding ? `-${encoding}` : ""}"`,
    Vary: "Accept-Encoding",
  };
  if (notModified(req, headers.ETag!)) return void res.writeHead(304, headers).end();
  res.writeHead(200, {
    ...headers,
    "Content-Type": TYPES[".html"]!,
    "Content-Length": String(body.length),
    ...(encoding ? { "Content-Encoding": encoding } : {}),
  });
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
  let page: { mtimeMs: number; size: number; body: IndexPage; secretBody: IndexPage } | undefined;
  const readIndex = async (file: { path: string; stats: Stats }, secret: boolean): Promise<IndexPage> => {
    if (page?.mtimeMs !== file.stats.mtimeMs || page.size !== file.stats.size) {
      const html = await readFile(file.path, "utf8");
      page = {
        mtimeMs: file.stats.mtimeMs,
        size: file.stats.size,
        body: indexPage(injectRuntimeConfig(html, config)),
        secretBody: indexPage(injectRuntimeConfig(html, { basePath: config.basePath })),
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
    // Browsers that ignore the page's <link rel="icon"> ask for /favicon.ico: the SVG icon answers it.
    const found = (await fileFor(root, url.pathname)) ?? (url.pathname === "/favicon.ico" ? await fileFor(root, "/favicon.svg") : undefined);
    // Source maps are kept out of the public folder (deploy/build.ts); one left in it is a missing file too.
    const file = found && extname(found.path) !== ".map" ? found : undefined;
    if (file && file.path !== indexPath) {
      routed(WEB_ROUTES.static);
      return sendFile(req, res, security, root, file);
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
    sendIndex(req, res, secret ? { ...security, ...NO_REFERRER } : security, await readIndex(index, secret));
  });
}
