/** Links in mail, built from the configured public URL of the API (never from a request's Host header). */
import { createHash } from "node:crypto";

export function apiLink(baseUrl: string, path: string, query: Record<string, string | undefined>): string {
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries(query)) if (value) url.searchParams.set(name, value);
  return url.toString();
}

/** An idempotency key for a mail about one token: a retried call never queues the message twice. */
export function mailKey(kind: string, token: string): string {
  return `${kind}:${createHash("sha256").update(token).digest("hex").slice(0, 32)}`;
}
