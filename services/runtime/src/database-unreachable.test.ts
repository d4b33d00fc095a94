/** Which errors say the database is out of reach (answered 503 with a retry hint), and which are the query's own. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { isDatabaseUnreachable } from "./database-unreachable.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isDatabaseUnreachable", () => {
  it.each([
    ["a refused connection", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["a reset connection", withCode("read ECONNRESET", "ECONNRESET")],
    ["an unresolvable host", withCode("getaddrinfo ENOTFOUND postgresql", "ENOTFOUND")],
    ["pg's connection dropped mid-query", new Error("Connection terminated unexpectedly")],
    ["pg-pool's connect timeout", new Error("timeout exceeded when trying to connect")],
    ["pg's connect timeout", new Error("Connection terminated due to connection timeout")],
    ["the server shutting down (pg_terminate_backend, a restart)", withCode("terminating connection due to administrator command", "57P01")],
    ["the server starting up", withCode("the database system is starting up", "57P03")],
    ["no connection slot left", withCode("sorry, too many clients already", "53300")],
    ["a connection exception", withCode("connection failure", "08006")],
    ["the cause of a wrapping error", new Error("query failed", { cause: withCode("connect ECONNREFUSED", "ECONNREFUSED") })],
  ])("%s is", (_name, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ["a unique violation", withCode("duplicate key value violates unique constraint", "23505")],
    ["a syntax error", withCode("syntax error at or near", "42601")],
    ["a missing table", withCode("relation does not exist", "42P01")],
    ["SQLite's locked database", withCode("database is locked", "SQLITE_BUSY")],
    ["a catalogue error", new AuthError("USER_NOT_FOUND")],
    ["no error at all", undefined],
  ])("%s is not", (_name, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});
