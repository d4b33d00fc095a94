/**
 * The AuditStore contract: one suite every backend must pass. The factory opens a fresh, migrated, empty
 * store; the suite closes it when done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { AuditRecord, AuditStore } from "./audit-store.js";

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

export function anEvent(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: newId(),
    action: "user.ban",
    actorId: "admin-1",
    impersonatorId: null,
    targetId: "user-1",
    at: new Date(T0),
    ipAddress: "203.0.113.7",
    userAgent: "Mozilla/5.0 (contract test)",
    outcome: "success",
    details: { reason: "spam" },
    ...overrides,
  };
}

export function auditStoreContract(backend: string, open: () => Promise<AuditStore>): void {
  describe(`AuditStore contract (${backend})`, () => {
    let store: AuditStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("stores a record as given and reads it back", async () => {
      const event = anEvent({ actorId: newId(), impersonatorId: "admin-2", details: { reason: "spam", count: 3 } });
      await store.append(event);
      const { records, total } = await store.list({ limit: 10, offset: 0, actorId: event.actorId! });
      expect(total).toBe(1);
      expect(records).toEqual([event]);
    });

    it("stores a record reported twice once", async () => {
      const event = anEvent({ actorId: newId() });
      await store.append(event);
      await store.append({ ...event, action: "changed" });
      const { records } = await store.list({ limit: 10, offset: 0, actorId: event.actorId! });
      expect(records.map((r) => r.action)).toEqual(["user.ban"]);
    });

    it("lists newest first, pages, and filters by action, actor, target and time", async () => {
      const actorId = newId();
      const events = [0, 1, 2, 3, 4].map((i) => anEvent({ actorId, action: i % 2 ? "user.unban" : "user.ban", targetId: `t${i}`, at: new Date(T0 + i * 1000) }));
      for (const event of events) await store.append(event);
      const page = await store.list({ limit: 2, offset: 1, actorId });
      expect(page.total).toBe(5);
      expect(page.records.map((r) => r.targetId)).toEqual(["t3", "t2"]);
      expect((await store.list({ limit: 10, offset: 0, actorId, action: "user.unban" })).records.map((r) => r.targetId)).toEqual(["t3", "t1"]);
      expect((await store.list({ limit: 10, offset: 0, actorId, targetId: "t4" })).total).toBe(1);
      const window = await store.list({ limit: 10, offset: 0, actorId, since: new Date(T0 + 1000), until: new Date(T0 + 3000) });
      expect(window.records.map((r) => r.targetId)).toEqual(["t2", "t1"]);
    });

    it("runs the admin changes given to its lock one at a time, in order, a failed one releasing it", async () => {
      const ran: string[] = [];
      let started!: () => void;
      const firstStarted = new Promise<void>((resolve) => (started = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = store.withAdminChangeLock(async () => {
        ran.push("first");
        started();
        await held;
        ran.push("first done");
        throw new Error("refused");
      });
      await firstStarted;
      const second = store.withAdminChangeLock(async () => {
        ran.push("second");
        return 2;
      });
      for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(ran).toEqual(["first"]);
      release();
      await expect(first).rejects.toThrow("refused");
      await expect(second).resolves.toBe(2);
      expect(ran).toEqual(["first", "first done", "second"]);
    });

    it("deletes what is older than the retention cut, nothing newer", async () => {
      const actorId = newId();
      await store.append(anEvent({ actorId, at: new Date(T0 - 86_400_000 * 400) }));
      await store.append(anEvent({ actorId, at: new Date(T0) }));
      const deleted = await store.deleteOlderThan(new Date(T0 - 86_400_000 * 365));
      expect(deleted).toBeGreaterThanOrEqual(1);
      const { records } = await store.list({ limit: 10, offset: 0, actorId });
      expect(records.map((r) => r.at.getTime())).toEqual([T0]);
    });
  });
}
