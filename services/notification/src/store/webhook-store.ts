/**
 * The webhook store port (docs/adr/0077-signed-webhooks.md): registered endpoints, the events received from
 * the services that emit them (one row per event id, so a redelivered event is stored once), and one
 * delivery per event and subscribed endpoint, leased by the delivery worker like the mail outbox's messages.
 */

export interface WebhookEndpointRecord {
  id: string;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  /** The signing secret, sealed (domain/webhook-secrets.ts): never stored or logged in the clear. */
  sealedSecret: string;
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookEndpointPatch = Partial<Pick<WebhookEndpointRecord, "url" | "eventTypes" | "description" | "enabled" | "sealedSecret">> & { updatedAt: Date };

export interface WebhookEventRecord {
  /** The source's id: the webhook-id header, and the key that makes intake idempotent. */
  id: string;
  type: string;
  occurredAt: Date;
  /** The body's `data`, as JSON text. */
  payload: string;
  receivedAt: Date;
}

/** pending: to be tried at nextAttemptAt; delivered: a 2xx answered; dead: the attempts ran out. */
export type WebhookDeliveryStatus = "pending" | "delivered" | "dead";

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  /** Attempts started since the delivery was queued (or resent). */
  attempts: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  leaseOwner: string | null;
  /** The last attempt's HTTP status; null when nothing answered. */
  lastResponseCode: number | null;
  /** The last failure (status, or the network error), for operators. */
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A delivery of the event to the endpoint, queued due `now`: what receiveEvents stores for each subscriber. */
export function queuedDelivery(id: string, endpointId: string, event: Pick<WebhookEventRecord, "id" | "type">, now: Date): WebhookDeliveryRecord {
  return {
    id,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    leaseOwner: null,
    lastResponseCode: null,
    lastError: null,
    createdAt: now,
    deliveredAt: null,
  };
}

/** What an attempt that did not deliver leaves in the log. */
export interface AttemptOutcome {
  responseCode: number | null;
  error: string;
}

export interface WebhookStore {
  createEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  findEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** Every endpoint, newest first. */
  listEndpoints(): Promise<WebhookEndpointRecord[]>;
  /** The endpoint as changed, or null when there is none. */
  updateEndpoint(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord | null>;
  /** Removes the endpoint and its deliveries; false when there was none. */
  deleteEndpoint(id: string): Promise<boolean>;
  /**
   * Stores events and, in the same transaction, one pending delivery (due `now`) per enabled endpoint
   * subscribed to each one's type (or only to `onlyEndpointId`). One transaction for the batch: a source
   * publishes many at once. An event id already stored (or earlier in the batch) changes nothing: its entry
   * of the answer is null then, else the deliveries queued for it.
   */
  receiveEvents(events: readonly WebhookEventRecord[], now: Date, options?: { onlyEndpointId?: string }): Promise<Array<WebhookDeliveryRecord[] | null>>;
  findEvent(id: string): Promise<WebhookEventRecord | null>;
  findDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** Up to `limit` pending deliveries due at `now` whose lease is free, oldest due first. */
  findDueDeliveries(now: Date, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** An endpoint's deliveries, newest first. */
  listDeliveries(endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** Takes the lease and counts the attempt, while pending, unleased and at `seenAttempts` (one winner). */
  claimDelivery(id: string, seenAttempts: number, owner: string, now: Date, leaseUntil: Date): Promise<boolean>;
  /** The owner's attempt answered 2xx. */
  markDeliveryDelivered(id: string, owner: string, at: Date, responseCode: number): Promise<void>;
  /** The owner's attempt failed: free the lease, try again at nextAttemptAt. */
  scheduleDeliveryRetry(id: string, owner: string, nextAttemptAt: Date, outcome: AttemptOutcome): Promise<void>;
  /** The owner's last attempt failed: dead-lettered. */
  markDeliveryDead(id: string, owner: string, outcome: AttemptOutcome): Promise<void>;
  /** Queues a delivered or dead delivery again (attempts from 0, due `now`); null when none, or it is pending. */
  resendDelivery(id: string, now: Date): Promise<WebhookDeliveryRecord | null>;
}
