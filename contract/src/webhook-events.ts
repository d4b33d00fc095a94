/**
 * The webhook event types, by the service that emits each (docs/http-api/webhooks.md): the one list the
 * sources' outboxes, the notification service's intake and the Admin screen's subscription choices read.
 * A type is added here, then written by its source.
 */
export const USER_WEBHOOK_EVENTS = ["user.created", "user.updated", "user.deleted", "user.banned", "user.unbanned", "user.sign_in_failed_burst"] as const;
export const SESSION_WEBHOOK_EVENTS = ["session.created", "session.revoked"] as const;
export const ORGANIZATION_WEBHOOK_EVENTS = [
  "organization.created",
  "organization.updated",
  "organization.deleted",
  "member.added",
  "member.updated",
  "member.removed",
  "invitation.created",
  "invitation.accepted",
  "invitation.rejected",
  "invitation.canceled",
  "invitation.resent",
  "team.created",
  "team.updated",
  "team.deleted",
  "team_member.added",
  "team_member.removed",
] as const;

/** Every event type an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [...USER_WEBHOOK_EVENTS, ...SESSION_WEBHOOK_EVENTS, ...ORGANIZATION_WEBHOOK_EVENTS] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
