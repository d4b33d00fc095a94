/** WebhookService over gRPC (docs/adr/0077-signed-webhooks.md): decode, call one use case, encode. */
import { type WebhookDelivery, type WebhookEndpoint, type WebhookServiceServer, WebhookServiceService } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import type { Registry } from "../domain/ports.js";
import { createEndpoint, deleteEndpoint, listDeliveries, publishEvents, resendDelivery, rotateSecret, sendTestEvent, updateEndpoint } from "../domain/webhooks.js";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../store/webhook-store.js";

const SERVICE_NAME = "auth.notification.v1.WebhookService";

/** Who may call what (docs/internal-api.md). */
export const WEBHOOK_ACCESS: AccessTable = {
  // The services whose changes are events: identity's user events, session's session events, organization's
  // organization, member and invitation events.
  PublishEvents: ["identity", "session", "organization"],
  // The admin area: the admin service checks the caller's admin role first (docs/http-api/webhooks.md).
  CreateWebhookEndpoint: ["admin"],
  ListWebhookEndpoints: ["admin"],
  UpdateWebhookEndpoint: ["admin"],
  DeleteWebhookEndpoint: ["admin"],
  RotateWebhookSecret: ["admin"],
  ListWebhookDeliveries: ["admin"],
  ResendWebhookDelivery: ["admin"],
  SendTestWebhookEvent: ["admin"],
};

/** An endpoint as answered: never its secret. */
function toEndpoint(e: WebhookEndpointRecord): WebhookEndpoint {
  return { id: e.id, url: e.url, eventTypes: e.eventTypes, description: e.description, enabled: e.enabled, createdAt: e.createdAt, updatedAt: e.updatedAt };
}

function toDelivery(d: WebhookDeliveryRecord): WebhookDelivery {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    lastResponseCode: d.lastResponseCode ?? undefined,
    lastError: d.lastError ?? undefined,
    createdAt: d.createdAt,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt : undefined,
    deliveredAt: d.deliveredAt ?? undefined,
  };
}

export function webhookService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: WebhookServiceServer = {
    publishEvents: rpc.unary("PublishEvents", async (req) => ({
      accepted: await publishEvents(
        registry,
        req.events.map((e) => ({ id: e.id, type: e.type, occurredAt: e.occurredAt, payloadJson: e.payloadJson })),
      ),
    })),
    createWebhookEndpoint: rpc.unary("CreateWebhookEndpoint", async (req) => {
      const { endpoint, secret } = await createEndpoint(registry, { url: req.url, eventTypes: req.eventTypes, description: req.description, enabled: req.enabled });
      return { endpoint: toEndpoint(endpoint), secret };
    }),
    listWebhookEndpoints: rpc.unary("ListWebhookEndpoints", async () => ({ endpoints: (await registry.store.listEndpoints()).map(toEndpoint) })),
    updateWebhookEndpoint: rpc.unary("UpdateWebhookEndpoint", async (req) => ({
      endpoint: toEndpoint(
        await updateEndpoint(registry, req.id, {
          url: req.url,
          eventTypes: req.updateEventTypes ? req.eventTypes : undefined,
          description: req.description,
          enabled: req.enabled,
        }),
      ),
    })),
    deleteWebhookEndpoint: rpc.unary("DeleteWebhookEndpoint", async (req) => {
      await deleteEndpoint(registry, req.id);
      return {};
    }),
    rotateWebhookSecret: rpc.unary("RotateWebhookSecret", async (req) => {
      const { endpoint, secret } = await rotateSecret(registry, req.id);
      return { endpoint: toEndpoint(endpoint), secret };
    }),
    listWebhookDeliveries: rpc.unary("ListWebhookDeliveries", async (req) => ({
      deliveries: (await listDeliveries(registry, req.endpointId, req.limit)).map(toDelivery),
    })),
    resendWebhookDelivery: rpc.unary("ResendWebhookDelivery", async (req) => ({ delivery: toDelivery(await resendDelivery(registry, req.id)) })),
    sendTestWebhookEvent: rpc.unary("SendTestWebhookEvent", async (req) => ({ delivery: toDelivery(await sendTestEvent(registry, req.id)) })),
  };
  return {
    definition: WebhookServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: SERVICE_NAME,
    access: WEBHOOK_ACCESS,
  };
}
