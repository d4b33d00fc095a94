/**
 * Real delivery through nodemailer to SMTP_URL (smtp:// with STARTTLS when offered, smtps:// for implicit
 * TLS). One connection per send: transactional mail is low volume, and a fresh connection recovers from a
 * server restart without pool bookkeeping. Every send is bounded in time so a hung server cannot hold a
 * message's lease. Neither the URL (it carries the password) nor any body or link is ever logged here.
 */
import nodemailer from "nodemailer";
import type { Logger } from "@auth-platform/runtime/log";
import { DeliveryFailure, type MailTransport } from "../domain/ports.js";

/** Upper bound of one whole send (connect, TLS, auth, envelope, data); well inside the worker's lease. */
export const SEND_TIMEOUT_MS = 30_000;

interface SmtpError {
  code?: string;
  command?: string;
  responseCode?: number;
  permanent?: boolean;
}

/**
 * Only a recipient refused for good (a 5xx answer to RCPT TO) is permanent for this message. A refused
 * sender, refused credentials or refused content usually mean our configuration is wrong, which an operator
 * can fix: those keep retrying until maxAttempts, so no mail is dropped while they do.
 */
function toDeliveryFailure(error: unknown): DeliveryFailure {
  const e = (error ?? {}) as SmtpError & Error;
  const permanent = e.permanent === true && /^RCPT\b/i.test(e.command ?? "");
  const detail = [e.code, e.responseCode].filter(Boolean).join(" ");
  return new DeliveryFailure(`${detail ? `${detail}: ` : ""}${e.message ?? String(error)}`, { permanent, cause: error });
}

export function createSmtpTransport(options: { url: string; from: string }): MailTransport {
  const transporter = nodemailer.createTransport({
    url: options.url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    // Why: messages are built only from our templates; never let message data read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    kind: "smtp",
    async send(mail) {
      try {
        await transporter.sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          // RFC 3834: machine-sent, so auto-responders (vacation replies) stay quiet.
          headers: { "Auto-Submitted": "auto-generated" },
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
      } catch (error) {
        throw toDeliveryFailure(error);
      }
    },
    async close() {
      transporter.close();
    },
  };
}

/** Checks at boot that the server answers and accepts the credentials; a failure is only a warning. */
export async function checkSmtp(url: string, log: Logger): Promise<void> {
  const transporter = nodemailer.createTransport({ url, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 5_000 });
  try {
    await transporter.verify();
    log.info("smtp server reachable");
  } catch (error) {
    log.warn("smtp server not reachable yet: mail waits in the outbox and is retried", { error: toDeliveryFailure(error).message });
  } finally {
    transporter.close();
  }
}
