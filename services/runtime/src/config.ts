/**
 * The one config loader: a zod schema over the environment, parsed once at boot. Every problem is listed in
 * one error that names the variable, so a misconfigured pod fails fast with a message an operator can act on.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
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
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`));
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
      .transform((value) =>
        (value ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
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
  optionalUrl: () =>
    z
      .string()
      .url()
      .optional()
      .or(z.literal("").transform(() => undefined)),
};

/** Where a development process keeps its generated secret, relative to the working directory. */
export const DEFAULT_SECRET_FILE = "data/auth-secret";
const MIN_SECRET_LENGTH = 32;

/**
 * Reads the development secret file, creating it first if it does not exist: 48 random bytes, base64url,
 * mode 0600. The file is written whole under a temporary name and then hard-linked into place, which fails
 * if another process got there first; so processes started together all end up reading the one winner.
 */
function readOrCreateSecretFile(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temporary, `${randomBytes(48).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
  const secret = readFileSync(path, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH) throw new ConfigError([`AUTH_SECRET_FILE: ${path} must hold at least ${MIN_SECRET_LENGTH} characters`]);
  return secret;
}

/**
 * AUTH_SECRET; required in production. Outside production without it, the secret kept in AUTH_SECRET_FILE
 * (default data/auth-secret), generated at random on first run: never a constant anyone could read in the
 * source. `file` names that file when it was used.
 */
export function secretFromEnv(source: Record<string, string | undefined>): { secret: string; isDefault: boolean; file?: string } {
  const secret = source.AUTH_SECRET;
  if (secret) {
    if (secret.length < MIN_SECRET_LENGTH) throw new ConfigError([`AUTH_SECRET: must be at least ${MIN_SECRET_LENGTH} characters`]);
    return { secret, isDefault: false };
  }
  if (source.NODE_ENV === "production") {
    throw new ConfigError(["AUTH_SECRET: required when NODE_ENV=production (at least 32 random characters, e.g. `openssl rand -base64 48`)"]);
  }
  const file = resolve(source.AUTH_SECRET_FILE || DEFAULT_SECRET_FILE);
  try {
    return { secret: readOrCreateSecretFile(file), isDefault: true, file };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`AUTH_SECRET_FILE: cannot read or create ${file}: ${(error as Error).message}`]);
  }
}
