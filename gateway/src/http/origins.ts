/**
 * Trusted origins: the configured list plus the gateway's own origin. An entry may hold one `*` for a
 * subdomain wildcard (https://*.example.com). Used for the Origin check on cookie-bearing POSTs and, through
 * callback-url.ts, for every callback URL a request names.
 */

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
