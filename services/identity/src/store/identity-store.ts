/** The identity store port: what the domain needs of persistence, nothing more. */
import { USER_WEBHOOK_EVENTS } from "@auth-platform/contract/webhook-events";
import type { Language } from "@auth-platform/runtime/language";
import type { ApiKeyStore } from "./api-key-store.js";
import type { EmailCodeStore } from "./email-code-store.js";
import type { PasskeyStore } from "./passkey-store.js";
import type { TwoFactorStore } from "./two-factor-store.js";

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Date;
  updatedAt: Date;
  username: string | null;
  displayUsername: string | null;
  role: string | null;
  banned: boolean;
  banReason: string | null;
  banExpires: Date | null;
  extraFields: Record<string, unknown>;
  /** Two-factor sign-in is active (set with the first verified code, cleared by disabling). */
  twoFactorEnabled: boolean;
}

export interface AccountRecord {
  id: string;
  accountId: string;
  providerId: string;
  userId: string;
  password: string | null;
  /** Comma-separated granted scopes (social accounts). */
  scope?: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Provider tokens, each sealed (domain/provider-token-vault.ts): the store never holds one in the clear. */
  accessToken?: string | null;
  refreshToken?: string | null;
  idToken?: string | null;
  accessTokenExpiresAt?: Date | null;
  refreshTokenExpiresAt?: Date | null;
}

/** What a provider sign-in or a refresh changes on an account (tokens sealed). */
export type AccountTokensPatch = Pick<AccountRecord, "accessToken" | "refreshToken" | "idToken" | "accessTokenExpiresAt" | "refreshTokenExpiresAt" | "scope">;

