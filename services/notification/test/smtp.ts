/**
 * A real SMTP server (smtp-server) for tests: plain SMTP on loopback (no STARTTLS), AUTH accepted for one
 * user, every received message kept raw and parsed into headers and text / HTML parts.
 */
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  raw: string;
  /** Lower-case header names, unfolded values (the top-level headers). */
  headers: Record<string, string>;
  text?: string;
  html?: string;
  envelopeTo: string[];
  user?: string;
}

export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export const SMTP_USER = "mailer";
export const SMTP_PASS = "mailer-password";

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), "latin1");
  return bytes.toString("utf8");
}

function splitHeaders(part: string): { headers: Record<string, string>; body: string } {
  const end = part.indexOf("\r\n\r\n");
  const head = end >= 0 ? part.slice(0, end) : part;
  const body = end >= 0 ? part.slice(end + 4) : "";
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

/** Walks a MIME tree and collects the text/plain and text/html bodies, decoded. */
function collectParts(part: string, into: { text?: string; html?: string }): void {
  const { headers, body } = splitHeaders(part);
  const type = headers["content-type"] ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const child of body.split(`--${boundary}`).slice(1)) {
      if (child.startsWith("--")) break;
      collectParts(child.replace(/^\r\n/, ""), into);
    }
    return;
  }
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  const decoded =
    encoding === "quoted-printable" ? decodeQuotedPrintable(body) : encoding === "base64" ? Buffer.from(body, "base64").toString("utf8") : body;
  if (/^text\/plain/i.test(type)) into.text = decoded;
  if (/^text\/html/i.test(type)) into.html = decoded;
}

export function parseMail(raw: string): Omit<ReceivedMail, "envelopeTo" | "user"> {
  const { headers } = splitHeaders(raw);
  const parts: { text?: string; html?: string } = {};
  collectParts(raw, parts);
  return { raw, headers, ...parts };
}

/** Starts the server on `port` (0: any free one). */
export async function startTestSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          ...parseMail(Buffer.concat(chunks).toString("utf8")),
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === "string" ? session.user : undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
