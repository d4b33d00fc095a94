/**
 * POSTs one webhook over HTTP(S) (docs/adr/0077-signed-webhooks.md). The URL is typed in by an operator, so
 * the address is checked where it is used: at connection time, on every address the name resolves to (a
 * name checked once at registration could point inside the network later), and an IP literal before
 * connecting. Loopback, private and link-local addresses are refused unless allowed (development, tests).
 * Redirects are not followed (a 3xx is a failed attempt); the whole exchange has one timeout.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPrivateAddress } from "@auth-platform/runtime/private-address";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSender {
  /** The receiver's HTTP status; throws when none answered (refused, timed out, address not allowed). */
  post(request: WebhookRequest): Promise<number>;
}

export class AddressNotAllowed extends Error {
  constructor() {
    super("the URL leads to a loopback, private or link-local address");
    this.name = "AddressNotAllowed";
  }
}

/** dns.lookup, refusing a name with any address the platform may not reach. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 4);
      if (!addresses.length) return callback(new Error(`${hostname} has no address`), "", 4);
      if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) return callback(new AddressNotAllowed(), "", 4);
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      callback(null, first!.address, first!.family);
    });
  };
}

export function createWebhookSender(options: { timeoutMs: number; allowPrivateAddresses: boolean }): WebhookSender {
  const lookup = guardedLookup(options.allowPrivateAddresses);
  return {
    post(request) {
      const url = new URL(request.url);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.reject(new Error("the URL must be http: or https:"));
      if (!options.allowPrivateAddresses && isIP(host) && isPrivateAddress(host)) return Promise.reject(new AddressNotAllowed());
      const client = url.protocol === "https:" ? https : http;
      return new Promise<number>((resolve, reject) => {
        const req = client.request(
          url,
          {
            method: "POST",
            headers: { ...request.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(request.body)) },
            lookup,
            // A fresh connection per attempt: its address is checked by the lookup above each time.
            agent: false,
            signal: AbortSignal.timeout(options.timeoutMs),
          },
          (res) => {
            // The body is not read: only the status counts. Drained so the connection closes cleanly.
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(request.body);
      });
    },
  };
}
