/**
 * The signed-in user an RPC acts for (auth.common.v1.Caller), as the gateway asserted it. Only the gateway
 * may call an RPC that takes one (each service's access table), so a handler trusts it as given; a call
 * without one, or with an empty user or session, acts for nobody and is refused.
 */
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import { AuthError } from "@auth-platform/proto/errors";

export type { Caller };

/** The request's caller, or UNAUTHORIZED. */
export function requireCaller(caller: Caller | undefined): Caller {
  if (!caller?.userId || !caller.sessionId) throw new AuthError("UNAUTHORIZED");
  return caller;
}
