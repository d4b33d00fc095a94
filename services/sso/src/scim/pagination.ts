/** SCIM list pagination (RFC 7644 §3.4.2.4) and the ListResponse envelope (§3.4.2). */
import { badRequest } from "./errors.js";

export const LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
/** The most resources one page returns (advertised as `filter.maxResults` in ServiceProviderConfig). */
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 100;

export interface Page {
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
}

function integer(name: string, raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const value = typeof raw === "number" ? raw : /^-?\d{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw badRequest("invalidValue", `${name} must be an integer`);
  return value;
}

/**
 * `startIndex` below 1 is read as 1 and a negative `count` as 0 (RFC 7644 §3.4.2.4); `count` above the
 * maximum is capped rather than refused, which is what IdPs paging through a directory expect.
 */
export function parsePage(query: { startIndex?: string | number; count?: string | number }): Page {
  const startIndex = Math.max(1, integer("startIndex", query.startIndex) ?? 1);
  const count = Math.min(MAX_PAGE_SIZE, Math.max(0, integer("count", query.count) ?? DEFAULT_PAGE_SIZE));
  return { startIndex, count };
}

export interface ListResponse<R> {
  schemas: [typeof LIST_RESPONSE_SCHEMA];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: R[];
}

export function listResponse<R>(page: Page, totalResults: number, resources: R[]): ListResponse<R> {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources };
}
