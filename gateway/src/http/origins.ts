/**
 * Trusted origins: the configured list plus the gateway's own origin. An entry may hold one `*` for a
 * subdomain wildcard (https://*.example.com). Used for the Origin check on cookie-bearing POSTs and for
 * every callback URL a request names.
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";

export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

function matches(pattern: string, origin: string): boolean {
  if (!pattern.includes("*")) return originOf(pattern) === origin;
  const [before, after] = pattern.split("*") as [string, string];
  if (!origin.startsWith(before) || !origin.endsWith(after) || origin.length <= before.length + after.length) return false;
  // The wildcard stands for one DNS label (or a port), never for dots: *.example.com must not trust
  // a.b.example.com, whose owner may be anyone the example.com owner delegated a subdomain to.
  return /^[a-z0-9-]+$/.test(origin.slice(before.length, origin.length - after.length));
}

export function isTrustedOrigin(origin: string | null, trusted: string[]): boolean {
  return origin !== null && trusted.some((pattern) => matches(pattern, origin));
}

/** A relative path on this site (not `//host` nor `/\host`, which browsers treat as another origin). */
function isRelativePath(url: string): boolean {
  return url.startsWith("/") && !url.startsWith("//") && !url.includes("\\") && !/[\u0000-\u001f]/.test(url);
}

export function isTrustedUrl(url: string, trusted: string[]): boolean {
  return isRelativePath(url) || isTrustedOrigin(originOf(url), trusted);
}

/** The callback-like fields SPEC.md §5 names, and the error each answers when untrusted. */
export const CALLBACK_FIELDS: Record<string, ErrorCode> = {
  callbackURL: "INVALID_CALLBACKURL",
  redirectTo: "INVALID_REDIRECTURL",
  errorCallbackURL: "INVALID_ERRORCALLBACKURL",
  newUserCallbackURL: "INVALID_NEWUSERCALLBACKURL",
};

/** Throws the field's catalogue error when a callback URL in body or query is neither relative nor trusted. */
export function checkCallbackUrls(sources: Array<Record<string, unknown> | undefined>, trusted: string[]): void {
  for (const source of sources) {
    if (!source) continue;
    for (const [field, code] of Object.entries(CALLBACK_FIELDS)) {
      const value = source[field];
      if (value === undefined || value === null || value === "") continue;
      if (typeof value !== "string" || !isTrustedUrl(value, trusted)) throw new AuthError(code);
    }
  }
}
