import type { Workload } from "@auth-platform/runtime/grpc-access";
import { type GrpcTls, grpcTlsFromEnv } from "@auth-platform/runtime/grpc-transport";
import type { ServiceOptions } from "@auth-platform/runtime/service";
import { identityConfig } from "../services/identity/src/config.js";
import { start as identity } from "../services/identity/src/start.js";
import { sessionConfig } from "../services/session/src/config.js";
import { start as session } from "../services/session/src/start.js";
import { notificationConfig } from "../services/notification/src/config.js";
import { start as notification } from "../services/notification/src/start.js";
import { organizationConfig } from "../services/organization/src/config.js";
import { start as organization } from "../services/organization/src/start.js";
import { adminConfig } from "../services/admin/src/config.js";
import { start as admin } from "../services/admin/src/start.js";
import { oauthConfig } from "../services/oauth/src/config.js";
import { start as oauth } from "../services/oauth/src/start.js";
import { ssoConfig } from "../services/sso/src/config.js";
import { start as sso } from "../services/sso/src/start.js";
import { gatewayConfig } from "../gateway/src/config.js";
import { type RunningGateway, startGateway as gateway } from "../gateway/src/start.js";
import { createTestDatabase, dropDatabases, TEST_REDIS_URL, testRedisPrefix, type TestDatabase } from "./databases.js";
import { freePorts } from "./ports.js";
import { testCertificates, workloadEnv } from "./certificates.js";

export { freePorts, workloadEnv };
export type { RunningGateway };

export interface PlatformOptions {
  /** Extra environment for every process (e.g. IDENTITY_AUTO_SIGN_IN=false). */
  env?: Record<string, string>;
  /** Rate limiting is off unless a test turns it on. */
  rateLimit?: boolean;
  /** Use TEST_REDIS_URL when set (default true). */
  redis?: boolean;
  /** Mutual TLS between the processes (default true); false runs gRPC in plaintext. */
  tls?: boolean;
  /** Receives every log line of every process, parsed (default: stdout, at LOG_LEVEL=error). */
  logs?: LogSink;
  /** Environment for one service only, over `env` (e.g. identity dialling the session service through a proxy). */
  serviceEnv?: Partial<Record<"identity" | "session" | "notification" | "organization" | "admin" | "oauth" | "sso", Record<string, string>>>;
}

/** Where the in-process services and the gateway write their log lines. */
export type LogSink = (entry: Record<string, unknown>) => void;

export interface Platform {
  /** http://127.0.0.1:PORT/api/auth (or the AUTH_BASE_PATH of the options' env) */
  baseURL: string;
  origin: string;
  identityAddress: string;
  sessionAddress: string;
  /** The environment every process got (ports, database URLs, secrets); workloadEnv() adds one's certificate. */
  env: Record<string, string>;
  /** The running gateway (its origin, its metrics port). */
  gateway: RunningGateway;
  /** The running services, e.g. to reach a service's store. */
  services: {
    identity: RunningIdentity;
    session: RunningSession;
    notification: RunningNotification;
    organization: RunningOrganization;
    admin: RunningAdmin;
    oauth: RunningOAuth;
    sso: RunningSso;
  };
  /** How a client holding `workload`'s certificate connects (plaintext when the platform runs without TLS). */
  grpcTls(workload: Workload): GrpcTls;
  stop(): Promise<void>;
}

