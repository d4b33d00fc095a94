/**
 * Prometheus metrics of a process, served on their own port (METRICS_PORT; never through the gateway):
 * Node's runtime metrics, RED metrics of every RPC served and called (rpc.ts and grpc-server.ts record
 * them, so every service has them without code of its own) and of every HTTP route of the gateway, and
 * the auth events an operator watches, recorded through `authEvents` wherever the event happens.
 *
 * Recording is free until the process serves metrics: the registry, its instruments and prom-client are
 * in metrics-registry.ts, loaded by enableMetrics (startMetricsServer calls it, so with METRICS_PORT set
 * everything is recorded from before the first request). A process without METRICS_PORT, whose metrics
 * nobody could read, neither loads prom-client nor runs its collectors (about 2 to 5 MiB of memory).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

type Instruments = typeof import("./metrics-registry.js");
let instruments: Instruments | undefined;

/** Loads the registry and starts recording (idempotent); the registry, for the endpoint and tests. */
export async function enableMetrics(): Promise<Registry> {
  instruments ??= await import("./metrics-registry.js");
  return instruments.registry;
}

/** gRPC status names (grpc_code label), as grpc-go and the grpc-prometheus conventions spell them. */
const GRPC_CODES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];
export const grpcCodeName = (code: number): string => GRPC_CODES[code] ?? String(code);

/** "/auth.session.v1.SessionService/GetSession" -> [auth.session.v1.SessionService, GetSession]. */
function splitPath(path: string): [string, string] {
  const [, service = "", method = path] = /^\/?([^/]*)\/(.*)$/.exec(path) ?? [];
  return [service, method];
}

/** Records an RPC this process served. `path` is the full method path. */
export function recordRpcServed(path: string, seconds: number, grpcCode: number, errorCode = ""): void {
  if (!instruments) return;
  const [grpc_service, grpc_method] = splitPath(path);
  const code = grpcCodeName(grpcCode);
  instruments.rpcServerHandled.inc({ grpc_service, grpc_method, grpc_code: code, error_code: errorCode });
  instruments.rpcServerSeconds.observe({ grpc_service, grpc_method, grpc_code: code }, seconds);
}

/** Records an RPC this process called. */
export function recordRpcCalled(path: string, seconds: number, grpcCode: number): void {
  if (!instruments) return;
  const [grpc_service, grpc_method] = splitPath(path);
  const labels = { grpc_service, grpc_method, grpc_code: grpcCodeName(grpcCode) };
  instruments.rpcClientHandled.inc(labels);
  instruments.rpcClientSeconds.observe(labels, seconds);
}

/** Whether this process records metrics (it serves them): a caller may skip measuring what nobody reads. */
export function metricsEnabled(): boolean {
  return instruments !== undefined;
}

/**
 * The HTTP instruments bound to each method, route and status seen, so a request records without building
 * and checking its labels again. Bounded: the route is a declared template or "unmatched", the method one
 * Node's parser accepts, the status one the gateway answers.
 */
const httpChildren = new Map<string, { count: () => void; observe: (seconds: number) => void }>();

/** Records an HTTP request; `route` is the matched route's template (or "unmatched"). */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  if (!instruments) return;
  const key = `${method} ${status} ${route}`;
  let child = httpChildren.get(key);
  if (!child) {
    const labels = { method, route, status: String(status) };
    child = { count: instruments.httpRequests.labels(labels).inc, observe: instruments.httpSeconds.labels(labels).observe };
    httpChildren.set(key, child);
  }
  child.count();
  child.observe(seconds);
}

export type SignInMethod = "email" | "username" | "social" | "sso" | "magic-link" | "email-otp" | "passkey" | "anonymous";
/** failure: refused (wrong credentials, unverified email, banned...); error: we failed (5xx). */
export type SignInOutcome = "success" | "failure" | "error" | "two_factor_required";
export type TwoFactorMethod = "totp" | "otp" | "backup_code" | "passkey";
export type TwoFactorOutcome = "issued" | "passed" | "failed";

