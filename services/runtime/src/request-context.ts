/**
 * The request a piece of work serves, per async context: its id (from the gateway, through gRPC metadata)
 * and, inside a gRPC handler, the inbound call's deadline. Logs read the id; calls to other services
 * (rpc.ts) carry both on.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestContext } from "@auth-platform/proto/rpc-server";

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs fn with context as the current request context. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * Runs fn outside any request: work a request starts but does not wait for (a background publication)
 * must not carry the request's id, deadline or cancellation, since every answered call's signal aborts
 * (proto/src/rpc-server.ts) and would cancel the work's own calls.
 */
export function outsideAnyRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}
