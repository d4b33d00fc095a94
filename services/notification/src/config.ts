/** The notification service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";

/** The domain of an address in `Name <local@domain>` or bare `local@domain` form. */
function domainOf(from: string): string | undefined {
  const address = /<([^>]+)>\s*$/.exec(from)?.[1] ?? from;
  const at = address.lastIndexOf("@");
  const domain = at >= 0 ? address.slice(at + 1).trim() : "";
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain : undefined;
}

const milliseconds = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  NODE_ENV: z.string().optional(),
  NOTIFICATION_PORT: env.port(50056),
  NOTIFICATION_DATABASE_URL: z.string().min(1).default("file:data/notification.db"),
  // The value is never echoed in an error: it may carry the SMTP password.
  SMTP_URL: z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .pipe(
      z
        .string()
        .regex(/^smtps?:\/\/[^/\s]+/, "must be smtp://[user:pass@]host[:port] or smtps://…")
        .optional(),
    ),
  APP_NAME: z.string().trim().min(1).max(100).default("Auth Platform"),
  MAIL_FROM: z
    .string()
    .trim()
    .optional()
    .refine((value) => !value || domainOf(value), "must contain an address, e.g. App <no-reply@example.com>"),
  AUTH_APP_URL: env.optionalUrl(),
  AUTH_BASE_URL: env.optionalUrl(),
  NOTIFICATION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(20),
  NOTIFICATION_RETRY_BASE_MS: milliseconds(5_000),
  NOTIFICATION_RETRY_MAX_MS: milliseconds(3_600_000),
  NOTIFICATION_POLL_INTERVAL_MS: milliseconds(1_000),
  NOTIFICATION_RECIPIENT_LIMIT: z.coerce.number().int().min(0).max(10_000).default(5),
  NOTIFICATION_RECIPIENT_WINDOW: env.seconds(900).pipe(z.number().min(1)),
  // Seconds to wait after each failed webhook attempt; the attempts are one more than the list is long.
  NOTIFICATION_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5,300,1800,7200,18000,36000,36000")
    .transform((value) => value.split(",").map((part) => Number(part.trim())))
    .pipe(z.array(z.number().int().min(1).max(604_800)).min(1).max(50)),
  NOTIFICATION_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: env.bool(false),
});

export interface NotificationConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  production: boolean;
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT. */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  /** Real SMTP delivery; undefined selects the development outbox. A secret (it may hold a password). */
  smtpUrl?: string;
  appName: string;
  /** The From header, e.g. `Auth Platform <no-reply@localhost>`. */
  mailFrom: string;
  /** The domain of the From address: the right-hand side of every Message-ID. */
  mailDomain: string;
  /** Where the footer of every mail links to (the web app, else the gateway's origin), if known. */
  footerUrl?: string;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  pollIntervalMs: number;
  /** At most `limit` messages to one address per `windowSeconds` (sliding); limit 0 turns the limit off. */
  recipientLimit: { limit: number; windowSeconds: number };
  /** Signed webhooks (docs/adr/0077-signed-webhooks.md). */
  webhooks: {
    /** Milliseconds to wait after the 1st, 2nd, ... failed attempt; after the last one the delivery is dead. */
    retryScheduleMs: number[];
    /** The whole of one POST, connection to last byte. */
    timeoutMs: number;
    /** Deliver to loopback, private and link-local addresses (development and tests only). */
    allowPrivateAddresses: boolean;
  };
  /** AUTH_SECRET: the key sealing webhook secrets at rest is derived from it. */
  secret: string;
}

export function notificationConfig(source: Record<string, string | undefined>): NotificationConfig {
  const c = loadConfig(schema, source);
  // The display name is quoted so an app name with a comma or dot stays one address.
  const mailFrom = c.MAIL_FROM || `"${c.APP_NAME.replace(/["\\]/g, "")}" <no-reply@localhost>`;
  const footerUrl = c.AUTH_APP_URL ?? (c.AUTH_BASE_URL ? new URL(c.AUTH_BASE_URL).origin : undefined);
  return {
    logLevel: c.LOG_LEVEL,
    production: c.NODE_ENV === "production",
    port: c.NOTIFICATION_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.NOTIFICATION_DATABASE_URL,
    smtpUrl: c.SMTP_URL,
    appName: c.APP_NAME,
    mailFrom,
    mailDomain: domainOf(mailFrom) ?? "localhost",
    footerUrl,
    maxAttempts: c.NOTIFICATION_MAX_ATTEMPTS,
    retryBaseMs: c.NOTIFICATION_RETRY_BASE_MS,
    retryMaxMs: Math.max(c.NOTIFICATION_RETRY_MAX_MS, c.NOTIFICATION_RETRY_BASE_MS),
    pollIntervalMs: c.NOTIFICATION_POLL_INTERVAL_MS,
    recipientLimit: { limit: c.NOTIFICATION_RECIPIENT_LIMIT, windowSeconds: c.NOTIFICATION_RECIPIENT_WINDOW },
    webhooks: {
      retryScheduleMs: c.NOTIFICATION_WEBHOOK_RETRY_SCHEDULE.map((seconds) => seconds * 1000),
      timeoutMs: c.NOTIFICATION_WEBHOOK_TIMEOUT_MS,
      allowPrivateAddresses: c.NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
    },
    secret: secretFromEnv(source).secret,
  };
}
