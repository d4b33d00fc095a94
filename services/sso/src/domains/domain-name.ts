/**
 * A domain an organization claims: one canonical spelling, and never a public suffix
 * (docs/adr/0071-verified-domains.md). The canonical form is the one stored, compared, published in DNS
 * and matched against an email's domain: lower case, IDN labels in punycode (A-labels), no trailing dot.
 */
import { domainToASCII } from "node:url";
import { parse } from "tldts";

export type DomainNameRefusal =
  /** Not a host name: empty, a URL, an address, a wildcard, a label too long, ... */
  | "invalid"
  /** A public suffix (`com`, `co.uk`, `github.io`) or a single label: nobody owns it alone. */
  | "public-suffix";

export type DomainNameResult = { ok: true; domain: string } | { ok: false; refusal: DomainNameRefusal };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_LENGTH = 253;

/** The canonical form of a claimed domain, or why it cannot be claimed. */
export function normaliseDomain(input: string): DomainNameResult {
  const trimmed = input.trim().replace(/\.$/, "");
  // domainToASCII accepts more than a host name (it strips nothing, but maps full-width dots and
  // case); anything that is not letters, digits, hyphens, dots or non-ASCII letters is refused first.
  if (trimmed === "" || trimmed.length > MAX_LENGTH * 4 || /[\s/:@*?#\\[\]%_,;]/.test(trimmed)) return refuse("invalid");
  const ascii = domainToASCII(trimmed);
  if (ascii === "" || ascii.length > MAX_LENGTH) return refuse("invalid");
  const labels = ascii.split(".");
  if (!labels.every((label) => LABEL.test(label))) return refuse("invalid");
  if (labels.every((label) => /^[0-9]+$/.test(label)) || /^[0-9]+$/.test(labels.at(-1) ?? "")) return refuse("invalid");
  const parsed = parse(ascii, { allowPrivateDomains: true });
  if (parsed.isIp) return refuse("invalid");
  // tldts answers no registrable domain for a suffix itself (`co.uk`, `github.io`) and for one label.
  if (parsed.domain === null || labels.length < 2) return refuse("public-suffix");
  return { ok: true, domain: ascii };
}

/**
 * The canonical domain of an email address (the part after the last `@`), or undefined when it has none
 * or it is not a host name. Used to match a sign-in or a sign-up against verified domains: exactly, a
 * verified `example.com` does not cover `eng.example.com` (ADR 0071).
 */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  if (at < 1) return undefined;
  const result = normaliseDomain(email.slice(at + 1));
  return result.ok ? result.domain : undefined;
}

const refuse = (refusal: DomainNameRefusal): DomainNameResult => ({ ok: false, refusal });
