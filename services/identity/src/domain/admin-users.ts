/**
 * The admin area's user operations (the admin service is their only caller and checks the caller's role
 * first): list with search, filter, sort and paging; create; set role; set password; ban and unban; remove.
 * Every change drops the user's cached sessions (or ends them), so the next read serves the new user.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import {
  CREDENTIAL_PROVIDER,
  type FilterOperator,
  isTextOperator,
  SEARCH_OPERATORS,
  type SearchOperator,
  USER_QUERY_FIELDS,
  type UserQuery,
  type UserQueryField,
  type UserPage,
  type UserRecord,
} from "../store/identity-store.js";
import { banHolds } from "./bans.js";
import { removeUser as removeUserAndSessions } from "./delete-user.js";
import { voidResetLinks } from "./password-reset.js";
import type { Registry } from "./ports.js";
import { checkExtraFields, checkPasswordLength, normaliseEmail } from "./validation.js";
import { newUser } from "./new-user.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "now" | "passwords">;

/** The default page size of list reads (docs/http-api.md#limits-and-defaults). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** The default ban reason (docs/http-api/admin.md#bans-and-impersonation). */
export const DEFAULT_BAN_REASON = "No reason";

const SEARCH_FIELDS = ["email", "name"] as const;
const FILTER_OPERATORS: FilterOperator[] = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in", "contains", "starts_with", "ends_with"];
/** The most values an in or not_in filter takes (better-auth sets no bound; a query string carries a few). */
export const MAX_FILTER_VALUES = 100;

export interface ListUsersInput {
  searchValue?: string;
  searchField?: string;
  searchOperator?: string;
  limit?: number;
  offset?: number;
  sortBy?: string;
  sortDirection?: string;
  filterField?: string;
  /** JSON-typed, or a string (a query string's value) read as the field's type; for in and not_in, a list or one value. */
  filterValue?: string | number | boolean | null | unknown[];
  filterOperator?: string;
  /** Counts matches up to this many; 0 or absent counts them all. */
  countLimit?: number;
}

const invalid = (message: string) => new AuthError("VALIDATION_ERROR", message);
const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T => {
  if (value === undefined || value === "") return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw invalid(`Invalid ${name} "${value}": expected one of ${allowed.join(", ")}`);
  return value as T;
};

function filterValueOf(field: UserQueryField, raw: string | number | boolean | null): string | boolean | Date {
  const type = USER_QUERY_FIELDS[field];
  if (type === "boolean") {
    if (typeof raw === "boolean") return raw;
    if (raw === "true" || raw === "false") return raw === "true";
    throw invalid(`Invalid filterValue for ${field}: expected a boolean`);
  }
  if (type === "date") {
    const date = typeof raw === "number" ? new Date(raw) : typeof raw === "string" ? new Date(/^\d+$/.test(raw) ? Number(raw) : raw) : null;
    if (!date || Number.isNaN(date.getTime())) throw invalid(`Invalid filterValue for ${field}: expected a date (ISO 8601 or epoch milliseconds)`);
    return date;
  }
  if (typeof raw === "string") return raw;
  if (typeof raw === "number") return String(raw);
  throw invalid(`Invalid filterValue for ${field}: expected a string`);
}

/** The filter's value for its field and operator: a list for in and not_in, one value otherwise. */
function filterOf(field: UserQueryField, operator: FilterOperator, raw: NonNullable<ListUsersInput["filterValue"]>): NonNullable<UserQuery["filter"]>["value"] {
  const type = USER_QUERY_FIELDS[field];
  if (type === "boolean" && operator !== "eq" && operator !== "ne") throw invalid(`Invalid filterOperator "${operator}" for ${field}: a boolean takes eq or ne`);
  if (isTextOperator(operator) && type !== "string") {
    throw invalid(`Invalid filterOperator "${operator}" for ${field}: ${operator} takes a text field`);
  }
  if (operator !== "in" && operator !== "not_in") {
    if (Array.isArray(raw)) throw invalid(`Invalid filterValue for ${field}: a list takes filterOperator in or not_in`);
    return filterValueOf(field, raw);
  }
  // A query string carries a one-value list as a plain value, so one value is a list of one.
  const values = Array.isArray(raw) ? raw : [raw];
  if (values.length < 1 || values.length > MAX_FILTER_VALUES) throw invalid(`Invalid filterValue for ${field}: ${operator} takes from 1 to ${MAX_FILTER_VALUES} values`);
  return values.map((value) => {
    if (typeof value !== "string" && typeof value !== "number") throw invalid(`Invalid filterValue for ${field}: ${operator} takes strings or numbers`);
    return filterValueOf(field, value) as string | Date;
  });
}

