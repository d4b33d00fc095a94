/**
 * Signed email-verification tokens (HS256 JWT under the server secret): payload email and optional updateTo,
 * and the id of the user it was issued to as the subject (`sub`).
 */
import { errors, jwtVerify, SignJWT } from "jose";
import { AuthError } from "@auth-platform/proto/errors";
import { randomString } from "@auth-platform/runtime/random";

export interface VerificationPayload {
  /** The user the link was mailed for: an address can change hands within the link's hour. */
  userId: string;
  email: string;
  updateTo?: string;
}

const key = (secret: string) => new TextEncoder().encode(secret);

export async function signVerificationToken(payload: VerificationPayload, secret: string, expiresInSeconds: number, now: Date): Promise<string> {
  const { userId, ...claims } = payload;
  const issuedAt = Math.floor(now.getTime() / 1000);
  return (
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(userId)
      .setIssuedAt(issuedAt)
      // A unique id per token: two links mailed in the same second are two messages, not one.
      .setJti(randomString(16))
      .setExpirationTime(issuedAt + expiresInSeconds)
      .sign(key(secret))
  );
}

/**
 * The payload, or TOKEN_EXPIRED / INVALID_TOKEN. Only HS256 is accepted (no alg confusion, no "none"). A
 * token without a subject (issued before tokens named their user) is INVALID_TOKEN: it cannot tell whether
 * the address still belongs to the user it was mailed for.
 */
export async function verifyVerificationToken(token: string, secret: string, now: Date): Promise<VerificationPayload> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"], currentDate: now });
    if (typeof payload.email !== "string" || typeof payload.sub !== "string" || !payload.sub) throw new AuthError("INVALID_TOKEN");
    return { userId: payload.sub, email: payload.email, updateTo: typeof payload.updateTo === "string" ? payload.updateTo : undefined };
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new AuthError("TOKEN_EXPIRED");
    throw new AuthError("INVALID_TOKEN");
  }
}
