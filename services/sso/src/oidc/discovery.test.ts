import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISCOVERY_CACHE_MS, httpDiscovery } from "./discovery.js";

describe("httpDiscovery", () => {
  let server: Server;
  let base = "";
  let reads = 0;
  let answer = 200;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      reads++;
      res.writeHead(answer, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const clock = { ms: Date.UTC(2026, 10, 29) };
  const discovery = httpDiscovery({ timeoutMs: 2_000, allowPrivateAddresses: true, now: () => new Date(clock.ms) });

  it("lets a sign-in reuse a recent document, and reads it again once it is old", async () => {
    const url = `${base}/reused/.well-known/openid-configuration`;
    const before = reads;
    const first = await discovery.discover(url, { reuse: true });
    expect(first.tokenEndpoint).toBe(`${base}/token`);
    await discovery.discover(url, { reuse: true });
    expect(reads - before).toBe(1);

    clock.ms += DISCOVERY_CACHE_MS;
    await discovery.discover(url, { reuse: true });
    expect(reads - before).toBe(2);
  });

  it("reads afresh when asked without reuse (registering or testing a provider)", async () => {
    const url = `${base}/fresh/.well-known/openid-configuration`;
    const before = reads;
    await discovery.discover(url);
    await discovery.discover(url);
    expect(reads - before).toBe(2);
  });

  it("keeps no failure: the next sign-in asks the provider again", async () => {
    const url = `${base}/failing/.well-known/openid-configuration`;
    const before = reads;
    answer = 503;
    await expect(discovery.discover(url, { reuse: true })).rejects.toMatchObject({ code: "INVALID_OIDC_CONFIGURATION" });
    answer = 200;
    await expect(discovery.discover(url, { reuse: true })).resolves.toMatchObject({ issuer: base });
    expect(reads - before).toBe(2);
  });
});
