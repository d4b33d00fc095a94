/**
 * Signed webhooks, the operator's side and the intake (docs/adr/0077-signed-webhooks.md): the event catalogue,
 * endpoints (URL guard, secret shown once and stored sealed), the events the emitting services publish, and
 * the delivery log with resend. Delivery itself is webhook-delivery.ts.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { WEBHOOK_EVENT_TYPES } from "@auth-platform/contract/webhook-events";
import { isPrivateAddress } from "@auth-platform/runtime/private-address";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../store/webhook-store.js";
import type { Registry } from "./ports.js";

/** The type of a test event (SendTestWebhookEvent): sent to one endpoint whatever it subscribes to. */
export const TEST_EVENT_TYPE = "webhook.test";

export const MAX_EVENTS_PER_CALL = 100;
export const MAX_PAYLOAD_BYTES = 64 * 1024;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;

type Deps = Pick<Registry, "config" | "store" | "log" | "now" | "webhookSecrets" | "wakeWebhooks">;

/** A new signing secret, `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * An endpoint's URL: absolute http(s), no credentials in it, and, unless private addresses are allowed, not
 * naming a loopback, private or link-local address itself. A host name is checked again when it is resolved
 * for each delivery (transport/webhook-http.ts): a name can point anywhere later.
 */
export function checkEndpointUrl(url: string, allowPrivate: boolean): string {
  if (url.length > MAX_URL_LENGTH || !URL.canParse(url)) throw new AuthError("INVALID_WEBHOOK_URL", "the URL is not an absolute URL");
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new AuthError("INVALID_WEBHOOK_URL", "the URL must be http: or https:");
  if (parsed.username || parsed.password) throw new AuthError("INVALID_WEBHOOK_URL", "the URL must not carry credentials");
  if (!allowPrivate) {
    const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (host === "localhost" || host.endsWith(".localhost") || (isIP(host) && isPrivateAddress(host))) {
      throw new AuthError("INVALID_WEBHOOK_URL", "the URL must lead to a public address");
    }
  }
  return parsed.href;
}

function checkEventTypes(types: readonly string[]): string[] {
  const unique = [...new Set(types)];
  if (!unique.length) throw new AuthError("VALIDATION_ERROR", "eventTypes must name at least one event type");
  const unknown = unique.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length) throw new AuthError("UNKNOWN_WEBHOOK_EVENT_TYPE", `unknown: ${unknown.slice(0, 5).join(", ").slice(0, 200)}`);
  return unique;
}

function checkDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION_LENGTH) throw new AuthError("VALIDATION_ERROR", "description is too long");
  return description;
}

async function endpointOrThrow(deps: Deps, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = id ? await deps.store.findEndpoint(id) : null;
  if (!endpoint) throw new AuthError("WEBHOOK_ENDPOINT_NOT_FOUND");
  return endpoint;
}

export interface EndpointInput {
  url: string;
  eventTypes: readonly string[];
  description?: string;
  enabled?: boolean;
}

/** Registers an endpoint; the secret is returned this once and stored sealed. */
export async function createEndpoint(deps: Deps, input: EndpointInput): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const url = checkEndpointUrl(input.url, deps.config.webhooks.allowPrivateAddresses);
  const eventTypes = checkEventTypes(input.eventTypes);
  const id = newId();
  const secret = newWebhookSecret();
  const now = deps.now();
  const endpoint: WebhookEndpointRecord = {
    id,
    url,
    eventTypes,
    description: checkDescription(input.description ?? ""),
    enabled: input.enabled ?? true,
    sealedSecret: deps.webhookSecrets.seal(secret, id),
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.createEndpoint(endpoint);
  deps.log.info("webhook endpoint created", { endpointId: id, eventTypes });
  return { endpoint, secret };
}

export async function updateEndpoint(deps: Deps, id: string, patch: Partial<EndpointInput>): Promise<WebhookEndpointRecord> {
  await endpointOrThrow(deps, id);
  const updated = await deps.store.updateEndpoint(id, {
    url: patch.url === undefined ? undefined : checkEndpointUrl(patch.url, deps.config.webhooks.allowPrivateAddresses),
    eventTypes: patch.eventTypes === undefined ? undefined : checkEventTypes(patch.eventTypes),
    description: patch.description === undefined ? undefined : checkDescription(patch.description),
    enabled: patch.enabled,
    updatedAt: deps.now(),
  });
  if (!updated) throw new AuthError("WEBHOOK_ENDPOINT_NOT_FOUND");
  return updated;
}

