/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5) on the top-level attributes of a resource;
 * `schemas` and `id` are always returned.
 */
const ALWAYS = new Set(["schemas", "id"]);

function names(raw: string | string[] | undefined): Set<string> | undefined {
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw])
    .flatMap((value) => value.split(","))
    .map((name) => name.trim().toLowerCase().split(".")[0]!)
    .filter(Boolean);
  return list.length === 0 ? undefined : new Set(list);
}

export interface AttributeSelection {
  attributes?: string | string[];
  excludedAttributes?: string | string[];
}

export function selectAttributes<R extends object>(resource: R, selection: AttributeSelection): Partial<R> {
  const included = names(selection.attributes);
  const excluded = names(selection.excludedAttributes);
  if (!included && !excluded) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => {
      const lower = key.toLowerCase();
      if (ALWAYS.has(lower)) return true;
      if (included) return included.has(lower);
      return !excluded!.has(lower);
    }),
  ) as Partial<R>;
}

/** Whether a group listing may leave out the members (Entra asks for it before every group push). */
export function excludesMembers(selection: AttributeSelection): boolean {
  return names(selection.excludedAttributes)?.has("members") === true || (names(selection.attributes) !== undefined && !names(selection.attributes)!.has("members"));
}
