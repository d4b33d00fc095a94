/**
 * unary(): adapts an async handler to a grpc-js unary handler. Catalogue errors travel as a gRPC status with
 * the code in the x-error-code trailer; anything else is logged with the method and request id and answered
 * as a generic INTERNAL, so causes never reach the wire.
 */
import * as grpc from "@grpc/grpc-js";
import { AuthError } from "./errors.js";

export const ERROR_CODE_KEY = "x-error-code";
export const REQUEST_ID_KEY = "x-request-id";
const MAX_DETAILS = 512;

export interface CallContext {
  requestId: string;
  metadata: grpc.Metadata;
  /** When the caller stops waiting, in epoch ms (Infinity when it set no deadline). */
  deadline: number;
}

export interface UnexpectedErrorLogger {
  (method: string, requestId: string, error: unknown): void;
}

let logUnexpected: UnexpectedErrorLogger = (method, requestId, error) => {
  console.error(JSON.stringify({ level: "error", msg: "unexpected error", method, requestId, error: String(error) }));
};

/** Replaces how unexpected errors are logged (the runtime installs its structured logger). */
export function setUnexpectedErrorLogger(logger: UnexpectedErrorLogger): void {
  logUnexpected = logger;
}

/** Runs fn with the call's request id available to it; the runtime installs its async-context runner. */
let runWithRequestId: <T>(requestId: string, fn: () => Promise<T>) => Promise<T> = (_id, fn) => fn();
export function setRequestContextRunner(runner: <T>(requestId: string, fn: () => Promise<T>) => Promise<T>): void {
  runWithRequestId = runner;
}

export function unary<Req, Res>(
  method: string,
  handler: (request: Req, context: CallContext) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? "");
    runWithRequestId(requestId, () => handler(call.request, { requestId, metadata: call.metadata, deadline: Number(call.getDeadline()) })).then(
      (response) => callback(null, response),
      (error: unknown) => callback(toServiceError(method, requestId, error)),
    );
  };
}

/** A catalogue error as a gRPC status, its code in the x-error-code trailer. */
export function catalogueStatus(error: AuthError): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_KEY, error.code);
  // Details travel in a trailer, whose size is bounded: a message that quotes input is cut short.
  return { code: error.grpcStatus, details: error.message.slice(0, MAX_DETAILS), metadata };
}

function toServiceError(method: string, requestId: string, error: unknown): Partial<grpc.StatusObject> {
  if (error instanceof AuthError) return catalogueStatus(error);
  const metadata = new grpc.Metadata();
  logUnexpected(method, requestId, error);
  metadata.set(ERROR_CODE_KEY, "INTERNAL_SERVER_ERROR");
  return { code: grpc.status.INTERNAL, details: "Internal server error", metadata };
}
