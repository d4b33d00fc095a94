/**
 * A real SMTP server (smtp-server) for tests: plain SMTP on loopback (no STARTTLS). It accepts every
 * message and keeps it, raw and parsed (mailparser), with its envelope and the authenticated user, for the
 * test to read. Optionally it requires AUTH for one username and password.
 */
import { EventEmitter, once } from "node:events";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** Addresses of the To header, lower-case. */
  to: string[];
  /** Envelope recipients (RCPT TO), as the client sent them. */
  envelopeTo: string[];
  subject: string;
  text: string;
  html: string;
  /** The Message-ID header, angle brackets included. */
  messageId: string;
  /** The whole message as received (headers and MIME body, undecoded). */
  raw: string;
  /**
   * The top-level headers: lower-case names, unfolded values as sent (not decoded), e.g.
   * `headers["message-id"]`, `headers.from`. A repeated header keeps its first value.
   */
  headers: Record<string, string>;
  /** The user who authenticated for this message; undefined without AUTH. */
  user?: string;
}

export interface SmtpOptions {
  /**
   * Port to listen on (default 0: any free one). Starting a new server on the port of a stopped one brings
   * SMTP "back up" where a client already points.
   */
  port?: number;
  /** Requires AUTH with exactly these credentials; any other is refused. Unset: no AUTH, every sender accepted. */
  auth?: { user: string; pass: string };
  /** Offers AUTH on this plain (never TLS) connection. Default: true when `auth` is set. */
  allowInsecureAuth?: boolean;
}

export interface TestSmtp {
  /** smtp://127.0.0.1:PORT, without credentials. */
  url: string;
  port: number;
  /** Every message received so far, oldest first. */
  mails: ReceivedMail[];
  /** Waits for a mail to this address (To header) matching the predicate (newest first). */
  waitFor(to: string, predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** Top-level header lines into lower-case names and unfolded values; the first of a repeated header wins. */
function headersOf(lines: ReadonlyArray<{ key: string; line: string }>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { key, line } of lines) {
    const name = key.toLowerCase();
    const unfolded = line.replace(/\r?\n[ \t]+/g, " ");
    const colon = unfolded.indexOf(":");
    if (colon > 0 && !Object.hasOwn(headers, name)) headers[name] = unfolded.slice(colon + 1).trim();
  }
  return headers;
}

export async function startSmtp(options: SmtpOptions | number = {}): Promise<TestSmtp> {
  const { port = 0, auth, allowInsecureAuth = auth !== undefined } = typeof options === "number" ? { port: options } : options;
  const mails: ReceivedMail[] = [];
  // Emits "mail" for each message kept, so waitFor() wakes when one arrives instead of polling.
  const received = new EventEmitter().setMaxListeners(0);
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass) callback(null, { user: credentials.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", (error: Error) => callback(error));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            const to = (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((a) => a.value.map((v) => (v.address ?? "").toLowerCase()));
            mails.push({
              to,
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : "",
              messageId: parsed.messageId ?? "",
              raw: raw.toString("utf8"),
              headers: headersOf(parsed.headerLines),
              user: typeof session.user === "string" ? session.user : undefined,
            });
            received.emit("mail");
            callback();
          },
          (error: Error) => callback(error),
        );
      });
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
      const deadline = AbortSignal.timeout(timeoutMs);
      for (;;) {
        const found = [...mails].reverse().find((m) => m.to.includes(to.toLowerCase()) && predicate(m));
        if (found) return found;
        await once(received, "mail", { signal: deadline }).catch(() => {
          throw new Error(`no mail to ${to} within ${timeoutMs} ms (have: ${mails.map((m) => `${m.to}: ${m.subject}`).join("; ")})`);
        });
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
