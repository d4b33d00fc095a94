/** The webhook store contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { NotificationStore } from "./notification-store.js";
import type { WebhookEndpointRecord, WebhookEventRecord } from "./webhook-store.js";

const T0 = new Date("2030-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function anEndpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: newId(),
    url: "https://hooks.example.com/in",
    eventTypes: ["user.created"],
    description: "",
    enabled: true,
    sealedSecret: "sealed",
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function anEvent(overrides: Partial<WebhookEventRecord> = {}): WebhookEventRecord {
  return { id: newId(), type: "user.created", occurredAt: T0, payload: '{"user":{"id":"u1"}}', receivedAt: T0, ...overrides };
}

export function webhookStoreContract(backend: string, open: () => Promise<NotificationStore>): void {
  describe(`WebhookStore contract (${backend})`, () => {
    let store: NotificationStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it("stores, lists (newest first), updates and deletes endpoints", async () => {
      const older = anEndpoint();
      const newer = anEndpoint({ createdAt: at(1), updatedAt: at(1), eventTypes: ["user.created", "user.deleted"] });
      await store.createEndpoint(older);
      await store.createEndpoint(newer);
      expect(await store.findEndpoint(newer.id)).toEqual(newer);
      expect((await store.listEndpoints()).map((e) => e.id)).toEqual([newer.id, older.id]);
      const updated = await store.updateEndpoint(older.id, { enabled: false, eventTypes: ["user.banned"], updatedAt: at(5) });
      expect(updated).toEqual({ ...older, enabled: false, eventTypes: ["user.banned"], updatedAt: at(5) });
      expect(await store.updateEndpoint("missing", { enabled: true, updatedAt: at(5) })).toBeNull();
      expect(await store.deleteEndpoint(older.id)).toBe(true);
      expect(await store.deleteEndpoint(older.id)).toBe(false);
      expect(await store.findEndpoint(older.id)).toBeNull();
    });

    it("stores an event once and queues one delivery per enabled endpoint subscribed to its type", async () => {
      const subscribed = anEndpoint();
      const other = anEndpoint({ eventTypes: ["user.deleted"] });
      const disabled = anEndpoint({ enabled: false });
      for (const e of [subscribed, other, disabled]) await store.createEndpoint(e);
      const event = anEvent();
      const [queued] = await store.receiveEvents([event], at(2));
      expect(queued).toEqual([
        expect.objectContaining({ endpointId: subscribed.id, eventId: event.id, eventType: "user.created", status: "pending", attempts: 0, nextAttemptAt: at(2) }),
      ]);
      expect(await store.findEvent(event.id)).toEqual(event);
      // The same event again, even concurrently: nothing more.
      const again = await Promise.all([store.receiveEvents([event], at(3)), store.receiveEvents([{ ...event, payload: "{}" }], at(3))]);
      expect(again).toEqual([[null], [null]]);
      expect(await store.listDeliveries(subscribed.id, 10)).toHaveLength(1);
      expect(await store.listDeliveries(disabled.id, 10)).toEqual([]);
      // A test event to one endpoint only, whatever it subscribes to.
      const [test] = await store.receiveEvents([anEvent({ type: "webhook.test" })], at(4), { onlyEndpointId: other.id });
      expect(test?.map((d) => d.endpointId)).toEqual([other.id]);
    });

    it("stores a batch of events at once: each new one with its deliveries, a repeated id (stored before or earlier in the batch) with none", async () => {
      const subscribed = anEndpoint();
      await store.createEndpoint(subscribed);
      const stored = anEvent();
      await store.receiveEvents([stored], at(0));
      const [first, second] = [anEvent(), anEvent({ type: "user.deleted" })];
      const answers = await store.receiveEvents([first, stored, second, { ...first, payload: "{}" }], at(1));
      expect(answers).toEqual([[expect.objectContaining({ endpointId: subscribed.id, eventId: first.id, nextAttemptAt: at(1) })], null, [], null]);
      expect(await store.findEvent(first.id)).toEqual(first);
      expect(await store.findEvent(second.id)).toEqual(second);
      expect((await store.listDeliveries(subscribed.id, 10)).map((d) => d.eventId).sort()).toEqual([stored.id, first.id].sort());
      expect(await store.receiveEvents([], at(2))).toEqual([]);
    });

    it("leases a due delivery to one worker, retries, dead-letters and resends it", async () => {
      const endpoint = anEndpoint();
      await store.createEndpoint(endpoint);
      const [delivery] = (await store.receiveEvents([anEvent()], at(0)))[0]!;
      expect((await store.findDueDeliveries(at(0), 10)).map((d) => d.id)).toEqual([delivery!.id]);
      const claims = await Promise.all([store.claimDelivery(delivery!.id, 0, "a", at(0), at(60)), store.claimDelivery(delivery!.id, 0, "b", at(0), at(60))]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const owner = claims[0] ? "a" : "b";
      expect(await store.findDueDeliveries(at(1), 10)).toEqual([]);
      // Another owner's bookkeeping changes nothing.
      await store.scheduleDeliveryRetry(delivery!.id, "intruder", at(9), { responseCode: 500, error: "x" });
      await store.scheduleDeliveryRetry(delivery!.id, owner, at(10), { responseCode: 503, error: "HTTP 503" });
      expect(await store.findDelivery(delivery!.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: at(10),
        leaseOwner: null,
        lastResponseCode: 503,
        lastError: "HTTP 503",
      });
      expect(await store.findDueDeliveries(at(9), 10)).toEqual([]);
      expect(await store.claimDelivery(delivery!.id, 1, "c", at(10), at(70))).toBe(true);
      await store.markDeliveryDead(delivery!.id, "c", { responseCode: null, error: "ECONNREFUSED" });
      expect(await store.findDelivery(delivery!.id)).toMatchObject({ status: "dead", attempts: 2, lastResponseCode: null, lastError: "ECONNREFUSED" });
      expect(await store.findDueDeliveries(at(100), 10)).toEqual([]);

      expect(await store.resendDelivery(delivery!.id, at(200))).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: at(200) });
      // Pending already: not resent twice.
      expect(await store.resendDelivery(delivery!.id, at(201))).toBeNull();
      expect(await store.resendDelivery("missing", at(201))).toBeNull();
      expect(await store.claimDelivery(delivery!.id, 0, "d", at(200), at(260))).toBe(true);
      await store.markDeliveryDelivered(delivery!.id, "d", at(201), 204);
      expect(await store.findDelivery(delivery!.id)).toMatchObject({ status: "delivered", attempts: 1, lastResponseCode: 204, lastError: null, deliveredAt: at(201) });
    });

    it("deleting an endpoint removes its deliveries", async () => {
      const endpoint = anEndpoint();
      await store.createEndpoint(endpoint);
      const [delivery] = (await store.receiveEvents([anEvent()], at(0)))[0]!;
      await store.deleteEndpoint(endpoint.id);
      expect(await store.findDelivery(delivery!.id)).toBeNull();
    });
  });
}
