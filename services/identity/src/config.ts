/** The identity service's configuration, from the environment (docs/configuration.md). */
import { availableParallelism } from "node:os";
import * as z from "zod";
import { ConfigError, env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";
import { type TwoFactorKeys, twoFactorKeys } from "./two-factor-keys.js";

const userFieldSchema = z.object({
  type: z.enum(["string", "number", "boolean"]),
  required: z.boolean().default(false),
  /** false: the field is set by the server only, never from a request body. */
  input: z.boolean().default(true),
});
export type UserFieldConfig = z.output<typeof userFieldSchema>;

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  IDENTITY_PORT: env.port(50051),
  IDENTITY_DATABASE_URL: z.string().min(1).default("file:data/identity.db"),
  SESSION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50052"),
  IDENTITY_EMAIL_PASSWORD_ENABLED: env.bool(true),
  IDENTITY_AUTO_SIGN_IN: env.bool(true),
  IDENTITY_PASSWORD_MIN_LENGTH: z.coerce.number().int().min(1).default(8),
  IDENTITY_PASSWORD_MAX_LENGTH: z.coerce.number().int().min(1).default(128),
  IDENTITY_USER_FIELDS: env.json(z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), userFieldSchema), {}),
  NOTIFICATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50056"),
  ORGANIZATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50054"),
  SSO_SERVICE_URL: z.string().min(1).default("127.0.0.1:50057"),
  IDENTITY_DOMAIN_AUTO_JOIN: env.bool(true),
  AUTH_BASE_URL: env.optionalUrl(),
  SESSION_FRESH_AGE: env.seconds(86_400),
  IDENTITY_EMAIL_VERIFICATION_ENABLED: env.bool(true),
  IDENTITY_SEND_VERIFICATION_ON_SIGN_UP: env.bool(true),
  IDENTITY_REQUIRE_EMAIL_VERIFICATION: env.bool(false),
  IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: env.bool(false),
  IDENTITY_VERIFICATION_TOKEN_EXPIRES_IN: env.seconds(3_600),
  IDENTITY_RESET_PASSWORD_ENABLED: env.bool(true),
  IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN: env.seconds(3_600),
  IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: env.bool(true),
  IDENTITY_CHANGE_EMAIL_ENABLED: env.bool(true),
  IDENTITY_DELETE_USER_ENABLED: env.bool(true),
  IDENTITY_DELETE_USER_VERIFICATION: env.bool(true),
  IDENTITY_HASHING_CONCURRENCY: z.coerce.number().int().min(1).optional(),
  IDENTITY_HASHING_QUEUE_LIMIT: z.coerce.number().int().min(0).default(256),
  APP_NAME: z.string().trim().min(1).max(100).default("Auth Platform"),
  IDENTITY_TWO_FACTOR_KEYS: z.string().optional(),
  IDENTITY_TWO_FACTOR_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  IDENTITY_MAGIC_LINK_ENABLED: env.bool(false),
  IDENTITY_MAGIC_LINK_EXPIRES_IN: env.seconds(900),
  IDENTITY_MAGIC_LINK_SIGN_UP: env.bool(true),
  IDENTITY_EMAIL_OTP_ENABLED: env.bool(false),
  IDENTITY_EMAIL_OTP_EXPIRES_IN: env.seconds(300),
  IDENTITY_EMAIL_OTP_ALLOWED_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  IDENTITY_EMAIL_OTP_SIGN_UP: env.bool(true),
  IDENTITY_PASSKEY_RP_ID: z.string().trim().min(1).max(253).optional(),
  IDENTITY_PASSKEY_RP_NAME: z.string().trim().min(1).max(100).optional(),
  IDENTITY_PASSKEY_ORIGINS: env.list(),
  // The web app's URL (the gateway's setting): its origin is where passkey ceremonies run.
  AUTH_APP_URL: env.optionalUrl(),
  // Role given to new users; empty: none.
  IDENTITY_DEFAULT_ROLE: z.string().max(255).default("user"),
});

/**
 * scrypt derivations in flight by default: one per CPU (at most libuv's default threadpool of 4, beyond
 * which derivations would only queue there, unbounded), so hashing keeps the throughput it had unbounded.
 * One per CPU but one would leave a CPU to the gateway and the session service on a shared host, but
 * halves sign-in capacity on 2 CPUs, where 50 simultaneous sign-ups then run past their deadline
 * (gateway/test/concurrency.int.test.ts): set IDENTITY_HASHING_CONCURRENCY for that trade.
 */
