/**
 * Sealing a provider's client secret at rest (runtime/secret-box.ts): its own key derived from AUTH_SECRET,
 * with the provider id as authenticated data, so a sealed secret copied to another provider's row does not open.
 */
import { type SecretBox, secretBox as sealedUnder } from "@auth-platform/runtime/secret-box";

export type { SecretBox };

export function secretBox(authSecret: string): SecretBox {
  return sealedUnder(authSecret, { salt: "auth-platform/sso", info: "client-secret" });
}