/**
 * The auth events, one call where each happens. Services and the gateway share this API; the processes
 * that never see an event simply never move its counter.
 */
export const authEvents = {
  signIn: (method: SignInMethod, outcome: SignInOutcome) => instruments?.signIns.inc({ method, outcome }),
  signUp: (method: "email" | "social" | "sso", outcome: "success" | "failure" | "error") => instruments?.signUps.inc({ method, outcome }),
  rateLimited: (rule: string) => instruments?.rateLimited.inc({ rule }),
  twoFactorChallenge: (method: TwoFactorMethod, outcome: TwoFactorOutcome) => instruments?.twoFactorChallenges.inc({ method, outcome }),
  sessionCreated: () => instruments?.sessionsCreated.inc(),
  sessionsRevoked: (count = 1) => instruments?.sessionsRevoked.inc(count),
  cacheRecordRefused: (reason: "unsigned" | "invalid-mac") => instruments?.cacheRecordsRefused.inc({ reason }),
  gatewaySessionCacheLookup: (hit: boolean) => (hit ? instruments?.gatewaySessionCacheHits : instruments?.gatewaySessionCacheMisses)?.inc(),
  mailDeliveryFailed: (kind: "retry" | "final") => instruments?.mailDeliveryFailures.inc({ kind }),
  passwordHashed: (seconds: number) => instruments?.passwordHashSeconds.observe(seconds),
};

/** The outcome of a failed attempt: the caller's failure (a 4xx answer), or our error (anything else). */
export function failureOutcome(error: unknown): "failure" | "error" {
  const http = (error as { http?: unknown })?.http;
  return typeof http === "number" && http < 500 ? "failure" : "error";
}

/** Runs a sign-in and counts its outcome under `method` (`outcomeOf` tells a challenge from a session). */
export async function countedSignIn<T>(method: SignInMethod, attempt: () => Promise<T>, outcomeOf: (result: T) => SignInOutcome = () => "success"): Promise<T> {
  try {
    const result = await attempt();
    authEvents.signIn(method, outcomeOf(result));
    return result;
  } catch (error) {
    authEvents.signIn(method, failureOutcome(error));
    throw error;
  }
}

/**
 * Gauges read when scraped, from the component that knows the value (the outbox's store, the hashing
 * queue). A later call replaces the earlier source (a restarted service in one test process).
 */
const sources: { outbox?: () => Promise<{ depth: number; oldestAgeSeconds: number }>; hashingQueue?: () => { running: number; waiting: number } } = {};

/**
 * The outbox reading of this scrape: both outbox gauges share one query. A failed query (the database is
 * down) leaves the gauges at their last value rather than failing the whole scrape.
 */
let pendingReading: Promise<{ depth: number; oldestAgeSeconds: number } | undefined> | undefined;
function outboxReading() {
  if (!sources.outbox) return Promise.resolve(undefined);
  pendingReading ??= sources
    .outbox()
    .catch(() => undefined)
    .finally(() => setTimeout(() => (pendingReading = undefined), 0));
  return pendingReading;
}

/** What the scrape-time gauges of metrics-registry.ts read; undefined while a process has no such source. */
export const gaugeReadings = {
  outbox: outboxReading,
  hashingQueue: () => sources.hashingQueue?.(),
};

export const gaugeSources = {
  outbox(read: () => Promise<{ depth: number; oldestAgeSeconds: number }>) {
    sources.outbox = read;
  },
  hashingQueue(read: () => { running: number; waiting: number }) {
    sources.hashingQueue = read;
  },
};

/**
 * Serves GET /metrics on `port` (0 picks a free one); anything else is 404. Plain HTTP, bound like the
 * health port: the chart's ServiceMonitor scrapes it, and no Service of the gateway exposes it.
 */
export async function startMetricsServer(port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const registry = await enableMetrics();
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics unavailable: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
