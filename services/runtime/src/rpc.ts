/**
 * The processes' side of the RPC glue: handlers log through their own service's logger and run in their
 * request context; calls to other services carry the current request context (its id and what is left of
 * its deadline).
 */
import type * as grpc from "@grpc/grpc-js";
import { call as callWith, type CallOptions } from "@auth-platform/proto/rpc-client";
import { type RpcServer, rpcServer } from "@auth-platform/proto/rpc-server";
import { describeError, type Logger } from "./log.js";
import { currentRequestContext, withRequestContext } from "./request-context.js";

/** The handler adapter of a service whose unexpected errors `log` records (under that service's name). */
export function serviceRpc(log: Logger): RpcServer {
  return rpcServer({
    logUnexpected: (method, requestId, error) => log.error("unexpected error", { method, requestId, error: describeError(error) }),
    run: (context, fn) => withRequestContext(context, fn),
  });
}

type Method<Req, Res> = Parameters<typeof callWith<Req, Res>>[1];

/** call() in the current request context. */
export function call<Req, Res>(client: grpc.Client, method: Method<Req, Res>, request: Req, options: Omit<CallOptions, "context"> = {}): Promise<Res> {
  return callWith(client, method, request, { ...options, context: currentRequestContext() });
}
