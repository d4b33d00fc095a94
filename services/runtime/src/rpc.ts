/**
 * The processes' side of the RPC glue: handlers log through their own service's logger, are told the
 * calling workload (grpc-access.ts), run in their request context and in a trace span continuing the
 * caller's, and are counted and timed (metrics.ts); calls to other services carry the current request
 * context (its id and what is left of its deadline) and trace context, and are counted and timed too.
 * A handler failing because its database is out of reach answers SERVICE_UNAVAILABLE with a retry hint
 * (database-unreachable.ts), in every service alike.
 */
import type * as grpc from "@grpc/grpc-js";
import { AuthError } from "@auth-platform/proto/errors";
import { call as callWith, type CallHooks, type CallOptions } from "@auth-platform/proto/rpc-client";
import { type RpcServer, rpcServer } from "@auth-platform/proto/rpc-server";
import { DATABASE_RETRY_AFTER_MS, isDatabaseUnreachable } from "./database-unreachable.js";
import { callerOf } from "./grpc-access.js";
import { describeError, type Logger } from "./log.js";
import { recordRpcCalled, recordRpcServed } from "./metrics.js";
import { currentRequestContext, withRequestContext } from "./request-context.js";
import { inServerSpan, startClientSpan } from "./tracing.js";

/** The handler adapter of a service whose unexpected errors `log` records (under that service's name). */
export function serviceRpc(log: Logger): RpcServer {
  const unavailable = databaseUnavailable(log);
  const answered =
    <T>(fn: () => Promise<T>, path: string) =>
    async () => {
      try {
        return await fn();
      } catch (error) {
        throw !(error instanceof AuthError) && isDatabaseUnreachable(error) ? unavailable(path, error) : error;
      }
    };
  return rpcServer({
    logUnexpected: (method, requestId, error) => log.error("unexpected error", { method, requestId, error: describeError(error) }),
    run: (context, fn, call) => inServerSpan(call.path, call.metadata, () => withRequestContext(context, answered(fn, call.path))),
    observe: (path, seconds, status) => recordRpcServed(path, seconds, status.code, status.errorCode),
    // Remembered per connection (callerOf), so the access check's reading serves the handler too.
    callerOf,
  });
}

/** At most one "database unreachable" line per this many ms; the ones in between are counted in the next. */
export const DATABASE_LOG_INTERVAL_MS = 10_000;

/**
 * The answer to a call whose database is out of reach: SERVICE_UNAVAILABLE with a retry hint, never the
 * driver's message. An outage fails every call; one log line per interval says so, with the count of the
 * others, instead of one line (and stack) per call.
 */
function databaseUnavailable(log: Logger): (path: string, cause: unknown) => AuthError {
  let lastAt = Number.NEGATIVE_INFINITY;
  let skipped = 0;
  return (path, cause) => {
    const at = performance.now();
    if (at - lastAt >= DATABASE_LOG_INTERVAL_MS) {
      log.warn("database unreachable: answering SERVICE_UNAVAILABLE", { method: path, error: describeError(cause), ...(skipped ? { sinceLastLine: skipped } : {}) });
      lastAt = at;
      skipped = 0;
    } else skipped++;
    return new AuthError("SERVICE_UNAVAILABLE", undefined, { cause, retryAfterMs: DATABASE_RETRY_AFTER_MS });
  };
}

type Method<Req, Res> = Parameters<typeof callWith<Req, Res>>[1];

const callHooks: CallHooks = {
  start(path, metadata) {
    const started = performance.now();
    const endSpan = startClientSpan(path, metadata);
    return (grpcCode) => {
      endSpan(grpcCode);
      recordRpcCalled(path, (performance.now() - started) / 1000, grpcCode);
    };
  },
};

/** call() in the current request context. */
export function call<Req, Res>(client: grpc.Client, method: Method<Req, Res>, request: Req, options: Omit<CallOptions, "context" | "hooks"> = {}): Promise<Res> {
  return callWith(client, method, request, { ...options, context: currentRequestContext(), hooks: callHooks });
}
