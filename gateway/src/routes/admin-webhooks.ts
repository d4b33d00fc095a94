/**
 * The admin area's webhook routes (docs/http-api/webhooks.md, docs/adr/0077-signed-webhooks.md): each makes one
 * call to the admin service with the caller, which checks the admin role and relays to the notification
 * service. The signing secret is in the answers of create and rotate only.
 */
import type { WebhookDelivery, WebhookEndpoint } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { call } from "@auth-platform/runtime/rpc";
import * as z from "zod";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import {
  successSchema,
  webhookDeliveriesSchema,
  webhookDeliveryResultSchema,
  webhookEndpointResultSchema,
  webhookEndpointsSchema,
  webhookEndpointWithSecretSchema,
} from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(255);
const eventTypes = z.array(z.string().min(1).max(64)).min(1).max(64);
const url = z.string().min(1).max(2048);
const description = z.string().max(500);

export const createWebhookBody = z.object({ url, eventTypes, description: description.optional(), enabled: z.boolean().optional() });
export const updateWebhookBody = z.object({ id, url: url.optional(), eventTypes: eventTypes.optional(), description: description.optional(), enabled: z.boolean().optional() });
const idBody = z.object({ id });
const deliveriesQuery = z.object({ endpointId: id, limit: z.coerce.number().int().min(1).max(200).optional() });

const WEBHOOK_ERRORS = ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT"] as const;

function endpointOut(e: WebhookEndpoint | undefined) {
  if (!e) throw new Error("endpoint missing from the answer");
  return {
    id: e.id,
    url: e.url,
    eventTypes: e.eventTypes,
    description: e.description,
    enabled: e.enabled,
    createdAt: (e.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (e.updatedAt ?? new Date(0)).toISOString(),
  };
}

function deliveryOut(d: WebhookDelivery | undefined) {
  if (!d) throw new Error("delivery missing from the answer");
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status as "pending" | "delivered" | "dead",
    attempts: d.attempts,
    lastResponseCode: d.lastResponseCode ?? null,
    lastError: d.lastError ?? null,
    createdAt: (d.createdAt ?? new Date(0)).toISOString(),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
  };
}

export function adminWebhookRoutes(deps: RouteDeps): Route[] {
  const admin = deps.clients.admin;
  return [
    defineRoute(
      {
        method: "get",
        path: "/admin/list-webhook-endpoints",
        tag: "Admin",
        session: "required",
        summary: "Webhook endpoints",
        response: webhookEndpointsSchema,
        errors: [...WEBHOOK_ERRORS],
      },
      async ({ req, session, json }) => {
        const { endpoints } = await call(admin, admin.listWebhookEndpoints, { caller: callerOf(req, session) });
        json({ endpoints: endpoints.map(endpointOut) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/create-webhook-endpoint",
        tag: "Admin",
        session: "required",
        summary: "Register a webhook endpoint; its secret is answered this once",
        body: createWebhookBody,
        response: webhookEndpointWithSecretSchema,
        errors: [...WEBHOOK_ERRORS, "INVALID_WEBHOOK_URL", "UNKNOWN_WEBHOOK_EVENT_TYPE"],
      },
      async ({ req, session, body, json }) => {
        const answer = await call(admin, admin.createWebhookEndpoint, {
          caller: callerOf(req, session),
          url: body.url,
          eventTypes: body.eventTypes,
          description: body.description ?? "",
          enabled: body.enabled,
        });
        json({ endpoint: endpointOut(answer.endpoint), secret: answer.secret });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/update-webhook-endpoint",
        tag: "Admin",
        session: "required",
        summary: "Change a webhook endpoint's URL, events, description or enabled",
        body: updateWebhookBody,
        response: webhookEndpointResultSchema,
        errors: [...WEBHOOK_ERRORS, "INVALID_WEBHOOK_URL", "UNKNOWN_WEBHOOK_EVENT_TYPE", "WEBHOOK_ENDPOINT_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const answer = await call(admin, admin.updateWebhookEndpoint, {
          caller: callerOf(req, session),
          id: body.id,
          url: body.url,
          eventTypes: body.eventTypes ?? [],
          updateEventTypes: body.eventTypes !== undefined,
          description: body.description,
          enabled: body.enabled,
        });
        json({ endpoint: endpointOut(answer.endpoint) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/delete-webhook-endpoint",
        tag: "Admin",
        session: "required",
        summary: "Delete a webhook endpoint and its delivery log",
        body: idBody,
        response: successSchema,
        errors: [...WEBHOOK_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        await call(admin, admin.deleteWebhookEndpoint, { caller: callerOf(req, session), id: body.id });
        json({ success: true });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/rotate-webhook-secret",
        tag: "Admin",
        session: "required",
        summary: "Replace a webhook endpoint's secret; the new one is answered this once",
        body: idBody,
        response: webhookEndpointWithSecretSchema,
        errors: [...WEBHOOK_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const answer = await call(admin, admin.rotateWebhookSecret, { caller: callerOf(req, session), id: body.id });
        json({ endpoint: endpointOut(answer.endpoint), secret: answer.secret });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/admin/list-webhook-deliveries",
        tag: "Admin",
        session: "required",
        summary: "A webhook endpoint's delivery log, newest first",
        query: deliveriesQuery,
        response: webhookDeliveriesSchema,
        errors: [...WEBHOOK_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      },
      async ({ req, session, query, json }) => {
        const { deliveries } = await call(admin, admin.listWebhookDeliveries, { caller: callerOf(req, session), endpointId: query.endpointId, limit: query.limit ?? 0 });
        json({ deliveries: deliveries.map(deliveryOut) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/resend-webhook-delivery",
        tag: "Admin",
        session: "required",
        summary: "Queue a delivered or dead-lettered webhook delivery again",
        body: idBody,
        response: webhookDeliveryResultSchema,
        errors: [...WEBHOOK_ERRORS, "WEBHOOK_DELIVERY_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const { delivery } = await call(admin, admin.resendWebhookDelivery, { caller: callerOf(req, session), id: body.id });
        json({ delivery: deliveryOut(delivery) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/admin/send-test-webhook-event",
        tag: "Admin",
        session: "required",
        summary: "Send a webhook.test event to one endpoint",
        body: idBody,
        response: webhookDeliveryResultSchema,
        errors: [...WEBHOOK_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const { delivery } = await call(admin, admin.sendTestWebhookEvent, { caller: callerOf(req, session), id: body.id });
        json({ delivery: deliveryOut(delivery) });
      },
    ),
  ];
}
