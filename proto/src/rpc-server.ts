/**
 * rpcServer(): adapts async handlers to grpc-js unary handlers (and bidirectional streams), with the hooks of the process that hosts the
 * service passed in (no module-level state, so several services in one process keep their own logger).
 *
 * Catalogue errors a handler raises travel as a gRPC status with the code in the x-error-code trailer (and
 * a retry hint, if the error has one, in x-retry-after-ms; its body fields, JSON, in x-error-fields). A
 * peer's error the handler let escape (PeerError) is this service's failure, not its caller's: it is logged
 * with its cause and answered as INTERNAL, or SERVICE_UNAVAILABLE (with the peer's retry hint, and then
 * not logged: the peer refused on purpose and logs it) when the peer was unavailable. Anything
 * else is logged with the method and request id and answered as a generic INTERNAL, so causes never reach
 * the wire.
 */
import * as grpc from "@grpc/grpc-js";
import { AuthError, PeerError } from "./errors.js";

export const ERROR_CODE_KEY = "x-error-code";
export const REQUEST_ID_KEY = "x-request-id";
/** Trailer of a refusal that says when to try again (AuthError.retryAfterMs), in whole milliseconds. */
export const RETRY_AFTER_KEY = "x-retry-after-ms";
/** Trailer of the fields an error's body carries beside code and message (AuthError.fields), as JSON. */
export const ERROR_FIELDS_KEY = "x-error-fields";
const MAX_DETAILS = 512;

/** What a call carries on to the calls it causes: its request id and its deadline (epoch ms), if any. */
export interface RequestContext {
  requestId: string;
  deadline?: number;
  /**
   * Aborted when whoever asked stopped waiting: the HTTP client went away (gateway), or the inbound call
   * was cancelled or passed its deadline (a service). The calls it causes are cancelled with it, and work
   * not yet started for it (a password hash waiting in identity's queue) is dropped.
   */
  signal?: AbortSignal;
  /**
   * The RPC path whose opening at a peer at capacity this request already waited for and took (the
   * gateway's capacity gate, before the request's body is read): its call goes at once (rpc-client.ts).
   */
  admitted?: string;
}

export interface CallContext extends RequestContext {
  metadata: grpc.Metadata;
  /**
   * The calling workload, named by its mutual-TLS certificate (RpcServerHooks.callerOf), for a handler whose
   * rule is narrower than its RPC's access-table row; undefined without mutual TLS (GRPC_INSECURE).
   */
  caller: string | undefined;
}

export interface RpcServerHooks {
  /** Logs an error the handler did not turn into a catalogue answer, with its cause. */
  logUnexpected(method: string, requestId: string, error: unknown): void;
  /**
   * Runs a handler with its request context current, so the calls it makes inherit it. `call` names the
   * RPC (its full path) and carries the inbound metadata (trace context).
   */
  run<T>(context: RequestContext, fn: () => Promise<T>, call: InboundCall): Promise<T>;
  /** Records an answered RPC: its full path, how long it took, its gRPC status and catalogue code. */
  observe?(path: string, seconds: number, status: { code: number; errorCode?: string }): void;
  /** The calling workload, from the call's verified client certificate (CallContext.caller). */
  callerOf?(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>): string | undefined;
}

export interface InboundCall {
  /** Full method path, e.g. /auth.session.v1.SessionService/GetSession. */
  path: string;
  metadata: grpc.Metadata;
}

export interface RpcServer {
  unary<Req, Res>(method: string, handler: (request: Req, context: CallContext) => Promise<Res>): grpc.handleUnaryCall<Req, Res>;
  /**
   * A bidirectional stream: the handler owns it and resolves once it is over (the stream is then ended with
   * OK if the handler did not end it); a rejection ends it with the error's status, as a unary answer.
   */
  duplex<Req, Res>(method: string, handler: (stream: grpc.ServerDuplexStream<Req, Res>, context: CallContext) => Promise<void>): grpc.handleBidiStreamingCall<Req, Res>;
  /** A server stream, with the same rules as duplex (the request is `stream.request`). */
  serverStream<Req, Res>(method: string, handler: (stream: grpc.ServerWritableStream<Req, Res>, context: CallContext) => Promise<void>): grpc.handleServerStreamingCall<Req, Res>;
}

