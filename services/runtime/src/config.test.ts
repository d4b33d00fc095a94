import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, env, loadConfig, secretFromEnv } from "./config.js";

const schema = z.object({
  PORT: env.port(3000),
  FEATURE: env.bool(true),
  ORIGINS: env.list(),
  RULES: env.json(z.record(z.string(), z.number()), { a: 1 }),
});

describe("loadConfig", () => {
  it("applies defaults and parses values", () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 3000, FEATURE: true, ORIGINS: [], RULES: { a: 1 } });
    expect(loadConfig(schema, { PORT: "8080", FEATURE: "false", ORIGINS: " https://a.example , https://b.example ", RULES: '{"b":2}' })).toEqual({
      PORT: 8080,
      FEATURE: false,
      ORIGINS: ["https://a.example", "https://b.example"],
      RULES: { b: 2 },
    });
  });

  it("lists every problem in one error, each naming its variable", () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: "seventy", FEATURE: "maybe", RULES: "{not json" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT: /);
    expect(message).toMatch(/FEATURE: /);
    expect(message).toMatch(/RULES: must be valid JSON/);
  });
});

describe("secretFromEnv", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "auth-secret-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("uses AUTH_SECRET, refuses a short one, and requires one in production with a clear error", () => {
    expect(secretFromEnv({ AUTH_SECRET: "s".repeat(32) })).toEqual({ secret: "s".repeat(32), isDefault: false });
    expect(() => secretFromEnv({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET: must be at least 32 characters/);
    const file = join(dir, "auth-secret");
    expect(() => secretFromEnv({ NODE_ENV: "production", AUTH_SECRET_FILE: file })).toThrow(ConfigError);
    expect(() => secretFromEnv({ NODE_ENV: "production", AUTH_SECRET_FILE: file })).toThrow(/AUTH_SECRET: required when NODE_ENV=production/);
    // Production never falls back to a file, not even one that exists.
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, "x".repeat(64));
    expect(() => secretFromEnv({ NODE_ENV: "production", AUTH_SECRET_FILE: file })).toThrow(/AUTH_SECRET: required/);
  });

  it("outside production, generates a random secret once into AUTH_SECRET_FILE (mode 0600) and keeps it", () => {
    const file = join(dir, "nested", "auth-secret");
    const first = secretFromEnv({ AUTH_SECRET_FILE: file });
    expect(first).toEqual({ secret: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/), isDefault: true, file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretFromEnv({ AUTH_SECRET_FILE: file }).secret).toBe(first.secret);
    // Another directory, another secret: nothing is a constant.
    expect(secretFromEnv({ AUTH_SECRET_FILE: join(dir, "other") }).secret).not.toBe(first.secret);
    expect(first.secret).not.toBe("development-secret-change-me-0000000000");
    // No temporary file is left behind.
    expect(readdirSync(join(dir, "nested"))).toEqual(["auth-secret"]);
  });

  it("defaults to data/auth-secret under the working directory", () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const { file, secret } = secretFromEnv({});
      expect(file).toBe(join(realpathSync(dir), "data", "auth-secret"));
      expect(readFileSync(join(dir, "data", "auth-secret"), "utf8").trim()).toBe(secret);
    } finally {
      process.chdir(cwd);
    }
  });

  it("refuses a secret file that is too short", () => {
    const file = join(dir, "auth-secret");
    writeFileSync(file, "short\n");
    expect(() => secretFromEnv({ AUTH_SECRET_FILE: file })).toThrow(/AUTH_SECRET_FILE: .* must hold at least 32 characters/);
  });

  it("processes started together without AUTH_SECRET agree on one generated secret", async () => {
    const file = join(dir, "auth-secret");
    const script = join(dir, "print-secret.ts");
    writeFileSync(
      script,
      `import { secretFromEnv } from ${JSON.stringify(new URL("./config.ts", import.meta.url).pathname)};\nprocess.stdout.write(secretFromEnv(process.env).secret);\n`,
    );
    const run = () =>
      new Promise<string>((done, fail) =>
        execFile(process.execPath, ["--import", "tsx", script], { env: { PATH: process.env.PATH, AUTH_SECRET_FILE: file } }, (error, stdout) =>
          error ? fail(error) : done(stdout),
        ),
      );
    const secrets = await Promise.all(Array.from({ length: 6 }, run));
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(new Set(secrets)).toEqual(new Set([readFileSync(file, "utf8").trim()]));
  });
});
