/**
 * The webhook delivery worker (docs/adr/0077-signed-webhooks.md): takes due deliveries, signs each per the
 * Standard Webhooks specification, POSTs it, and records the outcome in the delivery log. A 2xx marks it
 * delivered; anything else (another status, a refused or timed-out connection) schedules the next attempt by
 * the fixed retry schedule, and after the last one the delivery is dead-lettered until an operator resends it.
 * Each delivery is leased before it is sent, as the mail outbox's messages are (delivery-worker.ts), so
 * replicas never send one at once; a worker that dies mid-send leaves the lease to expire and the delivery
 * goes out again with the same webhook-id, which receivers use to drop the repeat.
 */
import { createHmac } from "node:crypto";
import { randomString } from "@auth-platform/runtime/random";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { AttemptOutcome, WebhookDeliveryRecord } from "../store/webhook-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "config" | "store" | "log" | "now" | "webhookSecrets" | "webhookSender">;

export const BATCH_SIZE = 10;

/** The lease outlasts the whole POST (its timeout) with room for the bookkeeping. */
const leaseMs = (deps: Deps) => deps.config.webhooks.timeoutMs + 30_000;

/** `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` under the secret's bytes (the part after `whsec_`, base64). */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const code = (error as { code?: string }).code;
  return ((code ? `${code}: ` : "") + error.message).slice(0, 300);
}

async function deliverOne(deps: Deps, delivery: WebhookDeliveryRecord): Promise<void> {
  const { store, log, config } = deps;
  const owner = randomString(32);
  const claimedAt = deps.now();
  if (!(await store.claimDelivery(delivery.id, delivery.attempts, owner, claimedAt, new Date(claimedAt.getTime() + leaseMs(deps))))) return;
  const attempts = delivery.attempts + 1;
  const fields = { deliveryId: delivery.id, endpointId: delivery.endpointId, eventId: delivery.eventId, eventType: delivery.eventType, attempts };
  const [endpoint, event] = await Promise.all([store.findEndpoint(delivery.endpointId), store.findEvent(delivery.eventId)]);
  if (!endpoint || !event) return; // deleted meanwhile, with its deliveries
  if (!endpoint.enabled) {
    await store.markDeliveryDead(delivery.id, owner, { responseCode: null, error: "endpoint disabled" });
    return;
  }
  const body = JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: JSON.parse(event.payload) as unknown });
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  let outcome: AttemptOutcome;
  try {
    const secret = deps.webhookSecrets.open(endpoint.sealedSecret, endpoint.id);
    const status = await deps.webhookSender.post({
      url: endpoint.url,
      headers: {
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWebhook(secret, event.id, timestamp, body),
        "user-agent": "auth-platform-webhooks",
      },
      body,
    });
    if (status >= 200 && status < 300) {
      await store.markDeliveryDelivered(delivery.id, owner, deps.now(), status);
      log.info("webhook delivered", { ...fields, status });
      return;
    }
    outcome = { responseCode: status, error: `HTTP ${status}` };
  } catch (error) {
    outcome = { responseCode: null, error: describe(error) };
  }
  const schedule = config.webhooks.retryScheduleMs;
  if (attempts > schedule.length) {
    await store.markDeliveryDead(delivery.id, owner, outcome);
    log.warn("webhook not delivered: dead-lettered", { ...fields, ...outcome });
    return;
  }
  const retryInMs = schedule[attempts - 1]!;
  await store.scheduleDeliveryRetry(delivery.id, owner, new Date(deps.now().getTime() + retryInMs), outcome);
  log.info("webhook delivery failed; will retry", { ...fields, ...outcome, retryInMs });
}

/** One pass: every due delivery (up to a batch) claimed and sent side by side. Returns how many were due. */
export async function deliverDueWebhooks(deps: Deps): Promise<number> {
  const due = await deps.store.findDueDeliveries(deps.now(), BATCH_SIZE);
  await handleEach(due, (delivery) => deliverOne(deps, delivery), deps.log, "webhook delivery");
  return due.length;
}

/** The worker: a pass now, then one every poll interval, and one whenever an event or a resend is queued. */
export function startWebhookWorker(deps: Deps): PollingWorker {
  return startPollingWorker({ name: "webhooks", pass: () => deliverDueWebhooks(deps), batchSize: BATCH_SIZE, pollIntervalMs: deps.config.pollIntervalMs, log: deps.log });
}
