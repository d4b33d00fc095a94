/**
 * The user an accepted assertion names, read through the provider's attribute mapping: the account id is
 * the NameID (stable per IdP user), the email the mapped attribute or else an email-shaped NameID.
 */
import { SamlRefusal, type SamlAssertion } from "./service-provider.js";
import type { SamlAttributeMapping } from "./settings.js";

export interface SamlProfile {
  /** The NameID: the account's id at this provider. */
  accountId: string;
  email: string;
  emailVerified: boolean;
  name: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function first(value: string | string[] | undefined): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === "string" && one.trim() !== "" ? one.trim() : undefined;
}

export function samlProfile(assertion: SamlAssertion, mapping: SamlAttributeMapping): SamlProfile {
  const attribute = (name: string) => first(assertion.attributes[name]);
  const email = (attribute(mapping.email) ?? (EMAIL.test(assertion.nameId) ? assertion.nameId : undefined))?.toLowerCase();
  if (!email || !EMAIL.test(email)) throw new SamlRefusal("name_id");
  const joined = [attribute(mapping.firstName), attribute(mapping.lastName)].filter(Boolean).join(" ");
  // SAML has no standard "verified" attribute, and Okta, Entra ID and Google send none: the IdP's word is
  // the verification, and it counts only for addresses at the provider's verified domain (completeForProvider).
  const verified = mapping.emailVerified === null ? "true" : attribute(mapping.emailVerified);
  return {
    accountId: assertion.nameId,
    email,
    emailVerified: verified === "true" || verified === "1",
    name: attribute(mapping.name) ?? (joined || email),
  };
}
