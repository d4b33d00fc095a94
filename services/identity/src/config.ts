/** The identity service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { env, loadConfig } from "@auth-platform/runtime/config";

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
});

export interface IdentityConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  databaseUrl: string;
  sessionServiceUrl: string;
  emailPasswordEnabled: boolean;
  autoSignIn: boolean;
  passwordMinLength: number;
  passwordMaxLength: number;
  userFields: Record<string, UserFieldConfig>;
}

export function identityConfig(source: Record<string, string | undefined>): IdentityConfig {
  const c = loadConfig(schema, source);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.IDENTITY_PORT,
    databaseUrl: c.IDENTITY_DATABASE_URL,
    sessionServiceUrl: c.SESSION_SERVICE_URL,
    emailPasswordEnabled: c.IDENTITY_EMAIL_PASSWORD_ENABLED,
    autoSignIn: c.IDENTITY_AUTO_SIGN_IN,
    passwordMinLength: c.IDENTITY_PASSWORD_MIN_LENGTH,
    passwordMaxLength: c.IDENTITY_PASSWORD_MAX_LENGTH,
    userFields: c.IDENTITY_USER_FIELDS,
  };
}
