/**
 * call(): a promise over a grpc-js unary client method. The caller passes its request context: the request
 * id travels in metadata, and the deadline is the sooner of the context's (what is left of the inbound call
 * that caused this one) and the default, so a nested call never outlives the call that caused it.
 *
 * A ServiceError becomes a PeerError carrying the catalogue code named in its x-error-code trailer; an
 * unreachable service or a spent deadline becomes SERVICE_UNAVAILABLE. A retry hint in the x-retry-after-ms
 * trailer becomes the PeerError's retryAfterMs.
 */
import * as grpc from "@grpc/grpc-js";
import { INTERNAL_API_CODES, isErrorCode, PeerError } from "./errors.js";
import { ERROR_CODE_KEY, REQUEST_ID_KEY, RETRY_AFTER_KEY, type RequestContext } from "./rpc-server.js";

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

export const DEFAULT_DEADLINE_MS = 5_000;

/** What the process that calls does around each call (metrics, trace context); none by default. */
export interface CallHooks {
  /** Adds to the outbound metadata (the trace context), and returns what to do when the call ends. */
  start?(path: string, metadata: grpc.Metadata): (grpcCode: number) => void;
}

export interface CallOptions {
  /** The request this call serves (its id, its deadline); none for a call no request caused. */
  context?: Partial<RequestContext>;
  /** The most this call may take (default DEFAULT_DEADLINE_MS), cut to the context's deadline. */
  deadlineMs?: number;
  hooks?: CallHooks;
}

export function call<Req, Res>(client: grpc.Client, method: UnaryMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
  const metadata = new grpc.Metadata();
  const requestId = options.context?.requestId;
  if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
  const deadline = Math.min(options.context?.deadline ?? Infinity, Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS));
  const path = (method as { path?: string }).path ?? method.name;
  const end = options.hooks?.start?.(path, metadata);
  return new Promise((resolve, reject) => {
    method.call(client, request, metadata, { deadline }, (error, response) => {
      end?.(error ? error.code : grpc.status.OK);
      if (error) reject(fromServiceError(error));
      else resolve(response);
    });
  });
}

/**
 * Maps a grpc-js error to the catalogue. A refusal of the caller itself (internal API access) becomes a
 * generic INTERNAL_SERVER_ERROR with the refusal as its cause: it is our deployment's fault, and its
 * code must not reach a browser.
 */
export function fromServiceError(error: grpc.ServiceError): PeerError {
  const code = String(error.metadata?.get(ERROR_CODE_KEY)[0] ?? "");
  if (isErrorCode(code) && INTERNAL_API_CODES.has(code)) return new PeerError("INTERNAL_SERVER_ERROR", error.code, undefined, error);
  if (isErrorCode(code)) return new PeerError(code, error.code, error.details || undefined, error, retryAfterOf(error.metadata));
  if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.DEADLINE_EXCEEDED) {
    return new PeerError("SERVICE_UNAVAILABLE", error.code, undefined, error);
  }
  return new PeerError("INTERNAL_SERVER_ERROR", error.code, undefined, error);
}

/** The peer's retry hint (ms), if its trailer holds a sane one. */
function retryAfterOf(metadata: grpc.Metadata | undefined): number | undefined {
  const raw = metadata?.get(RETRY_AFTER_KEY)[0];
  if (raw === undefined) return undefined;
  const ms = Number(raw);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}
