/**
 * The one config loader: a zod schema over the environment, parsed once at boot. Every problem is listed in
 * one error that names the variable, so a misconfigured pod fails fast with a message an operator can act on.
 */
import * as z from "zod";

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`),
  );
}

/** Env helpers shared by every process's schema. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  seconds: (fallback: number) => z.coerce.number().int().min(0).default(fallback),
  bool: (fallback: boolean) => z.stringbool().default(fallback),
  list: () =>
    z
      .string()
      .optional()
      .transform((value) => (value ?? "").split(",").map((s) => s.trim()).filter(Boolean)),
  json: <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value === "") return fallback;
        try {
          return JSON.parse(value) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "must be valid JSON" });
          return z.NEVER;
        }
      })
      .pipe(schema),
  logLevel: () => z.enum(["debug", "info", "warn", "error"]).default("info"),
  optionalUrl: () => z.string().url().optional().or(z.literal("").transform(() => undefined)),
};

const DEV_SECRET = "development-secret-change-me-0000000000";

/** AUTH_SECRET: required in production, a fixed development secret (with a warning) otherwise. */
export function secretFromEnv(source: Record<string, string | undefined>): { secret: string; isDefault: boolean } {
  const secret = source.AUTH_SECRET;
  if (secret) {
    if (secret.length < 32) throw new ConfigError(["AUTH_SECRET: must be at least 32 characters"]);
    return { secret, isDefault: false };
  }
  if (source.NODE_ENV === "production") throw new ConfigError(["AUTH_SECRET: required when NODE_ENV=production"]);
  return { secret: DEV_SECRET, isDefault: true };
}
