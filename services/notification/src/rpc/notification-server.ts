/** NotificationService over gRPC: decode, call one use case, encode. */
import { type NotificationServiceServer, NotificationServiceService } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import * as z from "zod";
import { listOutbox } from "../domain/list-outbox.js";
import type { Registry } from "../domain/ports.js";
import { queueMessage } from "../domain/queue-message.js";
import { templateName, toOutboxMessage } from "./mappers.js";

const email = z.email().max(320);

/** Who may call what (docs/internal-api.md). */
export const NOTIFICATION_ACCESS: AccessTable = {
  // Account mail (identity) and organization invitations (organization).
  SendEmail: ["identity", "organization"],
  // The development outbox holds live links: only the gateway's /dev/outbox route reads it.
  ListOutbox: ["gateway"],
};

export function notificationService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: NotificationServiceServer = {
    sendEmail: rpc.unary("SendEmail", async (req) => {
      if (!email.safeParse(req.to.trim()).success) throw new AuthError("VALIDATION_ERROR", "to must be an email address");
      const template = templateName(req.template);
      if (!template) throw new AuthError("VALIDATION_ERROR", "template is required");
      if (req.idempotencyKey.length > 255) throw new AuthError("VALIDATION_ERROR", "idempotencyKey is too long");
      const { id } = await queueMessage(registry, {
        to: req.to,
        template,
        variables: req.variables,
        idempotencyKey: req.idempotencyKey || undefined,
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
    name: "auth.notification.v1.NotificationService",
    access: NOTIFICATION_ACCESS,
  };
}
