import { AuthError } from "@auth-platform/proto/errors";

/** How a promise settled, for assertions: "resolved", or the catalogue code it was rejected with (else the error's text). */
export function errorCode(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "resolved",
    (error: unknown) => (error instanceof AuthError ? error.code : String(error)),
  );
}
