/**
 * The webhook tables on MikroORM (SQLite or PostgreSQL). Intake is one transaction per event: the event row
 * (its id the primary key, inserted "on conflict do nothing", so a redelivery stores nothing) and its
 * deliveries; every later state change is one conditional UPDATE, as in the mail outbox.
 */
import { newId } from "@auth-platform/runtime/random";
import type { Store } from "@auth-platform/runtime/store";
import { WebhookDeliveryEntity, type WebhookDeliveryRow, WebhookEndpointEntity, type WebhookEndpointRow, WebhookEventEntity } from "./entities.js";
import { queuedDelivery, type WebhookDeliveryRecord, type WebhookDeliveryStatus, type WebhookEndpointRecord, type WebhookStore } from "./webhook-store.js";

export const WEBHOOK_ENTITIES = [WebhookEndpointEntity, WebhookEventEntity, WebhookDeliveryEntity];

function toEndpoint(row: WebhookEndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.eventTypes) as string[],
    description: row.description,
    enabled: Boolean(row.enabled),
    sealedSecret: row.sealedSecret,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

function toDelivery(row: WebhookDeliveryRow): WebhookDeliveryRecord {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.nextAttemptAt),
    leaseUntil: row.leaseUntil ? new Date(row.leaseUntil) : null,
    leaseOwner: row.leaseOwner ?? null,
    lastResponseCode: row.lastResponseCode ?? null,
    lastError: row.lastError ?? null,
    createdAt: new Date(row.createdAt),
    deliveredAt: row.deliveredAt ? new Date(row.deliveredAt) : null,
  };
}

const leaseFree = (now: Date) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });

export function mikroWebhookStore(store: Store): WebhookStore {
  const owned = (id: string, owner: string) => ({ id, status: "pending", leaseOwner: owner });
  return {
    async createEndpoint(endpoint) {
      await store.em().insert(WebhookEndpointEntity, { ...endpoint, eventTypes: JSON.stringify(endpoint.eventTypes) });
    },
    async findEndpoint(id) {
      const row = await store.em().findOne(WebhookEndpointEntity, { id });
      return row ? toEndpoint(row) : null;
    },
    async listEndpoints() {
      const rows = await store.em().find(WebhookEndpointEntity, {}, { orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
      return rows.map(toEndpoint);
    },
    async updateEndpoint(id, patch) {
      const { eventTypes, ...rest } = patch;
      const columns = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      const changed = await store.em().nativeUpdate(WebhookEndpointEntity, { id }, { ...columns, ...(eventTypes ? { eventTypes: JSON.stringify(eventTypes) } : {}) });
      if (!changed) return null;
      const row = await store.em().findOne(WebhookEndpointEntity, { id });
      return row ? toEndpoint(row) : null;
    },
    async deleteEndpoint(id) {
      return store.em().transactional(async (em) => {
        await em.nativeDelete(WebhookDeliveryEntity, { endpointId: id });
        return (await em.nativeDelete(WebhookEndpointEntity, { id })) > 0;
      });
    },
    async receiveEvents(events, now, options) {
      if (events.length === 0) return [];
      return store.em().transactional(async (em) => {
        // The endpoints are read once for the batch, inside its transaction.
        const wanted = options?.onlyEndpointId ? { id: options.onlyEndpointId } : { enabled: true };
        const endpoints = (await em.find(WebhookEndpointEntity, wanted, { orderBy: { createdAt: "asc" } })).map(toEndpoint);
        const answers: Array<WebhookDeliveryRecord[] | null> = [];
        const queued: WebhookDeliveryRecord[] = [];
        for (const event of events) {
          const inserted = await em.createQueryBuilder(WebhookEventEntity).insert(event).onConflict("id").ignore().execute("run");
          if (inserted.affectedRows !== 1) {
            answers.push(null);
            continue;
          }
          const deliveries: WebhookDeliveryRecord[] = endpoints
            .filter((e) => options?.onlyEndpointId || e.eventTypes.includes(event.type))
            .map((e) => queuedDelivery(newId(), e.id, event, now));
          queued.push(...deliveries);
          answers.push(deliveries);
        }
        if (queued.length) await em.insertMany(WebhookDeliveryEntity, queued);
        return answers;
      });
    },
    async findEvent(id) {
      const row = await store.em().findOne(WebhookEventEntity, { id });
      return row ? { id: row.id, type: row.type, occurredAt: new Date(row.occurredAt), payload: row.payload, receivedAt: new Date(row.receivedAt) } : null;
    },
    async findDelivery(id) {
      const row = await store.em().findOne(WebhookDeliveryEntity, { id });
      return row ? toDelivery(row) : null;
    },
    async findDueDeliveries(now, limit) {
      const rows = await store
        .em()
        .find(WebhookDeliveryEntity, { status: "pending", nextAttemptAt: { $lte: now }, ...leaseFree(now) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toDelivery);
    },
    async listDeliveries(endpointId, limit) {
      const rows = await store.em().find(WebhookDeliveryEntity, { endpointId }, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit });
      return rows.map(toDelivery);
    },
    async claimDelivery(id, seenAttempts, owner, now, leaseUntil) {
      const changed = await store
        .em()
        .nativeUpdate(WebhookDeliveryEntity, { id, status: "pending", attempts: seenAttempts, ...leaseFree(now) }, { attempts: seenAttempts + 1, leaseUntil, leaseOwner: owner });
      return changed === 1;
    },
    async markDeliveryDelivered(id, owner, at, responseCode) {
      await store.em().nativeUpdate(WebhookDeliveryEntity, owned(id, owner), {
        status: "delivered",
        deliveredAt: at,
        leaseUntil: null,
        leaseOwner: null,
        lastResponseCode: responseCode,
        lastError: null,
      });
    },
    async scheduleDeliveryRetry(id, owner, nextAttemptAt, outcome) {
      await store.em().nativeUpdate(WebhookDeliveryEntity, owned(id, owner), {
        nextAttemptAt,
        leaseUntil: null,
        leaseOwner: null,
        lastResponseCode: outcome.responseCode,
        lastError: outcome.error,
      });
    },
    async markDeliveryDead(id, owner, outcome) {
      await store.em().nativeUpdate(WebhookDeliveryEntity, owned(id, owner), {
        status: "dead",
        leaseUntil: null,
        leaseOwner: null,
        lastResponseCode: outcome.responseCode,
        lastError: outcome.error,
      });
    },
    async resendDelivery(id, now) {
      const changed = await store
        .em()
        .nativeUpdate(
          WebhookDeliveryEntity,
          { id, status: { $in: ["delivered", "dead"] } },
          { status: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, leaseOwner: null, deliveredAt: null },
        );
      if (!changed) return null;
      const row = await store.em().findOne(WebhookDeliveryEntity, { id });
      return row ? toDelivery(row) : null;
    },
  };
}