export function rpcServer(hooks: RpcServerHooks): RpcServer {
  return {
    unary<Req, Res>(method: string, handler: (request: Req, context: CallContext) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
      return (call, callback) => {
        const started = performance.now();
        const path = call.getPath?.() || method;
        const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? "") || crypto.randomUUID();
        const deadline = deadlineOf(call.getDeadline());
        const stopped = new AbortController();
        // grpc-js says "cancelled" for a cancellation and for a deadline alike. A passing deadline ends the
        // calls this one caused by itself (they inherit it and fail as DEADLINE_EXCEEDED), so only a
        // cancellation before it (the caller's own caller went away) aborts.
        call.once("cancelled", () => {
          if (deadline === undefined || Date.now() < deadline - DEADLINE_SLACK_MS) stopped.abort(CALL_ENDED);
        });
        const context: RequestContext = { requestId, deadline, signal: stopped.signal };
        const seconds = () => (performance.now() - started) / 1000;
        // The caller is worked out only for a handler that reads it (one RPC does), not on every call.
        const callContext: CallContext = {
          ...context,
          metadata: call.metadata,
          get caller() {
            return hooks.callerOf?.(call);
          },
        };
        hooks
          .run(context, () => handler(call.request, callContext), { path, metadata: call.metadata })
          .then(
            (response) => {
              hooks.observe?.(path, seconds(), { code: grpc.status.OK });
              callback(null, response);
            },
            (error: unknown) => {
              // Whoever asked has gone: the failure its going caused (a nested call cancelled with it) is no
              // fault to log, and the answer reaches nobody.
              const logCause = callerGone(stopped.signal, deadline, error) ? undefined : (cause: unknown) => hooks.logUnexpected(method, requestId, cause);
              const status = toServiceError(error, logCause);
              hooks.observe?.(path, seconds(), { code: status.code ?? grpc.status.UNKNOWN, errorCode: String(status.metadata?.get(ERROR_CODE_KEY)[0] ?? "") });
              callback(status);
            },
          );
      };
    },
    duplex<Req, Res>(method: string, handler: (stream: grpc.ServerDuplexStream<Req, Res>, context: CallContext) => Promise<void>): grpc.handleBidiStreamingCall<Req, Res> {
      return this.serverStream(
        method,
        handler as unknown as (stream: grpc.ServerWritableStream<Req, Res>, context: CallContext) => Promise<void>,
      ) as unknown as grpc.handleBidiStreamingCall<Req, Res>;
    },
    serverStream<Req, Res>(
      method: string,
      handler: (stream: grpc.ServerWritableStream<Req, Res>, context: CallContext) => Promise<void>,
    ): grpc.handleServerStreamingCall<Req, Res> {
      // Both kinds of stream are ended, observed and failed the same way: the handler owns the call.
      return (call) => {
        const started = performance.now();
        const path = call.getPath?.() || method;
        const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? "") || crypto.randomUUID();
        const stopped = new AbortController();
        call.once("cancelled", () => stopped.abort(CALL_ENDED));
        const context: RequestContext = { requestId, signal: stopped.signal };
        const callContext: CallContext = {
          ...context,
          metadata: call.metadata,
          get caller() {
            return hooks.callerOf?.(call);
          },
        };
        const seconds = () => (performance.now() - started) / 1000;
        hooks
          .run(context, () => handler(call, callContext), { path, metadata: call.metadata })
          .then(
            () => {
              hooks.observe?.(path, seconds(), { code: grpc.status.OK });
              if (!call.writableEnded) call.end();
            },
            (error: unknown) => {
              const logCause = callerGone(stopped.signal, undefined, error) ? undefined : (cause: unknown) => hooks.logUnexpected(method, requestId, cause);
              const status = toServiceError(error, logCause);
              hooks.observe?.(path, seconds(), { code: status.code ?? grpc.status.UNKNOWN, errorCode: String(status.metadata?.get(ERROR_CODE_KEY)[0] ?? "") });
              // grpc-js answers a server stream's "error" with that status, then ends it.
              if (!call.writableEnded) call.emit("error", status);
            },
          );
      };
    },
  };
}

