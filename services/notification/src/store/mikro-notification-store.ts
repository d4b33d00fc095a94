/**
 * The outbox on MikroORM (SQLite or PostgreSQL). Every state change is one conditional UPDATE whose WHERE
 * clause carries the precondition (pending, lease free, attempts as seen, lease token), so concurrent
 * workers on several replicas never both win: the database decides, and the loser sees 0 rows changed.
 */
import { isUniqueViolation, openStore } from "@auth-platform/runtime/store";
import type { TemplateName } from "../templates/index.js";
import { OutboxMessageEntity, type OutboxMessageRow, RecipientSlotEntity } from "./entities.js";
import { notificationMigrations } from "./migrations.js";
import { mikroWebhookStore, WEBHOOK_ENTITIES } from "./mikro-webhook-store.js";
import type { EraseOption, MessageStatus, NotificationStore, OutboxRecord } from "./notification-store.js";

function toRecord(row: OutboxMessageRow): OutboxRecord {
  return {
    id: row.id,
    idempotencyKey: row.idempotencyKey ?? null,
    recipient: row.recipient,
    template: row.template as TemplateName,
    subject: row.subject,
    text: row.textBody,
    html: row.htmlBody,
    links: JSON.parse(row.links) as string[],
    status: row.status as MessageStatus,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil ?? null,
    leaseOwner: row.leaseOwner ?? null,
    lastError: row.lastError ?? null,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt ?? null,
  };
}

const erased = (options?: EraseOption) => (options?.eraseContent ? { textBody: "", htmlBody: "", links: "[]" } : {});
const leaseFree = (now: Date) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });

export async function openNotificationStore(url: string): Promise<NotificationStore> {
  const store = await openStore({ url, entities: [OutboxMessageEntity, RecipientSlotEntity, ...WEBHOOK_ENTITIES], migrations: notificationMigrations });
  return {
    ...mikroWebhookStore(store),
    async insert(message) {
      try {
        await store.em().insert(OutboxMessageEntity, {
          id: message.id,
          idempotencyKey: message.idempotencyKey,
          recipient: message.recipient,
          template: message.template,
          subject: message.subject,
          textBody: message.text,
          htmlBody: message.html,
          links: JSON.stringify(message.links),
          status: "pending",
          attempts: 0,
          nextAttemptAt: message.nextAttemptAt,
          leaseUntil: null,
          leaseOwner: null,
          lastError: null,
          createdAt: message.createdAt,
          deliveredAt: null,
        });
        return { id: message.id, created: true };
      } catch (error) {
        if (!message.idempotencyKey || !isUniqueViolation(error)) throw error;
        const existing = await store.em().findOne(OutboxMessageEntity, { idempotencyKey: message.idempotencyKey });
        if (!existing) throw error;
        return { id: existing.id, created: false };
      }
    },
    async findById(id) {
      const row = await store.em().findOne(OutboxMessageEntity, { id });
      return row ? toRecord(row) : null;
    },
    async findDue(now, limit) {
      const rows = await store.em().find(OutboxMessageEntity, { status: "pending", nextAttemptAt: { $lte: now }, ...leaseFree(now) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toRecord);
    },
    async pendingStats() {
      const em = store.em();
      const count = await em.count(OutboxMessageEntity, { status: "pending" });
      const [oldest] = count ? await em.find(OutboxMessageEntity, { status: "pending" }, { orderBy: { createdAt: "asc" }, limit: 1, fields: ["createdAt"] }) : [];
      return { count, oldestCreatedAt: oldest ? new Date(oldest.createdAt) : null };
    },
    async claim(id, seenAttempts, owner, now, leaseUntil) {
      const changed = await store
        .em()
        .nativeUpdate(OutboxMessageEntity, { id, status: "pending", attempts: seenAttempts, ...leaseFree(now) }, { attempts: seenAttempts + 1, leaseUntil, leaseOwner: owner });
      return changed === 1;
    },
    async markDelivered(id, at, options) {
      await store
        .em()
        .nativeUpdate(
          OutboxMessageEntity,
          { id, deliveredAt: null },
          { status: "delivered", deliveredAt: at, leaseUntil: null, leaseOwner: null, lastError: null, ...erased(options) },
        );
    },
    async scheduleRetry(id, owner, nextAttemptAt, error) {
      await store.em().nativeUpdate(OutboxMessageEntity, { id, status: "pending", leaseOwner: owner }, { nextAttemptAt, leaseUntil: null, leaseOwner: null, lastError: error });
    },
    async markFailed(id, owner, error, options) {
      await store
        .em()
        .nativeUpdate(
          OutboxMessageEntity,
          { id, status: "pending", leaseOwner: owner },
          { status: "failed", leaseUntil: null, leaseOwner: null, lastError: error, ...erased(options) },
        );
    },
    async findByIdempotencyKey(key) {
      const row = await store.em().findOne(OutboxMessageEntity, { idempotencyKey: key });
      return row ? toRecord(row) : null;
    },
    async takeRecipientSlot(recipientKey, limit, now, freeBefore) {
      const em = store.em();
      const used = new Map((await em.find(RecipientSlotEntity, { recipientKey })).map((row) => [row.slot, row.usedAt]));
      // A new slot: the primary key lets one racer create it.
      const create = async (slot: number) => {
        try {
          await em.insert(RecipientSlotEntity, { recipientKey, slot, usedAt: now });
          return true;
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          return false;
        }
      };
      for (let slot = 0; slot < limit; slot++) {
        const last = used.get(slot);
        if (last === undefined) {
          if (await create(slot)) return true;
        } else if (last <= freeBefore) {
          // A free slot: the conditional UPDATE lets one racer take it (the loser sees 0 rows changed); a
          // slot purged meanwhile is created again.
          if ((await em.nativeUpdate(RecipientSlotEntity, { recipientKey, slot, usedAt: { $lte: freeBefore } }, { usedAt: now })) === 1) return true;
          if (await create(slot)) return true;
        }
      }
      return false;
    },
    async purgeRecipientSlots(before) {
      return store.em().nativeDelete(RecipientSlotEntity, { usedAt: { $lte: before } });
    },
    async list({ recipient, limit }) {
      const rows = await store.em().find(OutboxMessageEntity, recipient ? { recipient } : {}, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit });
      return rows.map(toRecord);
    },
    close: () => store.close(),
  };
}
