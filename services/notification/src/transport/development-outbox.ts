/**
 * The development outbox (no SMTP_URL): nothing leaves the process. The message stays in the store, where
 * ListOutbox (and the web app's mailbox page) reads it, and its links are printed to the log so a newcomer
 * can verify an email or reset a password with no mail server. Only the recipient, subject and links are
 * logged: a sign-in code stays in the body.
 */
import type { Logger } from "@auth-platform/runtime/log";
import type { MailTransport } from "../domain/ports.js";

export function createDevelopmentOutbox(log: Logger): MailTransport {
  return {
    kind: "development-outbox",
    async send(mail) {
      log.info("mail (development outbox)", { to: mail.to, subject: mail.subject, links: mail.links });
    },
    async close() {},
  };
}
