/** The organization service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { ConfigError, env, loadConfig } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";
import { DEFAULT_ROLES, type RoleTable, roleTableSchema } from "./domain/roles.js";

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  ORGANIZATION_PORT: env.port(50054),
  ORGANIZATION_DATABASE_URL: z.string().min(1).default("file:data/organization.db"),
  IDENTITY_SERVICE_URL: z.string().min(1).default("127.0.0.1:50051"),
  SESSION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50052"),
  NOTIFICATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50056"),
  AUTH_APP_URL: env.optionalUrl(),
  AUTH_BASE_URL: env.optionalUrl(),
  ORGANIZATION_ALLOW_CREATION: env.bool(true),
  // 0: no limit.
  ORGANIZATION_LIMIT: z.coerce.number().int().min(0).default(0),
  ORGANIZATION_DELETE_ENABLED: env.bool(true),
  ORGANIZATION_CREATOR_ROLE: z.string().min(1).default("owner"),
  ORGANIZATION_INVITATION_EXPIRES_IN: z.coerce.number().int().min(60).default(172_800),
  ORGANIZATION_INVITATION_LIMIT: z.coerce.number().int().min(1).default(100),
  // Teams (docs/organizations.md#teams); 0: no limit.
  ORGANIZATION_TEAM_LIMIT: z.coerce.number().int().min(0).default(100),
  ORGANIZATION_TEAM_MEMBER_LIMIT: z.coerce.number().int().min(0).default(10_000),
  ORGANIZATION_ROLES: env.json(roleTableSchema, DEFAULT_ROLES as z.input<typeof roleTableSchema>),
});

export interface OrganizationConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  identityServiceUrl: string;
  sessionServiceUrl: string;
  notificationServiceUrl: string;
  /** Where invitation links lead: AUTH_APP_URL, else the origin of AUTH_BASE_URL. */
  appUrl: string;
  allowCreation: boolean;
  /** The most organizations one user may be a member of when creating one; 0 for no limit. */
  organizationLimit: number;
  deleteEnabled: boolean;
  creatorRole: string;
  invitationExpiresInSeconds: number;
  /** The most pending, unexpired invitations one organization may have at once. */
  invitationLimit: number;
  roles: RoleTable;
  /** The most teams one organization may have; 0 for no limit. */
  teamLimit: number;
  /** The most members one team may have; 0 for no limit. */
  teamMemberLimit: number;
}

export function organizationConfig(source: Record<string, string | undefined>): OrganizationConfig {
  const c = loadConfig(schema, source);
  if (!Object.hasOwn(c.ORGANIZATION_ROLES, c.ORGANIZATION_CREATOR_ROLE)) {
    throw new ConfigError([`ORGANIZATION_CREATOR_ROLE: ${c.ORGANIZATION_CREATOR_ROLE} is not a role of ORGANIZATION_ROLES`]);
  }
  const appUrl = c.AUTH_APP_URL ?? (c.AUTH_BASE_URL ? new URL(c.AUTH_BASE_URL).origin : "http://localhost:3000");
  return {
    logLevel: c.LOG_LEVEL,
    port: c.ORGANIZATION_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.ORGANIZATION_DATABASE_URL,
    identityServiceUrl: c.IDENTITY_SERVICE_URL,
    sessionServiceUrl: c.SESSION_SERVICE_URL,
    notificationServiceUrl: c.NOTIFICATION_SERVICE_URL,
    appUrl: appUrl.replace(/\/+$/, ""),
    allowCreation: c.ORGANIZATION_ALLOW_CREATION,
    organizationLimit: c.ORGANIZATION_LIMIT,
    deleteEnabled: c.ORGANIZATION_DELETE_ENABLED,
    creatorRole: c.ORGANIZATION_CREATOR_ROLE,
    invitationExpiresInSeconds: c.ORGANIZATION_INVITATION_EXPIRES_IN,
    invitationLimit: c.ORGANIZATION_INVITATION_LIMIT,
    roles: c.ORGANIZATION_ROLES,
    teamLimit: c.ORGANIZATION_TEAM_LIMIT,
    teamMemberLimit: c.ORGANIZATION_TEAM_MEMBER_LIMIT,
  };
}
