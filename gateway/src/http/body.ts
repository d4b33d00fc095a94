/** Request bodies and queries checked with zod: a bad one is a 400 naming the field, never a 500. */
import type { Request } from "express";
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

/** Query booleans as the better-auth client sends them ("true"/"false"). */
export const queryBool = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((value) => value === "true" || value === "1");