/** Validates a list-users request into a store query; a bad field, operator or value is a VALIDATION_ERROR. */
export function userQueryOf(input: ListUsersInput): UserQuery {
  const fields = Object.keys(USER_QUERY_FIELDS) as UserQueryField[];
  const query: UserQuery = { limit: DEFAULT_PAGE_SIZE, offset: 0, countLimit: 0 };
  if (input.limit !== undefined && input.limit !== 0) {
    if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_PAGE_SIZE) throw invalid(`Invalid limit: expected an integer from 1 to ${MAX_PAGE_SIZE}`);
    query.limit = input.limit;
  }
  if (input.offset !== undefined) {
    if (!Number.isInteger(input.offset) || input.offset < 0) throw invalid("Invalid offset: expected an integer of 0 or more");
    query.offset = input.offset;
  }
  if (input.countLimit !== undefined) {
    if (!Number.isInteger(input.countLimit) || input.countLimit < 0) throw invalid("Invalid countLimit: expected an integer of 0 or more");
    query.countLimit = input.countLimit;
  }
  const searchField = oneOf("searchField", input.searchField, SEARCH_FIELDS, "email");
  const searchOperator = oneOf<SearchOperator>("searchOperator", input.searchOperator, SEARCH_OPERATORS, "contains");
  if (input.searchValue) query.search = { field: searchField, operator: searchOperator, value: input.searchValue };
  const filterOperator = oneOf("filterOperator", input.filterOperator, FILTER_OPERATORS, "eq");
  const filterField = oneOf("filterField", input.filterField, fields, "email");
  if (input.filterValue !== undefined && input.filterValue !== null) {
    query.filter = { field: filterField, operator: filterOperator, value: filterOf(filterField, filterOperator, input.filterValue) };
  }
  if (input.sortBy) {
    query.sort = { field: oneOf("sortBy", input.sortBy, fields, "createdAt"), direction: oneOf("sortDirection", input.sortDirection, ["asc", "desc"] as const, "asc") };
  } else if (input.sortDirection) {
    oneOf("sortDirection", input.sortDirection, ["asc", "desc"] as const, "asc");
  }
  return query;
}

export async function listUsers(deps: Pick<Deps, "store">, input: ListUsersInput): Promise<UserPage> {
  return deps.store.listUsers(userQueryOf(input));
}

async function existing(deps: Pick<Deps, "store">, userId: string): Promise<UserRecord> {
  const user = userId ? await deps.store.findUserById(userId) : null;
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return user;
}

function checkRole(role: string): string {
  const trimmed = role.trim();
  if (!trimmed || trimmed.length > 255) throw invalid("Invalid role: expected a non-empty string of at most 255 characters");
  return trimmed;
}

export interface CreateUserInput {
  email: string;
  /** Absent: the user gets no credential account. Present, even empty, it must meet the length limits. */
  password?: string;
  name: string;
  /** Absent: the default role, as at sign-up (none when IDENTITY_DEFAULT_ROLE is switched off). */
  role?: string;
  extraFields: Record<string, unknown>;
  deadline?: number;
}

/**
 * Creates a user with the given role or the default one; no session (the admin stays signed in). With a
 * password the user gets a credential account; without one none, as a social sign-up leaves it: sign-in
 * with any password is the generic failure (the unknown user's path, its dummy hash included), and a
 * password reset creates the credential account.
 */