export async function platformEnv(options: PlatformOptions = {}): Promise<{ env: Record<string, string>; databases: TestDatabase[] }> {
  const [identityPort, sessionPort, notificationPort, gatewayPort, organizationPort, oauthPort, adminPort, ssoPort] = await freePorts(8);
  // Created together, as they are dropped (dropDatabases): one after the other, the seven CREATE DATABASE
  // took about 4.4 s of every boot on a loaded 2-core machine, together about 1.5 s.
  const [identityDb, sessionDb, notificationDb, organizationDb, oauthDb, adminDb, ssoDb] = await Promise.all([
    createTestDatabase("identity"),
    createTestDatabase("session"),
    createTestDatabase("notification"),
    createTestDatabase("organization"),
    createTestDatabase("oauth"),
    createTestDatabase("admin"),
    createTestDatabase("sso"),
  ]);
  const useRedis = (options.redis ?? true) && TEST_REDIS_URL;
  const tls = options.tls ?? true;
  const env: Record<string, string> = {
    LOG_LEVEL: "error",
    PORT: String(gatewayPort),
    AUTH_BASE_URL: `http://127.0.0.1:${gatewayPort}/api/auth`,
    AUTH_SECRET: "test-secret-0123456789-0123456789-0123456789",
    IDENTITY_PORT: String(identityPort),
    SESSION_PORT: String(sessionPort),
    NOTIFICATION_PORT: String(notificationPort),
    IDENTITY_SERVICE_URL: `127.0.0.1:${identityPort}`,
    SESSION_SERVICE_URL: `127.0.0.1:${sessionPort}`,
    NOTIFICATION_SERVICE_URL: `127.0.0.1:${notificationPort}`,
    IDENTITY_DATABASE_URL: identityDb.url,
    SESSION_DATABASE_URL: sessionDb.url,
    NOTIFICATION_DATABASE_URL: notificationDb.url,
    ORGANIZATION_PORT: String(organizationPort),
    ORGANIZATION_SERVICE_URL: `127.0.0.1:${organizationPort}`,
    ORGANIZATION_DATABASE_URL: organizationDb.url,
    ADMIN_PORT: String(adminPort),
    ADMIN_SERVICE_URL: `127.0.0.1:${adminPort}`,
    ADMIN_DATABASE_URL: adminDb.url,
    OAUTH_PORT: String(oauthPort),
    OAUTH_SERVICE_URL: `127.0.0.1:${oauthPort}`,
    OAUTH_DATABASE_URL: oauthDb.url,
    SSO_PORT: String(ssoPort),
    SSO_SERVICE_URL: `127.0.0.1:${ssoPort}`,
    SSO_DATABASE_URL: ssoDb.url,
    // The suite's OpenID provider listens on loopback (testing/openid-provider.ts).
    SSO_ALLOW_PRIVATE_ADDRESSES: "true",
    RATE_LIMIT_ENABLED: String(options.rateLimit ?? false),
    ...(useRedis ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: testRedisPrefix() } : {}),
    ...(tls ? await testCertificates() : {}),
    ...options.env,
  };
  return { env, databases: [identityDb, sessionDb, notificationDb, organizationDb, adminDb, oauthDb, ssoDb] };
}

/** The gateway as its main.ts starts it, on loopback, with its own workload certificate. */
export async function startGateway(env: Record<string, string>, logs?: LogSink): Promise<RunningGateway> {
  // No linger for idle connections at close: a suite's last keep-alive connection would hold every stop a
  // second. The drain under load runs the gateway's process with its defaults (drain-under-load.int.test.ts).
  return gateway(gatewayConfig(workloadEnv(env, "gateway")), { host: "127.0.0.1", graceMs: 1_000, idleLingerMs: 0, logTo: writeTo(logs) });
}

const writeTo = (logs?: LogSink) => (logs ? (line: string) => logs(JSON.parse(line) as Record<string, unknown>) : undefined);

