/**
 * The DNS challenge of a domain claim: a random token per claim, published by the domain's owner as a
 * TXT record at a fixed name under the domain (docs/adr/0071-verified-domains.md).
 */
import { randomBytes } from "node:crypto";

/** The label under the claimed domain where the TXT record goes (RFC 8552: an underscored name). */
export const CHALLENGE_LABEL = "_auth-platform-challenge";
/** The TXT value is this prefix, `=`, and the claim's token. */
export const CHALLENGE_VALUE_PREFIX = "auth-platform-domain-verification";

/** A new claim's token: 24 random bytes, base64url (32 characters, safe in a TXT record and a URL). */
export function newChallengeToken(): string {
  return randomBytes(24).toString("base64url");
}

export interface ChallengeRecord {
  /** The fully qualified name of the TXT record, without a trailing dot. */
  name: string;
  type: "TXT";
  /** The exact text to publish. */
  value: string;
}

/** The record the owner of `domain` (canonical, from normaliseDomain) publishes to prove a claim. */
export function challengeRecord(domain: string, token: string): ChallengeRecord {
  return { name: `${CHALLENGE_LABEL}.${domain}`, type: "TXT", value: `${CHALLENGE_VALUE_PREFIX}=${token}` };
}