export async function createUser(deps: Deps, input: CreateUserInput): Promise<UserRecord> {
  const email = normaliseEmail(input.email);
  if (input.password !== undefined) checkPasswordLength(input.password, deps.config);
  if (!input.name.trim()) throw invalid("Invalid name: expected a non-empty string");
  const role = input.role === undefined ? deps.config.defaultRole : checkRole(input.role);
  const extraFields = checkExtraFields(input.extraFields, deps.config.userFields);
  if (await deps.store.findUserByEmail(email)) throw new AuthError("USER_ALREADY_EXISTS");
  const now = deps.now();
  const user = newUser(now, { name: input.name, email, emailVerified: false, image: null, role, extraFields });
  if (input.password === undefined) return deps.store.createUserWithAccount(user, null);
  const hash = await deps.passwords.hash(input.password, input.deadline);
  return deps.store.createUserWithAccount(user, {
    id: newId(),
    accountId: user.id,
    providerId: CREDENTIAL_PROVIDER,
    userId: user.id,
    password: hash,
    createdAt: now,
    updatedAt: now,
  });
}

async function patchUser(deps: Pick<Deps, "store">, userId: string, patch: Partial<UserRecord>, options?: { revokeSessions?: boolean }): Promise<UserRecord> {
  const updated = await deps.store.updateUser(userId, patch, options);
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  return updated;
}

export async function setRole(deps: Deps, userId: string, role: string): Promise<UserRecord> {
  await existing(deps, userId);
  // The role travels with the session service's copy of the user: the store's outbox carries the new one.
  return patchUser(deps, userId, { role: checkRole(role) });
}

/**
 * Sets (or replaces) the credential password, creating the credential account when there is none. As with
 * the user's own change, the reset links mailed before it, the sign-ins the old password opened that wait
 * for their second factor, and the trust given to browsers (an admin sets a password most often for an
 * account someone else got into) end with it.
 */
export async function setUserPassword(deps: Deps, input: { userId: string; newPassword: string; deadline?: number }): Promise<void> {
  checkPasswordLength(input.newPassword, deps.config);
  const user = await existing(deps, input.userId);
  const hash = await deps.passwords.hash(input.newPassword, input.deadline);
  const credential = await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER);
  if (!credential || !(await deps.store.setAccountPassword(credential.id, hash))) {
    const now = deps.now();
    await deps.store.createAccount({ id: newId(), accountId: user.id, providerId: CREDENTIAL_PROVIDER, userId: user.id, password: hash, createdAt: now, updatedAt: now });
  }
  await voidResetLinks(deps, user.id);
  await deps.store.deleteUserChallenges(user.id);
  await deps.store.deleteTrustedDevices(user.id);
}

/**
 * Bans a user and ends every session of the user (cache included): both are one write, the ban and its outbox
 * row, delivered before the answer, or by the outbox worker once the session service can be reached.
 */
export async function banUser(deps: Deps, input: { userId: string; reason?: string; expiresInSeconds?: number; keepExisting?: boolean }): Promise<UserRecord> {
  const user = await existing(deps, input.userId);
  const seconds = input.expiresInSeconds ?? 0;
  if (!Number.isInteger(seconds) || seconds < 0) throw invalid("Invalid banExpiresIn: expected a whole number of seconds");
  // The ban in force stays (its reason and expiry); the sessions end again all the same.
  if (input.keepExisting && banHolds(user, deps.now())) return patchUser(deps, input.userId, {}, { revokeSessions: true });
  const banExpires = seconds > 0 ? new Date(deps.now().getTime() + seconds * 1000) : null;
  // After the ban is stored sign-in refuses the user. A sign-in that read the user just before is held off by
  // the banned copy the delivery hands the session service ahead of the revocation (its CreateSession refuses).
  return patchUser(deps, input.userId, { banned: true, banReason: input.reason?.trim() || DEFAULT_BAN_REASON, banExpires }, { revokeSessions: true });
}

export async function unbanUser(deps: Deps, userId: string, options: { onlyIfReason?: string } = {}): Promise<UserRecord> {
  const user = await existing(deps, userId);
  if (options.onlyIfReason !== undefined && user.banReason !== options.onlyIfReason) return user;
  return patchUser(deps, userId, { banned: false, banReason: null, banExpires: null });
}

/** Deletes the user, the user's sessions and accounts (the delete-user flow, without its confirmations). */
export async function removeUser(deps: Deps, userId: string): Promise<void> {
  await existing(deps, userId);
  await removeUserAndSessions(deps, userId);
}