/** Each service as its main.ts starts it, on loopback, with its own workload certificate. */
const serviceOptions = (logs?: LogSink): ServiceOptions => ({ host: "127.0.0.1", graceMs: 1_000, logTo: writeTo(logs) });
export type RunningIdentity = Awaited<ReturnType<typeof identity>>;
export type RunningSession = Awaited<ReturnType<typeof session>>;
export type RunningNotification = Awaited<ReturnType<typeof notification>>;
export const startIdentity = (env: Record<string, string>, logs?: LogSink) => identity(identityConfig(workloadEnv(env, "identity")), serviceOptions(logs));
export const startSession = (env: Record<string, string>, logs?: LogSink) => session(sessionConfig(workloadEnv(env, "session")), serviceOptions(logs));
export type RunningOrganization = Awaited<ReturnType<typeof organization>>;
export const startOrganization = (env: Record<string, string>, logs?: LogSink) => organization(organizationConfig(workloadEnv(env, "organization")), serviceOptions(logs));
export type RunningAdmin = Awaited<ReturnType<typeof admin>>;
export const startAdmin = (env: Record<string, string>, logs?: LogSink) => admin(adminConfig(workloadEnv(env, "admin")), serviceOptions(logs));
export const startNotification = (env: Record<string, string>, logs?: LogSink) => notification(notificationConfig(workloadEnv(env, "notification")), serviceOptions(logs));
export type RunningOAuth = Awaited<ReturnType<typeof oauth>>;
export const startOAuth = (env: Record<string, string>, logs?: LogSink) => oauth(oauthConfig(workloadEnv(env, "oauth")), serviceOptions(logs));
export type RunningSso = Awaited<ReturnType<typeof sso>>;
export const startSso = (env: Record<string, string>, logs?: LogSink) => sso(ssoConfig(workloadEnv(env, "sso")), serviceOptions(logs));

export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const { env, databases } = await platformEnv(options);
  const own = (service: keyof NonNullable<PlatformOptions["serviceEnv"]>) => ({ ...env, ...options.serviceEnv?.[service] });
  const notification = await startNotification(own("notification"), options.logs);
  // Session first: it calls nobody, and identity's start-up backfill of user copies then succeeds at once.
  const session = await startSession(own("session"), options.logs);
  const identity = await startIdentity(own("identity"), options.logs);
  const organization = await startOrganization(own("organization"), options.logs);
  const admin = await startAdmin(own("admin"), options.logs);
  const oauthService = await startOAuth(own("oauth"), options.logs);
  const ssoService = await startSso(own("sso"), options.logs);
  const gateway = await startGateway(env, options.logs);
  return {
    baseURL: `${gateway.origin}${env.AUTH_BASE_PATH ?? "/api/auth"}`,
    origin: gateway.origin,
    identityAddress: env.IDENTITY_SERVICE_URL!,
    sessionAddress: env.SESSION_SERVICE_URL!,
    env,
    gateway,
    services: { identity, session, notification, organization, admin, oauth: oauthService, sso: ssoService },
    grpcTls: (workload) => grpcTlsFromEnv(workloadEnv(env, workload)),
    async stop() {
      await step("gateway", () => gateway.close(), gateway.closing);
      await step("sso", () => ssoService.close(), ssoService.closing);
      await step("oauth", () => oauthService.close(), oauthService.closing);
      await step("admin", () => admin.close(), admin.closing);
      await step("organization", () => organization.close(), organization.closing);
      await step("session", () => session.close(), session.closing);
      await step("identity", () => identity.close(), identity.closing);
      await step("notification", () => notification.close(), notification.closing);
      await step("database drops", () => dropDatabases(databases));
    },
  };
}

/**
 * One step of a platform's stop, named on stderr while it runs past STEP_WARN_MS, with what a service's
 * close is waiting for (RunningService.closing): a stop that hangs then says where it is before the
 * test's hook times out. That is how the store close that waited
 * forever for a leaked PostgreSQL connection was found (docs/adr/0018-postgresql-connections.md).
 */
async function step(name: string, run: () => Promise<void>, closing?: () => string | undefined): Promise<void> {
  // performance.now(), not Date: a suite's clock.advance() moves Date (testing/use-platform.ts).
  const started = performance.now();
  const warn = setInterval(() => {
    const waitingFor = closing?.();
    process.stderr.write(`platform stop: ${name} still closing after ${Math.round((performance.now() - started) / 1000)} s${waitingFor ? ` (waiting for ${waitingFor})` : ""}\n`);
  }, STEP_WARN_MS);
  try {
    await run();
  } finally {
    clearInterval(warn);
  }
}
const STEP_WARN_MS = 10_000;
