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

const MAX_DEPTH = 32;

/** The first problem in a parsed body: a string holding a NUL character, or nesting past MAX_DEPTH. */
function bodyProblem(value: unknown, path: string[] = []): string | undefined {
  const where = path.join(".") || "body";
  if (typeof value === "string") return value.includes("\u0000") ? `Invalid ${where}: must not contain NUL characters` : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (path.length >= MAX_DEPTH) return `Invalid ${where}: nested too deeply`;
  for (const [key, item] of Object.entries(value)) {
    const problem = bodyProblem(item, [...path, key]);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Refuses what no route accepts and what would fail deep inside: a NUL character in any text (PostgreSQL
 * and SQLite both refuse it, and no name, email or URL needs one), and bodies nested deeper than any request
 * shape (so later recursive work such as JSON.stringify cannot exhaust the stack).
 */
export function refuseMalformedBodies(req: Request, _res: Response, next: NextFunction): void {
  const problem = bodyProblem(req.body);
  next(problem ? new AuthError("VALIDATION_ERROR", problem) : undefined);
}

/** Query booleans as the better-auth client sends them ("true"/"false"). */
export const queryBool = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((value) => value === "true" || value === "1");
