/** A real webhook receiver on loopback for the webhook suites, verifying each delivery with `standardwebhooks`. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as `standardwebhooks` verified it, or the verification error. */
  verified: { type: string; timestamp: string; data: any } | Error;
}

/** A webhook receiver: answers each path with the status set for it (200 by default), verifying with its secret. */
export async function startReceiver() {
  const received: Received[] = [];
  const statuses = new Map<string, number>();
  const secrets = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      let verified: Received["verified"];
      try {
        verified = new Webhook(secrets.get(path) ?? "whsec_bm9uZQ==").verify(body, req.headers as Record<string, string>) as Received["verified"];
      } catch (error) {
        verified = error as Error;
      }
      received.push({ path, headers: req.headers, body, verified });
      res.writeHead(statuses.get(path) ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    statuses,
    secrets,
    /** The verified deliveries to `path` of the user at `email`. */
    of(path: string, email: string) {
      return received.filter((r) => r.path === path && !(r.verified instanceof Error) && r.verified.data.user?.email === email);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
