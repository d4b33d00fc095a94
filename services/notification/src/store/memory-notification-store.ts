/** The outbox in process memory: for unit tests of the domain, and the contract's reference backend. */
import { createMemoryWebhookStore } from "./memory-webhook-store.js";
import type { EraseOption, NotificationStore, OutboxRecord } from "./notification-store.js";

const erased = (options?: EraseOption) => (options?.eraseContent ? { text: "", html: "", links: [] } : {});

export function createMemoryNotificationStore(): NotificationStore {
  const rows = new Map<string, OutboxRecord>();
  const slots = new Map<string, Date[]>();
  const { clear: clearWebhooks, ...webhooks } = createMemoryWebhookStore();
  const copy = (row: OutboxRecord): OutboxRecord => ({ ...row, links: [...row.links] });
  const leaseFree = (row: OutboxRecord, now: Date) => row.leaseUntil === null || row.leaseUntil <= now;
  const owned = (id: string, owner: string) => {
    const row = rows.get(id);
    return row && row.status === "pending" && row.leaseOwner === owner ? row : undefined;
  };
  return {
    ...webhooks,
    async insert(message) {
      if (message.idempotencyKey) {
        for (const row of rows.values()) if (row.idempotencyKey === message.idempotencyKey) return { id: row.id, created: false };
      }
      rows.set(message.id, { ...message, links: [...message.links], status: "pending", attempts: 0, leaseUntil: null, leaseOwner: null, lastError: null, deliveredAt: null });
      return { id: message.id, created: true };
    },
    async findById(id) {
      const row = rows.get(id);
      return row ? copy(row) : null;
    },
    async findDue(now, limit) {
      return [...rows.values()]
        .filter((row) => row.status === "pending" && row.nextAttemptAt <= now && leaseFree(row, now))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map(copy);
    },
    async pendingStats() {
      const pending = [...rows.values()].filter((row) => row.status === "pending");
      const oldest = pending.reduce<Date | null>((min, row) => (!min || row.createdAt < min ? row.createdAt : min), null);
      return { count: pending.length, oldestCreatedAt: oldest && new Date(oldest) };
    },
    async claim(id, seenAttempts, owner, now, leaseUntil) {
      const row = rows.get(id);
      if (row?.status !== "pending" || row.attempts !== seenAttempts || !leaseFree(row, now)) return false;
      Object.assign(row, { attempts: seenAttempts + 1, leaseUntil, leaseOwner: owner });
      return true;
    },
    async markDelivered(id, at, options) {
      const row = rows.get(id);
      if (row && !row.deliveredAt) Object.assign(row, { status: "delivered", deliveredAt: at, leaseUntil: null, leaseOwner: null, lastError: null, ...erased(options) });
    },
    async scheduleRetry(id, owner, nextAttemptAt, error) {
      const row = owned(id, owner);
      if (row) Object.assign(row, { nextAttemptAt, leaseUntil: null, leaseOwner: null, lastError: error });
    },
    async markFailed(id, owner, error, options) {
      const row = owned(id, owner);
      if (row) Object.assign(row, { status: "failed", leaseUntil: null, leaseOwner: null, lastError: error, ...erased(options) });
    },
    async findByIdempotencyKey(key) {
      for (const row of rows.values()) if (row.idempotencyKey === key) return copy(row);
      return null;
    },
    async takeRecipientSlot(recipientKey, limit, now, freeBefore) {
      const used = slots.get(recipientKey) ?? [];
      slots.set(recipientKey, used);
      for (let slot = 0; slot < limit; slot++) {
        const last = used[slot];
        if (last === undefined || last <= freeBefore) {
          used[slot] = now;
          return true;
        }
      }
      return false;
    },
    async purgeRecipientSlots(before) {
      let purged = 0;
      for (const [key, used] of slots) {
        for (const [slot, at] of used.entries()) {
          if (at !== undefined && at <= before) {
            delete used[slot];
            purged++;
          }
        }
        if (used.every((at) => at === undefined)) slots.delete(key);
      }
      return purged;
    },
    async list({ recipient, limit }) {
      return [...rows.values()]
        .filter((row) => !recipient || row.recipient === recipient)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map(copy);
    },
    async close() {
      rows.clear();
      slots.clear();
      clearWebhooks();
    },
  };
}
