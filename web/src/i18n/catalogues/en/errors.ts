/**
 * The error catalogue's messages in English, by code: the server's own (proto/src/errors.ts), not written a
 * second time here. The other languages translate each code; the code an ApiError carries stays the same.
 */
import { ERRORS, type ErrorCode } from "@auth-platform/proto/errors";

export default Object.fromEntries(Object.entries(ERRORS).map(([code, entry]) => [code, entry.message])) as Record<ErrorCode, string>;
