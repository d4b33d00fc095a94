import { describe, expect, it } from "vitest";
import { createLogger, describeError } from "./log.js";
import { withRequestContext } from "./request-context.js";

describe("logger", () => {
  it("writes one JSON line with the service, the request id and redacted secrets", () => {
    const lines: string[] = [];
    const log = createLogger("identity", "info", (line) => lines.push(line));
    withRequestContext({ requestId: "req-1" }, () => log.info("signed in", { userId: "u1", password: "hunter22", sessionToken: "abc", authorization: "Bearer x" }));
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: "info", service: "identity", msg: "signed in", requestId: "req-1", userId: "u1" });
    expect(entry.password).toBe("[redacted]");
    expect(entry.sessionToken).toBe("[redacted]");
    expect(entry.authorization).toBe("[redacted]");
    expect(lines[0]).not.toContain("hunter22");
  });

  it("drops lines below its level", () => {
    const lines: string[] = [];
    const log = createLogger("session", "warn", (line) => lines.push(line));
    log.info("quiet");
    log.warn("loud");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["loud"]);
  });
});

describe("describeError", () => {
  it("keeps the error's kind and stack but blanks the values a driver quotes", async () => {
    const error = new Error(
      `insert into "account" ("id", "password") values ('a1', 'deadbeef:cafebabe') - duplicate key value violates unique constraint "account_pkey"\n - detail: Key (email)=(ada@example.com) already exists.`,
    );
    error.name = "UniqueConstraintViolationException";
    const text = describeError(error);
    expect(text).toMatch(/^UniqueConstraintViolationException: insert into "account"/);
    expect(text).toContain("duplicate key value violates unique constraint");
    expect(text).toMatch(/\n\s+at /);
    expect(text).not.toContain("deadbeef:cafebabe");
    expect(text).not.toContain("ada@example.com");
  });
});
