/** Webhook signing, the URL guard and the HTTP sender's address check, against a real receiver on loopback. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { AddressNotAllowed, createWebhookSender } from "../transport/webhook-http.js";
import { signWebhook } from "./webhook-delivery.js";
import { checkEndpointUrl, newWebhookSecret } from "./webhooks.js";

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AuthError ? error.code : String(error);
  }
  return "accepted";
};

describe("webhook signatures", () => {
  it("are what a Standard Webhooks receiver verifies, and fail for another body or secret", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: "user.created", timestamp: new Date().toISOString(), data: { user: { id: "u1" } } });
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": signWebhook(secret, "evt_1", timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe("endpoint URLs", () => {
  it("are http(s) without credentials, and name no private address unless allowed", () => {
    expect(codeOf(() => checkEndpointUrl("https://hooks.example.com/in", false))).toBe("accepted");
    for (const url of ["ftp://hooks.example.com/", "javascript:alert(1)", "not a url", "file:///etc/passwd", "https://user:pass@hooks.example.com/"]) {
      expect(
        codeOf(() => checkEndpointUrl(url, true)),
        url,
      ).toBe("INVALID_WEBHOOK_URL");
    }
    for (const url of ["http://127.0.0.1:8080/", "http://localhost/", "http://10.0.0.5/", "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://192.168.1.1/"]) {
      expect(
        codeOf(() => checkEndpointUrl(url, false)),
        url,
      ).toBe("INVALID_WEBHOOK_URL");
      expect(
        codeOf(() => checkEndpointUrl(url, true)),
        url,
      ).toBe("accepted");
    }
  });
});

describe("the webhook sender", () => {
  let server: Server;
  let port: number;
  const received: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        received.push(body);
        res.writeHead(req.url === "/fail" ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers the receiver's status, and refuses a loopback address, named or literal, unless allowed", async () => {
    const allowed = createWebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: true });
    expect(await allowed.post({ url: `http://127.0.0.1:${port}/ok`, headers: {}, body: "{}" })).toBe(204);
    expect(await allowed.post({ url: `http://localhost:${port}/fail`, headers: {}, body: "{}" })).toBe(503);
    const guarded = createWebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: false });
    const before = received.length;
    await expect(guarded.post({ url: `http://127.0.0.1:${port}/ok`, headers: {}, body: "{}" })).rejects.toBeInstanceOf(AddressNotAllowed);
    // A name resolving to loopback: refused when resolved, before any connection.
    await expect(guarded.post({ url: `http://localhost:${port}/ok`, headers: {}, body: "{}" })).rejects.toBeInstanceOf(AddressNotAllowed);
    expect(received.length).toBe(before);
  });
});