export function defaultHashingConcurrency(cpus = availableParallelism()): number {
  return Math.min(4, Math.max(1, cpus));
}

export interface IdentityConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  sessionServiceUrl: string;
  emailPasswordEnabled: boolean;
  autoSignIn: boolean;
  passwordMinLength: number;
  passwordMaxLength: number;
  userFields: Record<string, UserFieldConfig>;
  notificationServiceUrl: string;
  /** Deleting a user removes their memberships there. */
  organizationServiceUrl: string;
  /** A user whose address becomes verified is told to it, for domain auto-join (docs/adr/0074-user-event-outbox.md). */
  ssoServiceUrl: string;
  /** false: no sso service is deployed, and a verified address has no one to be told to (IDENTITY_DOMAIN_AUTO_JOIN). */
  domainAutoJoin: boolean;
  /** Public URL of the API, for links in mail (never taken from a request's Host header). */
  baseUrl: string;
  secret: string;
  freshAgeSeconds: number;
  emailVerification: {
    enabled: boolean;
    sendOnSignUp: boolean;
    required: boolean;
    autoSignIn: boolean;
    expiresInSeconds: number;
  };
  resetPassword: { enabled: boolean; expiresInSeconds: number; revokeSessions: boolean };
  changeEmailEnabled: boolean;
  deleteUser: { enabled: boolean; verification: boolean };
  /** The bounded hashing queue (hashing-queue.ts): derivations in flight, and how many may wait. */
  hashing: { concurrency: number; maxQueued: number };
  twoFactor: {
    /** The issuer authenticator apps show (APP_NAME). */
    appName: string;
    keys: TwoFactorKeys;
    /** Codes a sign-in challenge accepts trying, all methods together, before it is void. */
    maxAttempts: number;
  };
  /** The WebAuthn relying party (docs/adr/0059-passkeys.md). */
  passkeys: {
    rpId: string;
    rpName: string;
    /** The origins a passkey ceremony may run on (the browser reports its origin in the signed client data). */
    origins: string[];
  };
  /** The role new users get, or null when switched off (IDENTITY_DEFAULT_ROLE empty). */
  defaultRole: string | null;
  /** Sign-in by a mailed link (domain/mail-sign-in.ts); signUp: an unknown address gets a new user. */
  magicLink: { enabled: boolean; expiresInSeconds: number; signUp: boolean };
  /** Mailed codes: sign-in, email verification, password reset; a code is void after allowedAttempts tries. */
  emailOtp: { enabled: boolean; expiresInSeconds: number; allowedAttempts: number; signUp: boolean };
}