export interface VerificationRecord {
  id: string;
  identifier: string;
  value: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** What a queued mail request asks for; the lookup and the token are made when it is processed. */
export type MailRequestKind = "password-reset" | "email-verification" | "magic-link" | "email-otp";

/** What a request needs beyond its address: a link's name and other callback URLs, a code's purpose. */
export type MailRequestDetails = Readonly<Record<string, string>>;

/**
 * A request for a mail about an address, queued by forget-password and send-verification-email before they
 * answer, for every address alike, and processed afterwards by the mail request worker.
 */
export interface MailRequestRecord {
  id: string;
  kind: MailRequestKind;
  /** Normalised (trimmed, lower-case). */
  email: string;
  callbackUrl: string | null;
  /** The language of the mail (the asking request's); null: English. */
  language: Language | null;
  /** Absent for the kinds that need none. */
  details?: MailRequestDetails | null;
  /** Processing attempts started so far. */
  attempts: number;
  nextAttemptAt: Date;
  /** While in the future, one worker holds the request. */
  leaseUntil: Date | null;
  createdAt: Date;
}

/**
 * What the session service has still to be told about a user: its copy of the user (the user as stored now,
 * or gone), and with revokeSessions, the end of every session of the user. One row a user, written in the
 * same transaction as every write of the user (and by queueSessionRevocation), delivered and cleared by
 * domain/session-outbox.ts.
 */
/**
 * A row is queued due this long after its write: the writing request delivers it at once, and the worker
 * only takes it over when that delivery failed (the request says so) or the process died before it ended.
 * Longer than a delivery takes, so one change is never delivered twice at once.
 */
export const WRITER_DELIVERY_MS = 15_000;

export interface SessionOutboxRecord {
  userId: string;
  /** Every session of the user ends on delivery (a ban, a password reset, a deletion). */
  revokeSessions: boolean;
  /** Moves with every change queued for the user: a delivery clears only the version it delivered. */
  version: number;
  /** Delivery attempts by the worker since the last change. */
  attempts: number;
  nextAttemptAt: Date;
  /** While in the future, one worker holds the row. */
  leaseUntil: Date | null;
}

/**
 * What other services must learn of a user, beyond the session service's copy (docs/adr/0074-user-event-outbox.md):
 * one row per event, of a type, written in the same transaction as the write it records, delivered by
 * domain/user-events.ts (at once by the writing request, else by its worker) and removed once delivered.
 * `email-verified`: the user's address became verified (created verified, verified later, or changed to a
 * verified one); sso applies domain auto-join for it. The type column lets a later consumer (webhooks) reuse
 * the table.
 */
/**
 * The user events published as webhooks (docs/adr/0077-signed-webhooks.md): written with every write that
 * creates, changes, bans, unbans or deletes a user; the payload's `data` is the webhook body's data, the
 * user as the write left it (as it was, for a deletion).
 */
export const WEBHOOK_USER_EVENT_TYPES = USER_WEBHOOK_EVENTS;
export type WebhookUserEventType = (typeof WEBHOOK_USER_EVENT_TYPES)[number];
export const USER_EVENT_TYPES = ["email-verified", ...WEBHOOK_USER_EVENT_TYPES] as const;
export type UserEventType = (typeof USER_EVENT_TYPES)[number];
export const isWebhookUserEvent = (type: UserEventType): type is WebhookUserEventType => type.startsWith("user.");

/** The type of the webhook event an updateUser patch makes: a ban or unban, else an update. */
export function userUpdateEventType(patch: UserPatch): WebhookUserEventType {
  if (patch.banned === true) return "user.banned";
  if (patch.banned === false) return "user.unbanned";
  return "user.updated";
}

/** A user event's payload for a webhook: `data` holds `{ user }` as JSON, the fields the public API shows. */
export function webhookUserPayload(user: UserRecord): Record<string, string> {
  const shown = {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image,
    username: user.username,
    displayUsername: user.displayUsername,
    role: user.role,
    banned: user.banned,
    banReason: user.banReason,
    banExpires: user.banExpires?.toISOString() ?? null,
    twoFactorEnabled: user.twoFactorEnabled,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
  return { data: JSON.stringify({ user: shown }) };
}

export interface UserEventRecord {
  id: string;
  userId: string;
  type: UserEventType;
  /** What the event says beyond its user: `email-verified` holds `email`; a webhook event `data` (JSON). */
  payload: Readonly<Record<string, string>>;
  /** When the write happened. */
  occurredAt: Date;
  /** Delivery attempts started so far. */
  attempts: number;
  /** Due for the worker WRITER_DELIVERY_MS after the write: the writing request delivers it first. */
  nextAttemptAt: Date;
  /** While in the future, one deliverer holds the row. */
  leaseUntil: Date | null;
}

/**
 * Whether a write that left a user as `after` verified an address: verified now, and before not verified, or
 * at another address, or no user at all (a user created verified). Every store writes its `email-verified`
 * event by this rule.
 */
export function verifiesEmail(before: Pick<UserRecord, "email" | "emailVerified"> | null, after: Pick<UserRecord, "email" | "emailVerified">): boolean {
  if (!after.emailVerified) return false;
  return !before?.emailVerified || before.email !== after.email;
}

/**
 * What updateUser changes: the columns it names, and `extraFields` merged into the stored extra fields (each
 * named field replaced whole, a null removing it, the others kept as they are), in one write, so two updates
 * of different fields of one user at once both survive.
 */
export type UserPatch = Partial<Omit<UserRecord, "id" | "createdAt">>;

/** The stored extra fields with a patch's extra fields merged in (the memory store's half of UserPatch). */
export function mergeExtraFields(stored: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...stored };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

export const CREDENTIAL_PROVIDER = "credential";

/** The user fields list-users may filter and sort on, with their types. */
export const USER_QUERY_FIELDS = {
  id: "string",
  name: "string",
  email: "string",
  emailVerified: "boolean",
  username: "string",
  role: "string",
  banned: "boolean",
  createdAt: "date",
  updatedAt: "date",
} as const;
export type UserQueryField = keyof typeof USER_QUERY_FIELDS;
export const SEARCH_OPERATORS = ["contains", "starts_with", "ends_with"] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];
/** The text match operators, which search and the filter share. */
export const isTextOperator = (operator: string): operator is SearchOperator => (SEARCH_OPERATORS as readonly string[]).includes(operator);
export type FilterOperator = "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "not_in" | SearchOperator;

/** A validated list-users query (domain/admin-users.ts builds it). */
export interface UserQuery {
  search?: { field: "email" | "name"; operator: SearchOperator; value: string };
  /** in and not_in take a list of values; contains, starts_with and ends_with a string, matched as search is. */
  filter?: { field: UserQueryField; operator: FilterOperator; value: string | boolean | Date | null | Array<string | Date> };
  sort?: { field: UserQueryField; direction: "asc" | "desc" };
  limit: number;
  offset: number;
  /** Counts matches up to this many (a bounded scan); 0 counts them all. */
  countLimit: number;
}

/** One page of users and how many match: exactly, or at least `total` when totalIsLowerBound. */
export interface UserPage {
  users: UserRecord[];
  total: number;
  totalIsLowerBound: boolean;
  /** When each user of the page last signed in (recordSignIn), by id; absent for one who never did. */
  lastSignInAt: Record<string, Date>;
}

/**
 * The store's methods that change a user row, or (with their option) end a user's sessions. Each writes the
 * user's session outbox row in the same transaction (domain/session-outbox.ts delivers it), so no such write
 * can leave the session service behind; identity-store.contract.ts checks each, and that every other method
 * of the store is listed there as changing no user. Creating a user is not among them: a new user has no
 * session, and the first CreateSession carries the copy.
 */
export const USER_WRITES = [
  "updateUser",
  "markEmailVerified",
  "deleteUserAndAccounts",
  "activateTwoFactor",
  "deleteTwoFactor",
  "queueSessionRevocation",
  "setAccountPassword",
  "createAccount",
] as const;

export interface IdentityStore extends TwoFactorStore, EmailCodeStore, PasskeyStore, ApiKeyStore {
  /**
   * Deletes one of the user's passkeys unless it is the user's last way to sign in (the last passkey of a
   * user without any account), checked and deleted at once, so two deletions racing cannot both pass.
   */
  deletePasskeyUnlessLast(userId: string, id: string): Promise<"deleted" | "last" | "not-found">;
  /**
   * Creates a user and its first account atomically (and, for a verified address, its `email-verified` event), with the mail request (a verification mail) if given; null creates the user with no account (an admin's
   * user created without a password). A clash on email raises USER_ALREADY_EXISTS, on username
   * USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER; neither leaves a partial user behind.
   */
  createUserWithAccount(user: UserRecord, account: AccountRecord | null, mailRequest?: Omit<MailRequestRecord, "attempts" | "leaseUntil">): Promise<UserRecord>;
  /** The user with this id, or null. */
  findUserById(id: string): Promise<UserRecord | null>;
  /** The users with these ids or (already lower-cased) emails, in no particular order; unknown ones left out. */
  findUsers(ids: string[], emails: string[]): Promise<UserRecord[]>;
  /**
   * Notes a sign-in of the user at `at`, unless a later one is noted already (two at once keep the newer).
   * Changes nothing the user record holds: updatedAt stays and no session outbox row is written, so the
   * session service's copy of the user does not move. Listed by listUsers; gone with the user.
   */
  recordSignIn(userId: string, at: Date): Promise<void>;
  /** The user with this (already lower-cased) email, or null. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** The user with this (already lower-cased) username, or null. */
  findUserByUsername(username: string): Promise<UserRecord | null>;
  /** The user's account for a provider, or null. */
  findAccount(userId: string, providerId: string): Promise<AccountRecord | null>;
  /**
   * One page of users matching the query (search: case-insensitive on name, emails are stored lower-case)
   * in the query's order, ties broken by id, and how many match, up to the query's count limit.
   */
  listUsers(query: UserQuery): Promise<UserPage>;
  /** The account of a provider's user (unique on provider and the provider's account id), or null. */
  findAccountByProvider(providerId: string, accountId: string): Promise<AccountRecord | null>;
  /** Replaces the tokens (and scope) of an account and sets updatedAt; false when the account is gone. */
  updateAccountTokens(id: string, patch: AccountTokensPatch): Promise<boolean>;
  /**
   * Applies a patch (extra fields merged, see UserPatch) and sets updatedAt in one write; null when the user does
   * not exist. Every write of a user moves updatedAt strictly past the stored one (user-updated-at.ts).
   * With revokeSessions (a ban), the outbox row also asks for the end of the user's sessions. A patch that
   * leaves the user at a newly verified address (verifiesEmail) writes its `email-verified` event too.
   */
  updateUser(id: string, patch: UserPatch, options?: { revokeSessions?: boolean }): Promise<UserRecord | null>;
  /**
   * Marks the address verified if the user still has it and it is not verified yet, in one conditional write
   * (of two racing calls one wins), with its `email-verified` event; the updated user, or null when nothing changed.
   */
  markEmailVerified(id: string, email: string): Promise<UserRecord | null>;
  /** Every account of the user, oldest first. */
  listAccounts(userId: string): Promise<AccountRecord[]>;
  /** With revokeSessions (a password reset), the user's sessions are queued to end in the same transaction. */
  createAccount(account: AccountRecord, options?: { revokeSessions?: boolean }): Promise<void>;
  /**
   * Sets the password hash of one account; false when the account is gone. With revokeSessionsOf (a password
   * reset), the end of that user's sessions is queued in the same transaction.
   */
  setAccountPassword(accountId: string, passwordHash: string, options?: { revokeSessionsOf?: string }): Promise<boolean>;
  deleteAccount(accountId: string): Promise<void>;
  /**
   * Deletes one of the user's accounts unless it is the user's last (unlink): true when deleted, false when
   * it was the last or is gone. Of concurrent calls for one user, never all remove the accounts left.
   */
  deleteAccountUnlessLast(userId: string, accountId: string): Promise<boolean>;
  /**
   * Deletes the user's accounts and two-factor records, then the user, in one transaction. Deleting a missing
   * user is not an error.
   */
  deleteUserAndAccounts(userId: string): Promise<void>;
  createVerification(record: VerificationRecord): Promise<void>;
  /** The newest record with this identifier (expired or not), or null. */
  findVerification(identifier: string): Promise<VerificationRecord | null>;
  /**
   * Deletes a record; true only for the one caller that deleted it, so a token is used at most once even
   * when two requests race with it.
   */
  consumeVerification(id: string): Promise<boolean>;
  /** Deletes every record of `value` whose identifier starts with `identifierPrefix`; returns how many. */
  deleteVerifications(identifierPrefix: string, value: string): Promise<number>;
  /** Queues a mail request (one insert). */
  enqueueMailRequest(request: Omit<MailRequestRecord, "attempts" | "leaseUntil">): Promise<void>;
  /** Up to `limit` requests due at `now` whose lease is free, oldest due first. */
  findDueMailRequests(now: Date, limit: number): Promise<MailRequestRecord[]>;
  /**
   * Takes the lease on a due request and counts the attempt, in one conditional UPDATE (lease free and still
   * at `seenAttempts`): true for the one caller that won it.
   */
  claimMailRequest(id: string, seenAttempts: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Frees the lease of a request held at `attempts` and schedules another attempt. */
  retryMailRequest(id: string, attempts: number, nextAttemptAt: Date): Promise<void>;
  /** Removes a processed (or abandoned) request. */
  deleteMailRequest(id: string): Promise<void>;
  /** Queues the end of every session of the user (with the user's copy), due after WRITER_DELIVERY_MS; safe before the user exists or after. */
  queueSessionRevocation(userId: string): Promise<void>;
  /** The user's outbox row, or null when the session service has been told everything. */
  findSessionOutbox(userId: string): Promise<SessionOutboxRecord | null>;
  /** Up to `limit` rows due at `now` whose lease is free, oldest due first. */
  findDueSessionOutbox(now: Date, limit: number): Promise<SessionOutboxRecord[]>;
  /** Takes the lease on a row still at `version` and counts the attempt: true for the one caller that won it. */
  claimSessionOutbox(userId: string, version: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Frees the lease and schedules the next attempt. */
  retrySessionOutbox(userId: string, nextAttemptAt: Date): Promise<void>;
  /** Removes the row if it is still at `version` (nothing was queued since it was read): true when removed. */
  clearSessionOutbox(userId: string, version: number): Promise<boolean>;
  /**
   * The user's undelivered events, oldest first. createUserWithAccount (a user created verified),
   * markEmailVerified and updateUser (to a verified address) write them, in the same transaction as the user.
   */
  findUserEvents(userId: string): Promise<UserEventRecord[]>;
  /** Up to `limit` events due at `now` whose lease is free, oldest due first. */
  findDueUserEvents(now: Date, limit: number): Promise<UserEventRecord[]>;
  /** Takes the lease on an event still at `seenAttempts` and counts the attempt: true for the one caller that won it. */
  claimUserEvent(id: string, seenAttempts: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Frees the lease of an event held at `attempts` and schedules another attempt. */
  retryUserEvent(id: string, attempts: number, nextAttemptAt: Date): Promise<void>;
  /** Removes a delivered event. */
  deleteUserEvent(id: string): Promise<void>;
  /**
   * Queues an event that records no write of the user (a sign-in failure burst), due after
   * WRITER_DELIVERY_MS; an id already queued writes nothing.
   */
  addUserEvent(event: Pick<UserEventRecord, "id" | "userId" | "type" | "payload" | "occurredAt">): Promise<void>;
  close(): Promise<void>;
}
