/**
 * Prometheus metrics of a process, served on their own port (METRICS_PORT; never through the gateway):
 * Node's runtime metrics, RED metrics of every RPC served and called (rpc.ts and grpc-server.ts record
 * them, so every service has them without code of its own) and of every HTTP route of the gateway, and
 * the auth events an operator watches, recorded through `authEvents` wherever the event happens.
 *
 * One registry per process: in production a process is one service. The test platform runs every
 * service in one process, where each metrics port serves the same registry.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Seconds; from 1 ms (a cached get-session) to 10 s (past every deadline). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const rpcServerHandled = new Counter({
  name: "grpc_server_handled_total",
  help: "RPCs completed by this server, by gRPC status code and catalogue error code (empty on success).",
  labelNames: ["grpc_service", "grpc_method", "grpc_code", "error_code"] as const,
  registers: [registry],
});
const rpcServerSeconds = new Histogram({
  name: "grpc_server_handling_seconds",
  help: "Time this server took to answer an RPC.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const rpcClientHandled = new Counter({
  name: "grpc_client_handled_total",
  help: "RPCs this process called, by the gRPC status code they ended with.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  registers: [registry],
});
const rpcClientSeconds = new Histogram({
  name: "grpc_client_handling_seconds",
  help: "Time an RPC this process called took, as the caller saw it.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const httpRequests = new Counter({
  name: "http_server_requests_total",
  help: "HTTP requests answered, by route template (never the raw path) and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});
const httpSeconds = new Histogram({
  name: "http_server_request_duration_seconds",
  help: "Time to answer an HTTP request, by route template and status.",
  labelNames: ["method", "route", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** gRPC status names (grpc_code label), as grpc-go and the grpc-prometheus conventions spell them. */
const GRPC_CODES = [
  "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied",
  "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal", "Unavailable",
  "DataLoss", "Unauthenticated",
];
export const grpcCodeName = (code: number): string => GRPC_CODES[code] ?? String(code);

/** "/auth.session.v1.SessionService/GetSession" -> [auth.session.v1.SessionService, GetSession]. */
function splitPath(path: string): [string, string] {
  const [, service = "", method = path] = /^\/?([^/]*)\/(.*)$/.exec(path) ?? [];
  return [service, method];
}

/** Records an RPC this process served. `path` is the full method path. */
export function recordRpcServed(path: string, seconds: number, grpcCode: number, errorCode = ""): void {
  const [grpc_service, grpc_method] = splitPath(path);
  const code = grpcCodeName(grpcCode);
  rpcServerHandled.inc({ grpc_service, grpc_method, grpc_code: code, error_code: errorCode });
  rpcServerSeconds.observe({ grpc_service, grpc_method, grpc_code: code }, seconds);
}

/** Records an RPC this process called. */
export function recordRpcCalled(path: string, seconds: number, grpcCode: number): void {
  const [grpc_service, grpc_method] = splitPath(path);
  const labels = { grpc_service, grpc_method, grpc_code: grpcCodeName(grpcCode) };
  rpcClientHandled.inc(labels);
  rpcClientSeconds.observe(labels, seconds);
}

/** Records an HTTP request; `route` is the matched route's template (or "unmatched"). */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpSeconds.observe(labels, seconds);
}

const signIns = new Counter({
  name: "auth_sign_ins_total",
  help: "Sign-in attempts by method and outcome.",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
const signUps = new Counter({
  name: "auth_sign_ups_total",
  help: "Sign-up attempts by method and outcome.",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
const rateLimited = new Counter({
  name: "auth_rate_limited_total",
  help: "Requests refused by the rate limiter, by the rule that refused them (its path prefix, or default).",
  labelNames: ["rule"] as const,
  registers: [registry],
});
const twoFactorChallenges = new Counter({
  name: "auth_two_factor_challenges_total",
  help: "Two-factor challenges: issued at sign-in, then passed or failed, by method (totp, otp, backup_code).",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
const sessionsCreated = new Counter({
  name: "auth_sessions_created_total",
  help: "Sessions created.",
  registers: [registry],
});
const sessionsRevoked = new Counter({
  name: "auth_sessions_revoked_total",
  help: "Sessions revoked (signed out, revoked by their user or an admin, or with their user).",
  registers: [registry],
});
const mailDeliveryFailures = new Counter({
  name: "auth_mail_delivery_failures_total",
  help: "Failed mail delivery attempts: retry (another attempt is scheduled) or final (given up).",
  labelNames: ["kind"] as const,
  registers: [registry],
});
const passwordHashSeconds = new Histogram({
  name: "auth_password_hash_seconds",
  help: "Time of one password hash or verification (scrypt), queueing excluded.",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2],
  registers: [registry],
});

export type SignInMethod = "email" | "username" | "social" | "magic-link" | "email-otp" | "passkey" | "anonymous";
/** failure: refused (wrong credentials, unverified email, banned...); error: we failed (5xx). */
export type SignInOutcome = "success" | "failure" | "error" | "two_factor_required";
export type TwoFactorMethod = "totp" | "otp" | "backup_code";
export type TwoFactorOutcome = "issued" | "passed" | "failed";

/**
 * The auth events, one call where each happens. Services and the gateway share this API; the processes
 * that never see an event simply never move its counter.
 */
export const authEvents = {
  signIn: (method: SignInMethod, outcome: SignInOutcome) => signIns.inc({ method, outcome }),
  signUp: (method: "email" | "social", outcome: "success" | "failure" | "error") => signUps.inc({ method, outcome }),
  rateLimited: (rule: string) => rateLimited.inc({ rule }),
  twoFactorChallenge: (method: TwoFactorMethod, outcome: TwoFactorOutcome) => twoFactorChallenges.inc({ method, outcome }),
  sessionCreated: () => sessionsCreated.inc(),
  sessionsRevoked: (count = 1) => sessionsRevoked.inc(count),
  mailDeliveryFailed: (kind: "retry" | "final") => mailDeliveryFailures.inc({ kind }),
  passwordHashed: (seconds: number) => passwordHashSeconds.observe(seconds),
};

/** The outcome of a failed attempt: the caller's failure (a 4xx answer), or our error (anything else). */
export function failureOutcome(error: unknown): "failure" | "error" {
  const http = (error as { http?: unknown })?.http;
  return typeof http === "number" && http < 500 ? "failure" : "error";
}

/** Runs a sign-in and counts its outcome under `method` (`outcomeOf` tells a challenge from a session). */
export async function countedSignIn<T>(
  method: SignInMethod,
  attempt: () => Promise<T>,
  outcomeOf: (result: T) => SignInOutcome = () => "success",
): Promise<T> {
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

new Gauge({
  name: "auth_mail_outbox_depth",
  help: "Mail messages waiting to be delivered.",
  registers: [registry],
  async collect() {
    const reading = await outboxReading();
    if (reading) this.set(reading.depth);
  },
});
new Gauge({
  name: "auth_mail_oldest_undelivered_age_seconds",
  help: "Age of the oldest message still waiting to be delivered (0 when none waits).",
  registers: [registry],
  async collect() {
    const reading = await outboxReading();
    if (reading) this.set(reading.oldestAgeSeconds);
  },
});
new Gauge({
  name: "auth_password_hash_queue_depth",
  help: "Password hashing operations running and waiting for a place (the bounded hashing queue).",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    if (!sources.hashingQueue) return;
    const { running, waiting } = sources.hashingQueue();
    this.set({ state: "running" }, running);
    this.set({ state: "waiting" }, waiting);
  },
});

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
