/** A real SMTP server for tests: accepts every message and keeps it, parsed, for the test to read. */
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Waits for a mail to this address matching the predicate (newest first). */
  waitFor(to: string, predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const to = (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((a) => a.value.map((v) => (v.address ?? "").toLowerCase()));
          mails.push({ to, subject: parsed.subject ?? "", text: parsed.text ?? "", html: typeof parsed.html === "string" ? parsed.html : "", messageId: parsed.messageId ?? "" });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    mails,
    async waitFor(to, predicate = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = [...mails].reverse().find((m) => m.to.includes(to.toLowerCase()) && predicate(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms (have: ${mails.map((m) => `${m.to}: ${m.subject}`).join("; ")})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text that contains `fragment`. */
export function linkIn(mail: ReceivedMail, fragment: string): string {
  const link = (mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).find((url) => url.includes(fragment));
  if (!link) throw new Error(`no link with ${fragment} in mail "${mail.subject}":\n${mail.text}`);
  return link;
}
