/** The checks on request fields every caller gets (the gateway checks shapes too): a bad one is VALIDATION_ERROR naming it. */
import { AuthError } from "@auth-platform/proto/errors";
import * as z from "zod";
import type { MemberQuery } from "../store/organization-store.js";

/** What a slug may be (the import of better-auth rows applies it too). */
export const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_METADATA_KEYS = 50;

export function name(value: string): string {
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 255) throw new AuthError("VALIDATION_ERROR", "name must be 1 to 255 characters");
  return trimmed;
}

export function slug(value: string): string {
  if (!SLUG.test(value)) throw new AuthError("VALIDATION_ERROR", "slug must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit");
  return value;
}

export function logo(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > 2048) throw new AuthError("VALIDATION_ERROR", "logo is too long");
  return value;
}

export function metadata(value: Record<string, string>): Record<string, string> {
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) throw new AuthError("VALIDATION_ERROR", `metadata has more than ${MAX_METADATA_KEYS} keys`);
  for (const [key, item] of entries) {
    if (!key || key.length > 64 || key === "__proto__") throw new AuthError("VALIDATION_ERROR", "metadata keys must be 1 to 64 characters");
    if (item.length > 1024) throw new AuthError("VALIDATION_ERROR", `metadata.${key} is too long`);
  }
  return value;
}

export function id(field: string, value: string | undefined): string {
  if (!value || value.length > 64) throw new AuthError("VALIDATION_ERROR", `${field} is required`);
  return value;
}

export function optionalId(field: string, value: string | undefined): string | undefined {
  return value ? id(field, value) : undefined;
}

export function role(value: string): string {
  if (!value || value.length > 255) throw new AuthError("VALIDATION_ERROR", "role is required");
  return value;
}

const email = z.email().max(320);

export function emailAddress(value: string): string {
  if (!email.safeParse(value.trim()).success) throw new AuthError("INVALID_EMAIL");
  return value.trim().toLowerCase();
}

const SORT_FIELDS = ["createdAt", "role"] as const;
const FILTER_FIELDS = ["role", "userId"] as const;
const FILTER_OPERATORS = ["eq", "ne", "in", "not_in"] as const;

/** The member list's order and filter (MemberQuery): unknown fields or operators are refused, not ignored. */
export function memberQuery(req: {
  sortBy: string;
  descending: boolean;
  filterField: string;
  filterOperator: string;
  filterValues: string[];
}): Pick<MemberQuery, "sortBy" | "descending" | "filter"> {
  const sortBy = req.sortBy || "createdAt";
  if (!(SORT_FIELDS as readonly string[]).includes(sortBy)) throw new AuthError("VALIDATION_ERROR", `sortBy must be one of ${SORT_FIELDS.join(", ")}`);
  const query: Pick<MemberQuery, "sortBy" | "descending" | "filter"> = { sortBy: sortBy as MemberQuery["sortBy"], descending: req.descending };
  if (!req.filterField) return query;
  if (!(FILTER_FIELDS as readonly string[]).includes(req.filterField)) throw new AuthError("VALIDATION_ERROR", `filterField must be one of ${FILTER_FIELDS.join(", ")}`);
  const operator = req.filterOperator || "eq";
  if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) throw new AuthError("VALIDATION_ERROR", `filterOperator must be one of ${FILTER_OPERATORS.join(", ")}`);
  const single = operator === "eq" || operator === "ne";
  if ((single && req.filterValues.length !== 1) || req.filterValues.length > 100 || req.filterValues.some((v) => v.length > 255)) {
    throw new AuthError("VALIDATION_ERROR", single ? "filterValue must be one value" : "filterValue must be at most 100 values");
  }
  return { ...query, filter: { field: req.filterField as "role" | "userId", operator: operator as "eq" | "ne" | "in" | "not_in", values: req.filterValues } };
}
