/**
 * The `filter` query parameter of a SCIM list (RFC 7644 §3.4.2.2), in the one form IdPs send before they
 * create or link a resource: `<attribute> eq "<value>"`. Anything else is refused with `invalidFilter` rather
 * than half-understood: an IdP that gets a wrong match would link the wrong person (docs/adr/0070-scim-provisioning.md).
 */
import { badRequest } from "./errors.js";

export interface EqualityFilter<A extends string> {
  attribute: A;
  value: string;
}

const MAX_FILTER_LENGTH = 1024;

/**
 * Parses `filter` against the attributes a resource type can be filtered on (canonical spelling; the
 * comparison of names is case-insensitive as RFC 7644 §3.4.2.2 requires). Undefined or blank: no filter.
 */
export function parseFilter<A extends string>(filter: string | undefined, attributes: readonly A[]): EqualityFilter<A> | undefined {
  if (filter === undefined || filter.trim() === "") return undefined;
  if (filter.length > MAX_FILTER_LENGTH) throw badRequest("invalidFilter", "The filter is too long");
  const match = /^\s*([A-Za-z][\w.:-]*)\s+([A-Za-z]{2})\s+("(?:[^"\\]|\\.)*")\s*$/.exec(filter);
  if (!match) throw badRequest("invalidFilter", 'Only filters of the form <attribute> eq "<value>" are supported');
  const [, name, operator, literal] = match;
  if (operator!.toLowerCase() !== "eq") throw badRequest("invalidFilter", `The operator "${operator}" is not supported; use eq`);
  const attribute = attributes.find((a) => a.toLowerCase() === name!.toLowerCase());
  if (!attribute) throw badRequest("invalidFilter", `Filtering on "${name}" is not supported; supported: ${attributes.join(", ")}`);
  let value: unknown;
  try {
    value = JSON.parse(literal!);
  } catch {
    throw badRequest("invalidFilter", "The filter's value is not a valid string");
  }
  return { attribute, value: value as string };
}
