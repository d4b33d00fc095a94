/** Request bodies and queries checked with zod: a bad one is a 400 naming the field, never a 500. */
import type { NextFunction, Request, Response } from "express";
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";

function describe(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path.join(".");
  return field ? `Invalid ${field}: ${issue.message}` : `Invalid request: ${issue.message}`;
}

export function parseBody<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const result = schema.safeParse(req.body ?? {});
  if (!result.success) throw new AuthError("VALIDATION_ERROR", describe(result.error));
  return result.data;
}

export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const result = schema.safeParse(req.query ?? {});
  if (!result.success) throw new AuthError("VALIDATION_ERROR", describe(result.error));
  return result.data;
}

/**
 * The request's query, or undefined when its URL has none. Express parses the query anew on every read of
 * req.query; a URL without "?" has an empty one, which needs no parsing and no checking.
 */
export function queryOf(req: Request): Request["query"] | undefined {
  return req.url.includes("?") ? req.query : undefined;
}

const MAX_DEPTH = 32;

/** The first problem in a parsed body or query: a string holding a NUL character, or nesting past MAX_DEPTH. */
function inputProblem(value: unknown, root: string, path: string[] = []): string | undefined {
  const where = path.join(".") || root;
  if (typeof value === "string") return value.includes("\u0000") ? `Invalid ${where}: must not contain NUL characters` : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (path.length >= MAX_DEPTH) return `Invalid ${where}: nested too deeply`;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000")) return `Invalid ${root}: a field name must not contain NUL characters`;
    const problem = inputProblem(item, root, [...path, key]);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Refuses what no route accepts and what would fail deep inside: a NUL character in any text of the body or
 * the query (PostgreSQL and SQLite both refuse it, and no name, email, token or URL needs one),
 * and bodies nested deeper than any request shape (so later recursive work such as JSON.stringify cannot
 * exhaust the stack).
 */
export function refuseMalformedInput(req: Request, _res: Response, next: NextFunction): void {
  const problem = inputProblem(req.body, "body") ?? inputProblem(queryOf(req), "query");
  next(problem ? new AuthError("VALIDATION_ERROR", problem) : undefined);
}

/** Query booleans as the better-auth client sends them ("true"/"false"). */
export const queryBool = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((value) => value === "true" || value === "1");

/**
 * The body's fields other than `known`, passed on as a google.protobuf.Struct for the service to check
 * against its configured fields. A Struct cannot carry the key "__proto__", so it is refused here by name
 * (as the service refuses any field it does not know).
 */
export function otherFields(body: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  if (Object.hasOwn(body, "__proto__")) throw new AuthError("VALIDATION_ERROR", "Unknown field: __proto__");
  return Object.fromEntries(Object.entries(body).filter(([key]) => !known.has(key)));
}
