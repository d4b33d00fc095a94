/** Outbox records and template names <-> contract messages. */
import { type OutboxMessage, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import type { OutboxRecord } from "../store/notification-store.js";
import type { TemplateName } from "../templates/index.js";

const BY_ENUM: ReadonlyMap<Template, TemplateName> = new Map([
  [Template.TEMPLATE_EMAIL_VERIFICATION, "email-verification"],
  [Template.TEMPLATE_PASSWORD_RESET, "password-reset"],
  [Template.TEMPLATE_CHANGE_EMAIL, "change-email"],
  [Template.TEMPLATE_DELETE_ACCOUNT, "delete-account"],
  [Template.TEMPLATE_ORGANIZATION_INVITATION, "organization-invitation"],
  [Template.TEMPLATE_SIGN_IN_CODE, "sign-in-code"],
  [Template.TEMPLATE_CHANGE_EMAIL_NEW_ADDRESS, "change-email-new-address"],
  [Template.TEMPLATE_MAGIC_LINK, "magic-link"],
  [Template.TEMPLATE_EMAIL_OTP, "email-otp"],
]);
const BY_NAME: ReadonlyMap<TemplateName, Template> = new Map([...BY_ENUM].map(([e, n]) => [n, e]));

/** The template a request names, or undefined for TEMPLATE_UNSPECIFIED and unknown values. */
export function templateName(template: Template): TemplateName | undefined {
  return BY_ENUM.get(template);
}

export function toOutboxMessage(record: OutboxRecord): OutboxMessage {
  return {
    id: record.id,
    to: record.recipient,
    subject: record.subject,
    text: record.text,
    html: record.html,
    template: BY_NAME.get(record.template) ?? Template.TEMPLATE_UNSPECIFIED,
    createdAt: record.createdAt,
    deliveredAt: record.deliveredAt ?? undefined,
    attempts: record.attempts,
    links: record.links,
  };
}
