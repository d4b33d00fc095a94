/** Conditional requests on `meta.version` (RFC 7644 §3.14): a write with If-Match of another version fails 412. */
import { preconditionFailed } from "./errors.js";
import { etagOf } from "./user.js";

/** Refuses the write when If-Match names versions and the current one is not among them (`*` matches any). */
export function checkIfMatch(ifMatch: string | undefined, revision: number): void {
  if (ifMatch === undefined || ifMatch.trim() === "") return;
  const current = etagOf(revision);
  const strong = current.slice(2);
  const given = ifMatch.split(",").map((tag) => tag.trim());
  if (given.includes("*") || given.some((tag) => tag === current || tag === strong)) return;
  throw preconditionFailed();
}

/** Whether If-None-Match names the current version (a GET then answers 304). */
export function notModified(ifNoneMatch: string | undefined, revision: number): boolean {
  if (ifNoneMatch === undefined) return false;
  const current = etagOf(revision);
  return ifNoneMatch.split(",").some((tag) => tag.trim() === current || tag.trim() === current.slice(2) || tag.trim() === "*");
}
