/** Links in mail, built from the configured public URL of the API (never from a request's Host header). */
import { createHash } from "node:crypto";

/** Where a mailed link lands when the request named no callbackURL: the web app's root. */
export const DEFAULT_CALLBACK_URL = "/";

/**
 * A mailed link to an API landing route. Every such link carries a callbackURL (DEFAULT_CALLBACK_URL when
 * none was given), so following it from a mail client redirects to the app instead of answering JSON.
 */
export function apiLink(baseUrl: string, path: string, query: Record<string, string | undefined> & { callbackURL: string | undefined }): string {
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries({ ...query, callbackURL: query.callbackURL || DEFAULT_CALLBACK_URL })) {
    if (value) url.searchParams.set(name, value);
  }
  return url.toString();
}

/** An idempotency key for a mail about one token: a retried call never queues the message twice. */
export function mailKey(kind: string, token: string): string {
  return `${kind}:${createHash("sha256").update(token).digest("hex").slice(0, 32)}`;
}
