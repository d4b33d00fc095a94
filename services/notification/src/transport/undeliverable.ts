/**
 * Production without SMTP_URL: a misconfiguration, reported at start. The development outbox would keep live
 * reset links and sign-in codes in the database and print the links to the log, which only a developer's
 * machine may do. Here every message fails for good instead: the worker records the failure and erases its
 * bodies, the failure metric and log line (which name no recipient or link) show the operator what is lost.
 */
import { DeliveryFailure, type MailTransport } from "../domain/ports.js";

export function createUndeliverableTransport(): MailTransport {
  return {
    kind: "none",
    async send() {
      throw new DeliveryFailure("SMTP_URL is not set", { permanent: true });
    },
    async close() {},
  };
}
