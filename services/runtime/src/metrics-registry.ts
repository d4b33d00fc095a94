/**
 * The Prometheus registry and instruments behind metrics.ts, in a module of their own: a process loads it
 * (and prom-client, with its default collectors) only once it serves metrics (enableMetrics, called by
 * startMetricsServer when METRICS_PORT is set). Until then metrics.ts records nothing, at no cost.
 *
 * One registry per process: in production a process is one service. The test platform runs every
 * service in one process, where each metrics port serves the same registry.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { dependencyStates } from "./dependencies.js";
import { gaugeReadings } from "./metrics.js";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Seconds; from 1 ms (a cached get-session) to 10 s (past every deadline). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const rpcServerHandled = new Counter({
  name: "grpc_server_handled_total",
  help: "RPCs completed by this server, by gRPC status code and catalogue error code (empty on success).",
  labelNames: ["grpc_service", "grpc_method", "grpc_code", "error_code"] as const,
  registers: [registry],
});
export const rpcServerSeconds = new Histogram({
  name: "grpc_server_handling_seconds",
  help: "Time this server took to answer an RPC.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const rpcClientHandled = new Counter({
  name: "grpc_client_handled_total",
  help: "RPCs this process called, by the gRPC status code they ended with.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  registers: [registry],
});
export const rpcClientSeconds = new Histogram({
  name: "grpc_client_handling_seconds",
  help: "Time an RPC this process called took, as the caller saw it.",
  labelNames: ["grpc_service", "grpc_method", "grpc_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const httpRequests = new Counter({
  name: "http_server_requests_total",
  help: "HTTP requests answered, by route template (never the raw path) and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});
export const httpSeconds = new Histogram({
  name: "http_server_request_duration_seconds",
  help: "Time to answer an HTTP request, by route template and status.",
  labelNames: ["method", "route", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const signIns = new Counter({
  name: "auth_sign_ins_total",
  help: "Sign-in attempts by method and outcome.",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
export const signUps = new Counter({
  name: "auth_sign_ups_total",
  help: "Sign-up attempts by method and outcome.",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
export const rateLimited = new Counter({
  name: "auth_rate_limited_total",
  help: "Requests refused by the rate limiter, by the rule that refused them (its path prefix, or default).",
  labelNames: ["rule"] as const,
  registers: [registry],
});
export const twoFactorChallenges = new Counter({
  name: "auth_two_factor_challenges_total",
  help: "Two-factor challenges: issued at sign-in, then passed or failed, by method (totp, otp, backup_code, passkey).",
  labelNames: ["method", "outcome"] as const,
  registers: [registry],
});
export const sessionsCreated = new Counter({
  name: "auth_sessions_created_total",
  help: "Sessions created.",
  registers: [registry],
});
export const sessionsRevoked = new Counter({
  name: "auth_sessions_revoked_total",
  help: "Sessions revoked (signed out, revoked by their user or an admin, or with their user).",
  registers: [registry],
});
export const cacheRecordsRefused = new Counter({
  name: "auth_cache_records_refused_total",
  help: "Session cache entries not trusted because their MAC is missing (unsigned) or does not match (invalid-mac): written to Redis by someone without AUTH_SECRET, or moved to another key.",
  labelNames: ["reason"] as const,
  registers: [registry],
});
const gatewaySessionCacheLookups = new Counter({
  name: "auth_gateway_session_cache_lookups_total",
  help: "get-session lookups in the gateway's own session memory: hit (answered from it) or miss (asked the shared cache or the session service).",
  labelNames: ["result"] as const,
  registers: [registry],
});
// Bound once: a lookup is counted on every request.
export const gatewaySessionCacheHits = gatewaySessionCacheLookups.labels({ result: "hit" });
export const gatewaySessionCacheMisses = gatewaySessionCacheLookups.labels({ result: "miss" });
export const mailDeliveryFailures = new Counter({
  name: "auth_mail_delivery_failures_total",
  help: "Failed mail delivery attempts: retry (another attempt is scheduled) or final (given up).",
  labelNames: ["kind"] as const,
  registers: [registry],
});
export const passwordHashSeconds = new Histogram({
  name: "auth_password_hash_seconds",
  help: "Time of one password hash or verification (scrypt), queueing excluded.",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2],
  registers: [registry],
});

/** Gauges read when scraped, from the component that knows the value (metrics.ts gaugeSources). */
new Gauge({
  name: "auth_mail_outbox_depth",
  help: "Mail messages waiting to be delivered.",
  registers: [registry],
  async collect() {
    const reading = await gaugeReadings.outbox();
    if (reading) this.set(reading.depth);
  },
});
new Gauge({
  name: "auth_mail_oldest_undelivered_age_seconds",
  help: "Age of the oldest message still waiting to be delivered (0 when none waits).",
  registers: [registry],
  async collect() {
    const reading = await gaugeReadings.outbox();
    if (reading) this.set(reading.oldestAgeSeconds);
  },
});
new Gauge({
  name: "auth_password_hash_queue_depth",
  help: "Password hashing operations running and waiting for a place (the bounded hashing queue).",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    const reading = gaugeReadings.hashingQueue();
    if (!reading) return;
    const { running, waiting } = reading;
    this.set({ state: "running" }, running);
    this.set({ state: "waiting" }, waiting);
  },
});

new Gauge({
  name: "auth_dependency_up",
  help: "Whether a dependency answered its last readiness check (1) or not (0).",
  labelNames: ["dependency"] as const,
  registers: [registry],
  collect() {
    for (const [dependency, value] of dependencyStates()) this.set({ dependency }, value);
  },
});
