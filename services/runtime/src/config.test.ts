import * as z from "zod";
import { describe, expect, it } from "vitest";
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
  it("uses AUTH_SECRET, refuses a short one, and requires one in production", () => {
    expect(secretFromEnv({ AUTH_SECRET: "s".repeat(32) })).toEqual({ secret: "s".repeat(32), isDefault: false });
    expect(() => secretFromEnv({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET: must be at least 32 characters/);
    expect(() => secretFromEnv({ NODE_ENV: "production" })).toThrow(/AUTH_SECRET: required when NODE_ENV=production/);
    expect(secretFromEnv({}).isDefault).toBe(true);
  });
});
