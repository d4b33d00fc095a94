/**
 * The gateway's one error mapper: catalogue errors answer their HTTP status with { code, message }; body
 * parser failures are 400s; anything else is logged with the request id and answered as a generic 500.
 */
import type { NextFunction, Request, Response } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import type { Logger } from "@auth-platform/runtime/log";

function fromBodyParser(error: { type?: string; status?: number }): AuthError | undefined {
  if (error.type === "entity.too.large") return new AuthError("REQUEST_BODY_TOO_LARGE");
  if (error.type === "entity.parse.failed") return new AuthError("VALIDATION_ERROR", "Malformed JSON body");
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
    return new AuthError("VALIDATION_ERROR", "Unsupported body encoding");
  }
  if (error.status === 400 && error.type) return new AuthError("VALIDATION_ERROR", "Invalid request body");
  return undefined;
}

export function errorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof AuthError ? error : fromBodyParser(error as { type?: string });
    if (known) {
      if (known.code === "SERVICE_UNAVAILABLE") log.warn("service unavailable", { path: req.path, error: known.cause });
      res.status(known.http).json({ code: known.code, message: known.message });
      return;
    }
    log.error("unexpected error", { path: req.path, error: error instanceof Error ? `${error.message}\n${error.stack}` : String(error) });
    res.status(500).json({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
  };
}
