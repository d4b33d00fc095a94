/** NotificationService over gRPC: decode, call one use case, encode. */
import { type NotificationServiceServer, NotificationServiceService } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { type AccessTable, requireWorkload, type Workload } from "@auth-platform/runtime/grpc-access";
import { languageOr } from "@auth-platform/runtime/language";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import * as z from "zod";
import { listOutbox } from "../domain/list-outbox.js";
import type { Registry } from "../domain/ports.js";
import { queueMessage } from "../domain/queue-message.js";
import type { TemplateName } from "../templates/index.js";
import { templateName, toOutboxMessage } from "./mappers.js";

const email = z.email().max(320);
const SERVICE_NAME = "auth.notification.v1.NotificationService";

/** Who may call what (docs/internal-api.md). */
export const NOTIFICATION_ACCESS: AccessTable = {
  // Account mail (identity) and organization invitations (organization): the senders of TEMPLATE_SENDERS.
  SendEmail: ["identity", "organization"],
  // The development outbox holds live links: only the gateway's /dev/outbox route reads it.
  ListOutbox: ["gateway"],
};

/**
 * Who may send which template. SendEmail's row lets a workload call it at all; this narrows it to the mail
 * that workload exists to send, so whoever takes over one workload cannot mail a password-reset link or a
 * sign-in code of their choosing from our sender. Every template needs its entry (a missing one fails
 * type-checking). Enforced, like the table above, under mutual TLS.
 */
export const TEMPLATE_SENDERS: Readonly<Record<TemplateName, readonly Workload[]>> = {
  // Account mail: identity issues these links and codes.
  "email-verification": ["identity"],
  "password-reset": ["identity"],
  "change-email": ["identity"],
  "change-email-new-address": ["identity"],
  "delete-account": ["identity"],
  "sign-in-code": ["identity"],
  "magic-link": ["identity"],
  "email-otp": ["identity"],
  // Invitations: the organization service issues them.
  "organization-invitation": ["organization"],
};

export function notificationService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: NotificationServiceServer = {
    sendEmail: rpc.unary("SendEmail", async (req, { caller }) => {
      const template = templateName(req.template);
      if (!template) throw new AuthError("VALIDATION_ERROR", "template is required");
      // The sender first: a caller that may not send this mail learns nothing about its request but that.
      const mail = { log: registry.log, mutualTls: registry.config.grpc.tls.kind === "mtls", method: `${SERVICE_NAME}/SendEmail` };
      requireWorkload(mail, caller, TEMPLATE_SENDERS[template], { template });
      if (!email.safeParse(req.to.trim()).success) throw new AuthError("VALIDATION_ERROR", "to must be an email address");
      if (req.idempotencyKey.length > 255) throw new AuthError("VALIDATION_ERROR", "idempotencyKey is too long");
      const { id } = await queueMessage(registry, {
        to: req.to,
        template,
        variables: req.variables,
        idempotencyKey: req.idempotencyKey || undefined,
        language: languageOr(req.language),
      });
      return { messageId: id };
    }),
    listOutbox: rpc.unary("ListOutbox", async (req) => ({
      messages: (await listOutbox(registry, { to: req.to, limit: req.limit })).map(toOutboxMessage),
    })),
  };
  return {
    definition: NotificationServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: SERVICE_NAME,
    access: NOTIFICATION_ACCESS,
  };
}
