/** identity's refusals, passed on to oauth's own caller. */
import { AuthError, isErrorCode, PeerError } from "@auth-platform/proto/errors";

/** identity's answer is meant for our caller: a peer error escaping the handler would be a generic 500. */
export async function fromIdentity<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PeerError && isErrorCode(error.code) && error.code !== "INTERNAL_SERVER_ERROR") throw new AuthError(error.code);
    throw error;
  }
}