export function identityConfig(source: Record<string, string | undefined>): IdentityConfig {
  const c = loadConfig(schema, source);
  if (c.IDENTITY_REQUIRE_EMAIL_VERIFICATION && !c.IDENTITY_EMAIL_VERIFICATION_ENABLED) {
    throw new ConfigError(["IDENTITY_REQUIRE_EMAIL_VERIFICATION: needs IDENTITY_EMAIL_VERIFICATION_ENABLED=true (no one could ever verify)"]);
  }
  const { secret } = secretFromEnv(source);
  const baseUrl = (c.AUTH_BASE_URL ?? "http://localhost:3000/api/auth").replace(/\/+$/, "");
  return {
    logLevel: c.LOG_LEVEL,
    port: c.IDENTITY_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.IDENTITY_DATABASE_URL,
    sessionServiceUrl: c.SESSION_SERVICE_URL,
    emailPasswordEnabled: c.IDENTITY_EMAIL_PASSWORD_ENABLED,
    autoSignIn: c.IDENTITY_AUTO_SIGN_IN,
    passwordMinLength: c.IDENTITY_PASSWORD_MIN_LENGTH,
    passwordMaxLength: c.IDENTITY_PASSWORD_MAX_LENGTH,
    userFields: c.IDENTITY_USER_FIELDS,
    notificationServiceUrl: c.NOTIFICATION_SERVICE_URL,
    organizationServiceUrl: c.ORGANIZATION_SERVICE_URL,
    ssoServiceUrl: c.SSO_SERVICE_URL,
    domainAutoJoin: c.IDENTITY_DOMAIN_AUTO_JOIN,
    baseUrl,
    secret,
    freshAgeSeconds: c.SESSION_FRESH_AGE,
    emailVerification: {
      enabled: c.IDENTITY_EMAIL_VERIFICATION_ENABLED,
      sendOnSignUp: c.IDENTITY_SEND_VERIFICATION_ON_SIGN_UP,
      required: c.IDENTITY_REQUIRE_EMAIL_VERIFICATION,
      autoSignIn: c.IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION,
      expiresInSeconds: c.IDENTITY_VERIFICATION_TOKEN_EXPIRES_IN,
    },
    resetPassword: {
      enabled: c.IDENTITY_RESET_PASSWORD_ENABLED,
      expiresInSeconds: c.IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN,
      revokeSessions: c.IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET,
    },
    changeEmailEnabled: c.IDENTITY_CHANGE_EMAIL_ENABLED,
    deleteUser: { enabled: c.IDENTITY_DELETE_USER_ENABLED, verification: c.IDENTITY_DELETE_USER_VERIFICATION },
    hashing: { concurrency: c.IDENTITY_HASHING_CONCURRENCY ?? defaultHashingConcurrency(), maxQueued: c.IDENTITY_HASHING_QUEUE_LIMIT },
    twoFactor: {
      appName: c.APP_NAME,
      keys: twoFactorKeys(c.IDENTITY_TWO_FACTOR_KEYS, secret),
      maxAttempts: c.IDENTITY_TWO_FACTOR_MAX_ATTEMPTS,
    },
    defaultRole: c.IDENTITY_DEFAULT_ROLE.trim() || null,
    magicLink: { enabled: c.IDENTITY_MAGIC_LINK_ENABLED, expiresInSeconds: c.IDENTITY_MAGIC_LINK_EXPIRES_IN, signUp: c.IDENTITY_MAGIC_LINK_SIGN_UP },
    emailOtp: {
      enabled: c.IDENTITY_EMAIL_OTP_ENABLED,
      expiresInSeconds: c.IDENTITY_EMAIL_OTP_EXPIRES_IN,
      allowedAttempts: c.IDENTITY_EMAIL_OTP_ALLOWED_ATTEMPTS,
      signUp: c.IDENTITY_EMAIL_OTP_SIGN_UP,
    },
    passkeys: passkeySettings(c, baseUrl),
  };
}

/**
 * The relying party: by default the base URL's host, and the origins of the base URL and of the web app
 * (AUTH_APP_URL) when it sits on that host; with no AUTH_BASE_URL, localhost on the gateway's :3000 and the
 * Vite dev server's :5173. An origin set in IDENTITY_PASSKEY_ORIGINS must sit on the relying party id, or no
 * browser would ever run a ceremony for it: a mistake stops the process here rather than failing every
 * passkey later.
 */
function passkeySettings(c: z.output<typeof schema>, baseUrl: string): IdentityConfig["passkeys"] {
  const base = new URL(baseUrl);
  const rpId = c.IDENTITY_PASSKEY_RP_ID ?? base.hostname;
  const onRpId = (host: string) => host === rpId || host.endsWith(`.${rpId}`);
  const rpName = c.IDENTITY_PASSKEY_RP_NAME ?? c.APP_NAME;
  if (!c.IDENTITY_PASSKEY_ORIGINS.length) {
    if (!c.AUTH_BASE_URL) return { rpId, rpName, origins: ["http://localhost:3000", "http://localhost:5173"] };
    const app = c.AUTH_APP_URL ? new URL(c.AUTH_APP_URL) : undefined;
    const origins = [base.origin, ...(app && app.origin !== base.origin && onRpId(app.hostname) ? [app.origin] : [])];
    return { rpId, rpName, origins };
  }
  const problems: string[] = [];
  for (const origin of c.IDENTITY_PASSKEY_ORIGINS) {
    let host: string;
    try {
      const url = new URL(origin);
      if (url.origin !== origin) throw new Error("not an origin");
      host = url.hostname;
    } catch {
      problems.push(`IDENTITY_PASSKEY_ORIGINS: ${origin} is not an origin (scheme://host[:port])`);
      continue;
    }
    if (!onRpId(host)) problems.push(`IDENTITY_PASSKEY_ORIGINS: ${origin} is not on the relying party id ${rpId} (IDENTITY_PASSKEY_RP_ID)`);
  }
  if (problems.length) throw new ConfigError(problems);
  return { rpId, rpName, origins: c.IDENTITY_PASSKEY_ORIGINS };
}
