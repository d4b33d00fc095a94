/** The admin service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { env, loadConfig } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";

const roleList = z.string().transform((value) =>
  value
    .split(",")
    .map((role) => role.trim())
    .filter(Boolean),
);

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  ADMIN_PORT: env.port(50055),
  ADMIN_DATABASE_URL: z.string().min(1).default("file:data/admin.db"),
  IDENTITY_SERVICE_URL: z.string().min(1).default("127.0.0.1:50051"),
  SESSION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50052"),
  NOTIFICATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50056"),
  ADMIN_ROLES: roleList.default(["admin"]).refine((roles) => roles.length > 0, "at least one role"),
  ADMIN_ASSIGNABLE_ROLES: roleList.default(["user"]),
  ADMIN_IMPERSONATE_ADMINS: env.bool(false),
  ADMIN_IMPERSONATION_SESSION_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
  ADMIN_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(365),
  ADMIN_LIST_USERS_COUNT_LIMIT: z.coerce.number().int().min(1).max(1_000_000_000).default(10_000),
});

export interface AdminConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  identityServiceUrl: string;
  sessionServiceUrl: string;
  /** The notification service, for the webhook routes (docs/adr/0077-signed-webhooks.md). */
  notificationServiceUrl: string;
  /** A user holding any of these roles is an admin (docs/http-api/admin.md#who-is-an-admin; default admin). */
  adminRoles: string[];
  /**
   * The roles an admin may give (set-role, create-user, update-user): ADMIN_ASSIGNABLE_ROLES (default user)
   * and the admin roles. Any other is refused, as better-auth refuses a role its `roles` option lacks.
   */
  assignableRoles: string[];
  /** Whether an admin may impersonate another admin (default no). */
  impersonateAdmins: boolean;
  /** Impersonation sessions last 3600 s by default (docs/http-api/admin.md#bans-and-impersonation). */
  impersonationSeconds: number;
  /** Audit records older than this many days are deleted; 0 keeps them forever. */
  auditRetentionDays: number;
  /** list-users counts matches up to this many; past it the total is this bound, flagged as a lower bound. */
  listUsersCountLimit: number;
}

export function adminConfig(source: Record<string, string | undefined>): AdminConfig {
  const c = loadConfig(schema, source);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.ADMIN_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.ADMIN_DATABASE_URL,
    identityServiceUrl: c.IDENTITY_SERVICE_URL,
    sessionServiceUrl: c.SESSION_SERVICE_URL,
    notificationServiceUrl: c.NOTIFICATION_SERVICE_URL,
    adminRoles: c.ADMIN_ROLES,
    assignableRoles: [...new Set([...c.ADMIN_ASSIGNABLE_ROLES, ...c.ADMIN_ROLES])],
    impersonateAdmins: c.ADMIN_IMPERSONATE_ADMINS,
    impersonationSeconds: c.ADMIN_IMPERSONATION_SESSION_SECONDS,
    auditRetentionDays: c.ADMIN_AUDIT_RETENTION_DAYS,
    listUsersCountLimit: c.ADMIN_LIST_USERS_COUNT_LIMIT,
  };
}
