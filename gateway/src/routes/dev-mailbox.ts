/**
 * GET /dev/outbox?to= : the development mailbox behind the web app's mailbox page. Mounted only while the
 * notification service's development outbox is the transport (no SMTP_URL); the service itself answers
 * NOT_FOUND otherwise, so a mount by mistake still leaks no mail.
 */
import * as z from "zod";
import { type NotificationServiceClient, type OutboxMessage, templateToJSON } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { call } from "@auth-platform/runtime/rpc";
import { defineRoute, type Route } from "../http/define-route.js";
import { outboxSchema } from "../http/public-schemas.js";

export const outboxQuery = z.object({
  to: z.string().trim().max(320).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/** TEMPLATE_PASSWORD_RESET -> "password-reset". */
const templateLabel = (template: OutboxMessage["template"]) =>
  templateToJSON(template)
    .replace(/^TEMPLATE_/, "")
    .toLowerCase()
    .replace(/_/g, "-");

/** The JSON shape of one kept message. */
export function publicOutboxMessage(message: OutboxMessage) {
  return {
    id: message.id,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    template: templateLabel(message.template),
    createdAt: (message.createdAt ?? new Date(0)).toISOString(),
    deliveredAt: message.deliveredAt ? message.deliveredAt.toISOString() : null,
    links: message.links,
  };
}

export function devMailboxRoutes(client: NotificationServiceClient): Route[] {
  const outbox = defineRoute(
    {
      method: "get",
      path: "/dev/outbox",
      tag: "Development",
      summary: "The development mailbox (AUTH_DEV_MAILBOX only)",
      devOnly: true,
      query: outboxQuery,
      response: outboxSchema,
      errors: ["NOT_FOUND"],
    },
    async ({ res, query, json }) => {
      const { messages } = await call(client, client.listOutbox, { to: query.to || undefined, limit: query.limit ?? 0 });
      // Reset and sign-in links: never cached by a browser or proxy.
      res.setHeader("Cache-Control", "no-store");
      json({ messages: messages.map(publicOutboxMessage) });
    },
  );
  return [outbox];
}