export async function deleteEndpoint(deps: Deps, id: string): Promise<void> {
  if (!id || !(await deps.store.deleteEndpoint(id))) throw new AuthError("WEBHOOK_ENDPOINT_NOT_FOUND");
  deps.log.info("webhook endpoint deleted", { endpointId: id });
}

/** A new secret, returned this once; deliveries from now on are signed with it. */
export async function rotateSecret(deps: Deps, id: string): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  await endpointOrThrow(deps, id);
  const secret = newWebhookSecret();
  const endpoint = await deps.store.updateEndpoint(id, { sealedSecret: deps.webhookSecrets.seal(secret, id), updatedAt: deps.now() });
  if (!endpoint) throw new AuthError("WEBHOOK_ENDPOINT_NOT_FOUND");
  deps.log.info("webhook secret rotated", { endpointId: id });
  return { endpoint, secret };
}

export async function listDeliveries(deps: Deps, endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]> {
  await endpointOrThrow(deps, endpointId);
  return deps.store.listDeliveries(endpointId, Math.min(Math.max(limit || 50, 1), 200));
}

/** Queues a delivered or dead-lettered delivery again, its attempts from zero. */
export async function resendDelivery(deps: Deps, id: string): Promise<WebhookDeliveryRecord> {
  const found = id ? await deps.store.findDelivery(id) : null;
  if (!found) throw new AuthError("WEBHOOK_DELIVERY_NOT_FOUND");
  // Still pending: it goes out anyway; answer it as it is.
  const resent = (await deps.store.resendDelivery(id, deps.now())) ?? (await deps.store.findDelivery(id));
  if (!resent) throw new AuthError("WEBHOOK_DELIVERY_NOT_FOUND");
  deps.wakeWebhooks();
  return resent;
}

/** A `webhook.test` event to one endpoint. */
export async function sendTestEvent(deps: Deps, endpointId: string): Promise<WebhookDeliveryRecord> {
  await endpointOrThrow(deps, endpointId);
  const now = deps.now();
  const event = { id: newId(), type: TEST_EVENT_TYPE, occurredAt: now, payload: JSON.stringify({ endpointId }), receivedAt: now };
  const [delivery] = (await deps.store.receiveEvents([event], now, { onlyEndpointId: endpointId }))[0] ?? [];
  if (!delivery) throw new AuthError("WEBHOOK_ENDPOINT_NOT_FOUND");
  deps.wakeWebhooks();
  return delivery;
}

export interface PublishedEvent {
  id: string;
  type: string;
  occurredAt: Date | undefined;
  payloadJson: string;
}

/**
 * Stores each new event and queues its deliveries; events received before are skipped (the sources deliver
 * at least once). The whole call is checked before anything is stored. Returns how many were new.
 */
export async function publishEvents(deps: Deps, events: readonly PublishedEvent[]): Promise<number> {
  if (events.length > MAX_EVENTS_PER_CALL) throw new AuthError("VALIDATION_ERROR", `at most ${MAX_EVENTS_PER_CALL} events per call`);
  const checked = events.map((event) => {
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(event.id)) throw new AuthError("VALIDATION_ERROR", "an event id must be 1 to 64 letters, digits, _ . : or -");
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event.type)) throw new AuthError("UNKNOWN_WEBHOOK_EVENT_TYPE");
    if (!event.occurredAt || Number.isNaN(event.occurredAt.getTime())) throw new AuthError("VALIDATION_ERROR", "occurredAt is required");
    if (Buffer.byteLength(event.payloadJson) > MAX_PAYLOAD_BYTES) throw new AuthError("VALIDATION_ERROR", "payload is too large");
    let data: unknown;
    try {
      data = JSON.parse(event.payloadJson);
    } catch {
      throw new AuthError("VALIDATION_ERROR", "payload must be JSON");
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw new AuthError("VALIDATION_ERROR", "payload must be a JSON object");
    return { id: event.id, type: event.type, occurredAt: event.occurredAt, payload: event.payloadJson };
  });
  const now = deps.now();
  const received = await deps.store.receiveEvents(
    checked.map((event) => ({ ...event, receivedAt: now })),
    now,
  );
  const accepted = received.filter(Boolean).length;
  if (accepted) deps.wakeWebhooks();
  return accepted;
}
