/**
 * The outbox store port. A message is written here before any delivery is tried; the delivery worker then
 * leases it, sends it, and records the outcome. Leases make a message owned by one worker at a time, across
 * replicas sharing the database.
 */
import type { TemplateName } from "../templates/index.js";
import type { WebhookStore } from "./webhook-store.js";

export type MessageStatus = "pending" | "delivered" | "failed";

export interface OutboxRecord {
  id: string;
  /** Caller-chosen key; a second message with the same key is never stored. Null when none was given. */
  idempotencyKey: string | null;
  recipient: string;
  template: TemplateName;
  subject: string;
  text: string;
  html: string;
  links: string[];
  status: MessageStatus;
  /** Delivery attempts started so far (a leased message counts its current attempt). */
  attempts: number;
  /** Earliest time of the next attempt while pending. */
  nextAttemptAt: Date;
  /** While set and in the future, the message belongs to leaseOwner. */
  leaseUntil: Date | null;
  leaseOwner: string | null;
  /** The last failure, for operators (no message content). */
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export type NewOutboxMessage = Omit<OutboxRecord, "status" | "attempts" | "leaseUntil" | "leaseOwner" | "lastError" | "deliveredAt">;

export interface EraseOption {
  eraseContent?: boolean;
}

/** The outbox, and the webhook tables beside it in the same database (webhook-store.ts). */
export interface NotificationStore extends WebhookStore {
  /** Stores a pending message; when its idempotency key is taken, stores nothing and returns the first's id. */
  insert(message: NewOutboxMessage): Promise<{ id: string; created: boolean }>;
  findById(id: string): Promise<OutboxRecord | null>;
  /** Up to `limit` pending messages due at `now` whose lease is free, oldest due first. */
  findDue(now: Date, limit: number): Promise<OutboxRecord[]>;
  /** Messages still pending (due or not) and when the oldest of them was queued (null when none): metrics. */
  pendingStats(): Promise<{ count: number; oldestCreatedAt: Date | null }>;
  /**
   * Takes the lease on a due message and counts the attempt, atomically: one conditional UPDATE that changes
   * the row only while it is pending, unleased (or its lease expired) and still at `seenAttempts`. True when
   * this caller now owns the message; false when another worker got there first.
   */
  claim(id: string, seenAttempts: number, owner: string, now: Date, leaseUntil: Date): Promise<boolean>;
  /**
   * Records delivery and frees the lease. A message is delivered once: a second call changes nothing.
   * eraseContent empties the bodies and links (they may hold live reset links and sign-in codes).
   */
  markDelivered(id: string, at: Date, options?: EraseOption): Promise<void>;
  /** Frees the owner's lease and schedules another attempt (no-op if the owner lost the lease). */
  scheduleRetry(id: string, owner: string, nextAttemptAt: Date, error: string): Promise<void>;
  /** Frees the owner's lease and gives up on the message for good (no-op if the owner lost the lease). */
  markFailed(id: string, owner: string, error: string, options?: EraseOption): Promise<void>;
  /** The message stored under this idempotency key, or null. */
  findByIdempotencyKey(key: string): Promise<OutboxRecord | null>;
  /**
   * Takes one of a recipient's `limit` send slots, atomically across replicas: a slot is free when it was
   * never used or last used at or before `freeBefore`, and taking it stamps it with `now`. False when all are
   * taken, i.e. the recipient already got `limit` messages since `freeBefore`. `recipientKey` is a hash of
   * the address, so the table holds no address.
   */
  takeRecipientSlot(recipientKey: string, limit: number, now: Date, freeBefore: Date): Promise<boolean>;
  /** Deletes slots last used at or before `before` (free anyway); returns how many. */
  purgeRecipientSlots(before: Date): Promise<number>;
  /** Kept messages, newest first, optionally only those to one address. */
  list(options: { recipient?: string; limit: number }): Promise<OutboxRecord[]>;
  close(): Promise<void>;
}
