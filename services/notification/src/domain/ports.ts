/** What the notification domain needs from outside itself: the outbox store, a mail transport, a clock. */
import type { Logger } from "@auth-platform/runtime/log";
import type { NotificationConfig } from "../config.js";
import type { SecretBox } from "@auth-platform/runtime/secret-box";
import type { NotificationStore } from "../store/notification-store.js";
import type { WebhookSender } from "../transport/webhook-http.js";

/** One message as handed to a transport. */
export interface OutgoingMail {
  /** The Message-ID header, `<outbox id@mail domain>`: the same on every attempt, so a resend is recognisable. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
}

export interface MailTransport {
  /**
   * "development-outbox": nothing leaves the process; messages are read back through ListOutbox.
   * "none": production without SMTP_URL; every send fails for good (transport/undeliverable.ts).
   */
  readonly kind: "smtp" | "development-outbox" | "none";
  /** Sends one message; throws on failure (a DeliveryFailure says whether retrying can help). */
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** A failed send. `permanent`: the server refused this message for good, retrying gets the same answer. */
export class DeliveryFailure extends Error {
  readonly permanent: boolean;
  constructor(message: string, options: { permanent: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "DeliveryFailure";
    this.permanent = options.permanent;
  }
}

export interface Registry {
  config: NotificationConfig;
  store: NotificationStore;
  transport: MailTransport;
  log: Logger;
  now: () => Date;
  /** [0, 1), for retry jitter. */
  random: () => number;
  /** Wakes this process's delivery worker: a message was just queued. */
  wake: () => void;
  /** Seals webhook signing secrets at rest (AUTH_SECRET-derived key, the endpoint id as associated data). */
  webhookSecrets: SecretBox;
  webhookSender: WebhookSender;
  /** Wakes this process's webhook worker: a delivery was just queued. */
  wakeWebhooks: () => void;
}