/**
 * The reason every call's signal aborts with. grpc-js reports each answered call as cancelled too, so the
 * signal aborts once per call; abort() without a reason would build a new AbortError, its stack captured,
 * every time (4.5 % of the session service's CPU under get-session). Nothing reads the reason.
 */
const CALL_ENDED = new DOMException("The call ended", "AbortError");

/**
 * How early a cancellation may come and still be the caller's deadline passing. The caller's deadline comes
 * first: ours is the time its request reached us plus the timeout it sent, so it runs later by however long
 * the request took to get here (a busy event loop on either side). With 10 ms a loaded test run saw the
 * caller's deadline as a cancellation, and the calls this one caused ended as CANCELLED instead of
 * DEADLINE_EXCEEDED. Within this window a real cancellation lets the work run on to the deadline, at most
 * this long.
 */
const DEADLINE_SLACK_MS = 100;

/** grpc-js gives the inbound deadline as a Date, a number (ms), or Infinity when the caller set none. */
function deadlineOf(deadline: grpc.Deadline): number | undefined {
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms : undefined;
}

/** A catalogue error as a gRPC status, its code in the x-error-code trailer. */
export function catalogueStatus(error: AuthError): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_KEY, error.code);
  if (error.retryAfterMs !== undefined) metadata.set(RETRY_AFTER_KEY, String(Math.max(0, Math.ceil(error.retryAfterMs))));
  if (error.fields !== undefined) metadata.set(ERROR_FIELDS_KEY, JSON.stringify(error.fields));
  // Details travel in a trailer, whose size is bounded: a message that quotes input is cut short.
  return { code: error.grpcStatus, details: error.message.slice(0, MAX_DETAILS), metadata };
}

/** The status a handler's error answers; `logCause` records what the handler did not turn into a catalogue answer. */
/**
 * Whether the caller is gone, so the failure is no fault to log and the answer reaches nobody: it cancelled,
 * or its deadline is spent and a nested call failed for it (overload: the calls this one made inherited it).
 */
function callerGone(stopped: AbortSignal, deadline: number | undefined, error: unknown): boolean {
  if (stopped.aborted) return true;
  const spent = deadline !== undefined && Date.now() >= deadline - DEADLINE_SLACK_MS;
  return spent && error instanceof PeerError && error.grpcCode === grpc.status.DEADLINE_EXCEEDED;
}

function toServiceError(error: unknown, logCause?: (cause: unknown) => void): Partial<grpc.StatusObject> {
  if (error instanceof PeerError) {
    // A refusal with a retry hint (the peer's database out of reach, its queue full) is the peer's
    // deliberate answer, which it logs itself: one error line per call here would only repeat it.
    const refused = error.code === "SERVICE_UNAVAILABLE" && error.retryAfterMs !== undefined;
    if (!refused) logCause?.(error.cause ?? error);
    // Its hint holds for this call too: passed on.
    if (error.code === "SERVICE_UNAVAILABLE") return catalogueStatus(new AuthError("SERVICE_UNAVAILABLE", undefined, { retryAfterMs: error.retryAfterMs }));
    return catalogueStatus(new AuthError("INTERNAL_SERVER_ERROR"));
  }
  if (error instanceof AuthError) return catalogueStatus(error);
  logCause?.(error);
  return catalogueStatus(new AuthError("INTERNAL_SERVER_ERROR"));
}
