/**
 * list-users' matching and ordering in plain code: the memory store uses it, and it states what the SQL of
 * the MikroORM store does (search case-insensitive, a NULL column matches no filter, NULLs sort as the
 * largest value, ties broken by id).
 */
import { isTextOperator, type SearchOperator, type UserQuery, type UserRecord } from "./identity-store.js";

type Comparable = string | number | boolean | null;

const fieldValue = (user: UserRecord, field: string): Comparable => {
  const value = (user as unknown as Record<string, unknown>)[field];
  if (value instanceof Date) return value.getTime();
  return (value ?? null) as Comparable;
};

const normalise = (value: string | boolean | Date | null): Comparable => (value instanceof Date ? value.getTime() : value);

/** Search's text match: case-insensitive, the value taken literally. */
function textMatches(haystack: string, value: string, operator: SearchOperator): boolean {
  const [text, needle] = [haystack.toLowerCase(), value.toLowerCase()];
  return operator === "starts_with" ? text.startsWith(needle) : operator === "ends_with" ? text.endsWith(needle) : text.includes(needle);
}

export function matchesUserQuery(user: UserRecord, query: UserQuery): boolean {
  if (query.search && !textMatches(String(fieldValue(user, query.search.field) ?? ""), query.search.value, query.search.operator)) return false;
  if (query.filter) {
    const actual = fieldValue(user, query.filter.field);
    const { operator, value } = query.filter;
    if (actual === null || value === null) return false;
    if (Array.isArray(value)) {
      const found = value.map(normalise).includes(actual);
      return operator === "not_in" ? !found : found;
    }
    if (isTextOperator(operator)) return textMatches(String(actual), String(value), operator);
    const expected = normalise(value);
    if (expected === null) return false;
    switch (operator) {
      case "eq":
        return actual === expected;
      case "ne":
        return actual !== expected;
      case "lt":
        return actual < expected;
      case "lte":
        return actual <= expected;
      case "gt":
        return actual > expected;
      case "gte":
        return actual >= expected;
    }
  }
  return true;
}

export function compareUsers(query: UserQuery): (a: UserRecord, b: UserRecord) => number {
  const field = query.sort?.field ?? "createdAt";
  const sign = query.sort?.direction === "desc" ? -1 : 1;
  return (a, b) => {
    const x = fieldValue(a, field);
    const y = fieldValue(b, field);
    if (x !== y) {
      if (x === null) return sign;
      if (y === null) return -sign;
      return (x < y ? -1 : 1) * sign;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}
