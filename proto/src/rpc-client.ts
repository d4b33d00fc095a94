/**
 * call(): a promise over a grpc-js unary client method, with a deadline and the request id in metadata.
 * A ServiceError becomes the catalogue error named in its x-error-code trailer; an unreachable service
 * becomes SERVICE_UNAVAILABLE.
 */
import * as grpc from "@grpc/grpc-js";
import { AuthError, INTERNAL_API_CODES, isErrorCode } from "./errors.js";
import { ERROR_CODE_KEY, REQUEST_ID_KEY } from "./rpc-server.js";

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

export const DEFAULT_DEADLINE_MS = 5_000;

/** Finds the current request id; the runtime installs its async-context reader. */
let currentRequestId: () => string | undefined = () => undefined;
export function setRequestIdReader(reader: () => string | undefined): void {
  currentRequestId = reader;
}

export function call<Req, Res>(
  client: grpc.Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: { deadlineMs?: number; requestId?: string } = {},
): Promise<Res> {
  const metadata = new grpc.Metadata();
  const requestId = options.requestId ?? currentRequestId();
  if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
  const deadline = Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  return new Promise((resolve, reject) => {
    method.call(client, request, metadata, { deadline }, (error, response) => {
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
export function fromServiceError(error: grpc.ServiceError): AuthError {
  const code = String(error.metadata?.get(ERROR_CODE_KEY)[0] ?? "");
  if (isErrorCode(code) && INTERNAL_API_CODES.has(code)) return new AuthError("INTERNAL_SERVER_ERROR", undefined, { cause: error });
  if (isErrorCode(code)) return new AuthError(code, error.details || undefined, { cause: error });
  if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.DEADLINE_EXCEEDED) {
    return new AuthError("SERVICE_UNAVAILABLE", undefined, { cause: error });
  }
  return new AuthError("INTERNAL_SERVER_ERROR", undefined, { cause: error });
}
