/** The outbox store contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { NewOutboxMessage, NotificationStore } from "./notification-store.js";

const T0 = new Date("2030-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** A pending message fixture. */
export function aMessage(overrides: Partial<NewOutboxMessage> = {}): NewOutboxMessage {
  return {
    id: newId(),
    idempotencyKey: null,
    recipient: "ada@example.com",
    template: "password-reset",
    subject: "Reset your password",
    text: "text body",
    html: "<p>html body</p>",
    links: ["https://example.com/reset?token=abc"],
    nextAttemptAt: T0,
    createdAt: T0,
    ...overrides,
  };
}

/** The factory opens a fresh, migrated, empty store; closing it drops whatever it sits on. */
export function notificationStoreContract(backend: string, open: () => Promise<NotificationStore>): void {
  describe(`NotificationStore contract (${backend})`, () => {
    let store: NotificationStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it("stores a pending message and reads it back", async () => {
      const message = aMessage({ idempotencyKey: "k1" });
      expect(await store.insert(message)).toEqual({ id: message.id, created: true });
      const found = await store.findById(message.id);
      expect(found).toEqual({ ...message, status: "pending", attempts: 0, leaseUntil: null, leaseOwner: null, lastError: null, deliveredAt: null });
      expect(found!.createdAt).toBeInstanceOf(Date);
      expect(await store.findById("missing")).toBeNull();
    });

    it("stores one message per idempotency key, even under concurrent inserts, and any number without a key", async () => {
      const first = aMessage({ idempotencyKey: "same" });
      expect((await store.insert(first)).created).toBe(true);
      const again = await store.insert(aMessage({ idempotencyKey: "same" }));
      expect(again).toEqual({ id: first.id, created: false });

      const racers = Array.from({ length: 5 }, () => aMessage({ idempotencyKey: "race" }));
      const results = await Promise.all(racers.map((m) => store.insert(m)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id)).size).toBe(1);

      await store.insert(aMessage());
      await store.insert(aMessage());
      expect(await store.list({ limit: 50 })).toHaveLength(4);
    });

    it("finds due messages only: pending, due, lease free; oldest due first", async () => {
      const late = aMessage({ nextAttemptAt: at(10) });
      const early = aMessage({ nextAttemptAt: at(0) });
      const future = aMessage({ nextAttemptAt: at(100) });
      for (const m of [late, early, future]) await store.insert(m);
      expect((await store.findDue(at(10), 10)).map((m) => m.id)).toEqual([early.id, late.id]);
      expect((await store.findDue(at(10), 1)).map((m) => m.id)).toEqual([early.id]);

      expect(await store.claim(early.id, 0, "w1", at(10), at(70))).toBe(true);
      expect((await store.findDue(at(10), 10)).map((m) => m.id)).toEqual([late.id]);
      // Past the lease, the message is due again (its worker is presumed dead).
      expect((await store.findDue(at(70), 10)).map((m) => m.id)).toEqual([early.id, late.id]);

      await store.markDelivered(late.id, at(11));
      expect((await store.findDue(at(1000), 10)).map((m) => m.id)).toEqual([early.id, future.id]);
    });

    it("counts the pending messages and finds when the oldest was queued, for the outbox metrics", async () => {
      expect(await store.pendingStats()).toEqual({ count: 0, oldestCreatedAt: null });
      const older = aMessage({ createdAt: at(3) });
      const newer = aMessage({ createdAt: at(7) });
      const sent = aMessage({ createdAt: at(1) });
      for (const m of [newer, older, sent]) await store.insert(m);
      await store.markDelivered(sent.id, at(8));
      expect(await store.pendingStats()).toEqual({ count: 2, oldestCreatedAt: at(3) });
    });

    it("lets exactly one of many concurrent claims win, and counts the attempt", async () => {
      const message = aMessage();
      await store.insert(message);
      const wins = await Promise.all(Array.from({ length: 6 }, (_, i) => store.claim(message.id, 0, `w${i}`, at(1), at(61))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const claimed = await store.findById(message.id);
      expect(claimed).toMatchObject({ attempts: 1, leaseUntil: at(61), status: "pending" });
      expect(claimed!.leaseOwner).toBe(`w${wins.indexOf(true)}`);
      // Held: no one else; stale attempt count: no one either.
      expect(await store.claim(message.id, 1, "other", at(30), at(90))).toBe(false);
      expect(await store.claim(message.id, 0, "other", at(61), at(121))).toBe(false);
      // Expired: taken over.
      expect(await store.claim(message.id, 1, "other", at(61), at(121))).toBe(true);
      expect(await store.findById(message.id)).toMatchObject({ attempts: 2, leaseOwner: "other" });
    });

    it("schedules a retry or gives up only for the lease owner", async () => {
      const message = aMessage();
      await store.insert(message);
      await store.claim(message.id, 0, "w1", at(0), at(60));
      await store.scheduleRetry(message.id, "intruder", at(5), "nope");
      expect(await store.findById(message.id)).toMatchObject({ leaseOwner: "w1", lastError: null });

      await store.scheduleRetry(message.id, "w1", at(5), "connection refused");
      expect(await store.findById(message.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: at(5),
        leaseUntil: null,
        leaseOwner: null,
        lastError: "connection refused",
      });
      expect(await store.findDue(at(4), 10)).toEqual([]);
      expect(await store.findDue(at(5), 10)).toHaveLength(1);

      await store.claim(message.id, 1, "w2", at(5), at(65));
      await store.markFailed(message.id, "w1", "stale");
      expect((await store.findById(message.id))!.status).toBe("pending");
      await store.markFailed(message.id, "w2", "550 no such user");
      expect(await store.findById(message.id)).toMatchObject({ status: "failed", attempts: 2, leaseOwner: null, lastError: "550 no such user" });
      expect(await store.findDue(at(1000), 10)).toEqual([]);
    });

    it("records delivery once", async () => {
      const message = aMessage();
      await store.insert(message);
      await store.claim(message.id, 0, "w1", at(0), at(60));
      await store.markDelivered(message.id, at(2));
      await store.markDelivered(message.id, at(9));
      expect(await store.findById(message.id)).toMatchObject({ status: "delivered", deliveredAt: at(2), attempts: 1, leaseUntil: null, leaseOwner: null });
      expect(await store.claim(message.id, 1, "w2", at(100), at(160))).toBe(false);
    });

    it("erases bodies and links on request, keeping what an operator needs", async () => {
      const delivered = aMessage();
      const kept = aMessage();
      const failed = aMessage();
      for (const m of [delivered, kept, failed]) {
        await store.insert(m);
        await store.claim(m.id, 0, "w1", at(0), at(60));
      }
      await store.markDelivered(delivered.id, at(1), { eraseContent: true });
      await store.markDelivered(kept.id, at(1));
      await store.markFailed(failed.id, "w1", "550", { eraseContent: true });
      for (const id of [delivered.id, failed.id]) {
        expect(await store.findById(id)).toMatchObject({ text: "", html: "", links: [], subject: delivered.subject, recipient: delivered.recipient, template: delivered.template });
      }
      expect(await store.findById(kept.id)).toMatchObject({ text: kept.text, html: kept.html, links: kept.links });
    });

    it("lists newest first, by recipient, up to a limit", async () => {
      const a1 = aMessage({ recipient: "a@example.com", createdAt: at(1) });
      const b1 = aMessage({ recipient: "b@example.com", createdAt: at(2) });
      const a2 = aMessage({ recipient: "a@example.com", createdAt: at(3) });
      for (const m of [a1, b1, a2]) await store.insert(m);
      expect((await store.list({ limit: 50 })).map((m) => m.id)).toEqual([a2.id, b1.id, a1.id]);
      expect((await store.list({ recipient: "a@example.com", limit: 50 })).map((m) => m.id)).toEqual([a2.id, a1.id]);
      expect((await store.list({ recipient: "a@example.com", limit: 1 })).map((m) => m.id)).toEqual([a2.id]);
      expect(await store.list({ recipient: "nobody@example.com", limit: 50 })).toEqual([]);
    });

    it("finds a message by its idempotency key", async () => {
      const message = aMessage({ idempotencyKey: "key-1" });
      await store.insert(message);
      expect((await store.findByIdempotencyKey("key-1"))?.id).toBe(message.id);
      expect(await store.findByIdempotencyKey("key-2")).toBeNull();
    });

    it("gives a recipient at most `limit` slots per window, frees each a window after its use, keys apart", async () => {
      const window = 900;
      const take = (key: string, seconds: number, limit = 3) => store.takeRecipientSlot(key, limit, at(seconds), at(seconds - window));
      expect([await take("r1", 0), await take("r1", 10), await take("r1", 20), await take("r1", 30)]).toEqual([true, true, true, false]);
      expect(await take("r2", 30)).toBe(true);
      expect(await take("r1", 899)).toBe(false);
      // A window after the first use, one slot is free again (sliding: the others follow at 910 and 920).
      expect(await take("r1", 900)).toBe(true);
      expect(await take("r1", 905)).toBe(false);
      expect(await take("r1", 910)).toBe(true);
      // A lower limit counts only the first slots; a higher one opens new slots.
      expect(await take("r1", 2000, 1)).toBe(true);
      expect(await take("r1", 2000, 1)).toBe(false);
      expect(await take("r1", 2000, 4)).toBe(true);
    });

    it("purges slots free for a window, which changes no answer", async () => {
      const take = (key: string, seconds: number) => store.takeRecipientSlot(key, 2, at(seconds), at(seconds - 900));
      expect([await take("p1", 0), await take("p1", 100), await take("p2", 500)]).toEqual([true, true, true]);
      expect(await store.purgeRecipientSlots(at(100))).toBe(2);
      expect(await store.purgeRecipientSlots(at(100))).toBe(0);
      // p1 is free again (both its slots were a window old by 1000), p2 keeps its one use.
      expect([await take("p1", 1000), await take("p1", 1000), await take("p1", 1000)]).toEqual([true, true, false]);
      expect([await take("p2", 1000), await take("p2", 1000)]).toEqual([true, false]);
    });

    it("lets no more than `limit` of many concurrent takers through", async () => {
      const results = await Promise.all(Array.from({ length: 12 }, () => store.takeRecipientSlot("race", 5, at(0), at(-900))));
      expect(results.filter(Boolean)).toHaveLength(5);
      const later = await Promise.all(Array.from({ length: 12 }, () => store.takeRecipientSlot("race", 5, at(900), at(0))));
      expect(later.filter(Boolean)).toHaveLength(5);
    });
  });
}
