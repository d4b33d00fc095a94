import type { Session } from "./api";
import { translate } from "./i18n";
import { providerName } from "./social";

const METHODS = {
  password: "account.methodPassword",
  passkey: "account.methodPasskey",
  "magic-link": "account.methodMagicLink",
  "email-otp": "account.methodEmailOtp",
  "email-verification": "account.methodEmailVerification",
  impersonation: "account.methodImpersonation",
  sso: "account.methodSso",
} as const;

const FACTORS = {
  totp: "account.factorTotp",
  otp: "account.factorOtp",
  "backup-code": "account.factorBackupCode",
  passkey: "account.factorPasskey",
  "trusted-device": "account.factorTrustedDevice",
} as const;

/**
 * "signed in with a passkey", "signed in with Google and an authenticator code": how a session was opened,
 * in the reader's language; null when the session does not say (opened before it was recorded). `names`:
 * the generic providers' display names (GET /social-providers).
 */
export function describeSignInMethod(session: Pick<Session, "authMethod" | "secondFactor">, names?: Record<string, string>): string | null {
  const method = session.authMethod;
  if (!method) return null;
  const named = method.startsWith("social:")
    ? translate("account.methodSocial", { provider: providerName(method.slice("social:".length), names) })
    : method in METHODS
      ? translate(METHODS[method as keyof typeof METHODS])
      : method;
  const factor = session.secondFactor && session.secondFactor in FACTORS ? translate(FACTORS[session.secondFactor as keyof typeof FACTORS]) : null;
  return translate("account.signedInWith", { method: factor ? translate("account.methodAndFactor", { method: named, factor }) : named });
}
