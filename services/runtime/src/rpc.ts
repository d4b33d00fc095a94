/**
 * The processes' side of the RPC glue: handlers log through their own service's logger, are told the
 * calling workload (grpc-access.ts), run in their request context and in a trace span continuing the
 * caller's, and are counted and timed (metrics.ts); calls to other services carry the current request
 * context (its id and what is left of its deadline) and trace context, and are counted and timed too.
 */
import type * as grpc from "@grpc/grpc-js";
import { call as callWith, type CallHooks, type CallOptions } from "@auth-platform/proto/rpc-client";
import { type RpcServer, rpcServer } from "@auth-platform/proto/rpc-server";
import { callerOf } from "./grpc-access.js";
import { describeError, type Logger } from "./log.js";
import { recordRpcCalled, recordRpcServed } from "./metrics.js";
import { currentRequestContext, withRequestContext } from "./request-context.js";
import { inServerSpan, startClientSpan } from "./tracing.js";

/** The handler adapter of a service whose unexpected errors `log` records (under that service's name). */
export function serviceRpc(log: Logger): RpcServer {
  return rpcServer({
    logUnexpected: (method, requestId, error) => log.error("unexpected error", { method, requestId, error: describeError(error) }),
    run: (context, fn, call) => inServerSpan(call.path, call.metadata, () => withRequestContext(context, fn)),
    observe: (path, seconds, status) => recordRpcServed(path, seconds, status.code, status.errorCode),
    // Remembered per connection (callerOf), so the access check's reading serves the handler too.
    callerOf,
  });
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
