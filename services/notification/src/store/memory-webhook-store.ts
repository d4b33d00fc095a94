/** The webhook tables in process memory: for domain tests, and the contract's reference backend. */
import { newId } from "@auth-platform/runtime/random";
import { queuedDelivery, type WebhookDeliveryRecord, type WebhookEndpointRecord, type WebhookEventRecord, type WebhookStore } from "./webhook-store.js";

export function createMemoryWebhookStore(): WebhookStore & { clear(): void } {
  const endpoints = new Map<string, WebhookEndpointRecord>();
  const events = new Map<string, WebhookEventRecord>();
  const deliveries = new Map<string, WebhookDeliveryRecord>();
  const copyEndpoint = (e: WebhookEndpointRecord): WebhookEndpointRecord => ({ ...e, eventTypes: [...e.eventTypes] });
  const leaseFree = (d: WebhookDeliveryRecord, now: Date) => d.leaseUntil === null || d.leaseUntil <= now;
  const owned = (id: string, owner: string) => {
    const d = deliveries.get(id);
    return d && d.status === "pending" && d.leaseOwner === owner ? d : undefined;
  };
  const newestFirst = <T extends { createdAt: Date; id: string }>(a: T, b: T) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);
  const receive = (event: WebhookEventRecord, now: Date, options?: { onlyEndpointId?: string }): WebhookDeliveryRecord[] | null => {
    if (events.has(event.id)) return null;
    events.set(event.id, { ...event });
    const queued: WebhookDeliveryRecord[] = [];
    for (const e of [...endpoints.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())) {
      const wanted = options?.onlyEndpointId ? e.id === options.onlyEndpointId : e.enabled && e.eventTypes.includes(event.type);
      if (!wanted) continue;
      const delivery = queuedDelivery(newId(), e.id, event, now);
      deliveries.set(delivery.id, delivery);
      queued.push({ ...delivery });
    }
    return queued;
  };

  return {
    async createEndpoint(endpoint) {
      endpoints.set(endpoint.id, copyEndpoint(endpoint));
    },
    async findEndpoint(id) {
      const e = endpoints.get(id);
      return e ? copyEndpoint(e) : null;
    },
    async listEndpoints() {
      return [...endpoints.values()].sort(newestFirst).map(copyEndpoint);
    },
    async updateEndpoint(id, patch) {
      const e = endpoints.get(id);
      if (!e) return null;
      const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      Object.assign(e, changes, patch.eventTypes ? { eventTypes: [...patch.eventTypes] } : {});
      return copyEndpoint(e);
    },
    async deleteEndpoint(id) {
      if (!endpoints.delete(id)) return false;
      for (const [key, d] of deliveries) if (d.endpointId === id) deliveries.delete(key);
      return true;
    },
    async receiveEvents(received, now, options) {
      return received.map((event) => receive(event, now, options));
    },
    async findEvent(id) {
      const e = events.get(id);
      return e ? { ...e } : null;
    },
    async findDelivery(id) {
      const d = deliveries.get(id);
      return d ? { ...d } : null;
    },
    async findDueDeliveries(now, limit) {
      return [...deliveries.values()]
        .filter((d) => d.status === "pending" && d.nextAttemptAt <= now && leaseFree(d, now))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map((d) => ({ ...d }));
    },
    async listDeliveries(endpointId, limit) {
      return [...deliveries.values()]
        .filter((d) => d.endpointId === endpointId)
        .sort(newestFirst)
        .slice(0, limit)
        .map((d) => ({ ...d }));
    },
    async claimDelivery(id, seenAttempts, owner, now, leaseUntil) {
      const d = deliveries.get(id);
      if (d?.status !== "pending" || d.attempts !== seenAttempts || !leaseFree(d, now)) return false;
      Object.assign(d, { attempts: seenAttempts + 1, leaseUntil, leaseOwner: owner });
      return true;
    },
    async markDeliveryDelivered(id, owner, at, responseCode) {
      const d = owned(id, owner);
      if (d) Object.assign(d, { status: "delivered", deliveredAt: at, leaseUntil: null, leaseOwner: null, lastResponseCode: responseCode, lastError: null });
    },
    async scheduleDeliveryRetry(id, owner, nextAttemptAt, outcome) {
      const d = owned(id, owner);
      if (d) Object.assign(d, { nextAttemptAt, leaseUntil: null, leaseOwner: null, lastResponseCode: outcome.responseCode, lastError: outcome.error });
    },
    async markDeliveryDead(id, owner, outcome) {
      const d = owned(id, owner);
      if (d) Object.assign(d, { status: "dead", leaseUntil: null, leaseOwner: null, lastResponseCode: outcome.responseCode, lastError: outcome.error });
    },
    async resendDelivery(id, now) {
      const d = deliveries.get(id);
      if (!d || d.status === "pending") return null;
      Object.assign(d, { status: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, leaseOwner: null, deliveredAt: null });
      return { ...d };
    },
    clear() {
      endpoints.clear();
      events.clear();
      deliveries.clear();
    },
  };
}
