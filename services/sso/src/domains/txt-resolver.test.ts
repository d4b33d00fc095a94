import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../../testing/dns-server.js";
import { CHALLENGE_LABEL, CHALLENGE_VALUE_PREFIX, challengeRecord, newChallengeToken } from "./challenge.js";
import { checkChallenge, dnsTxtResolver, type TxtResolver } from "./txt-resolver.js";

describe("challenge records", () => {
  it("names a TXT record under the domain and carries the token", () => {
    expect(challengeRecord("example.com", "tok")).toEqual({
      name: `${CHALLENGE_LABEL}.example.com`,
      type: "TXT",
      value: `${CHALLENGE_VALUE_PREFIX}=tok`,
    });
  });

  it("draws a fresh 32-character base64url token each time", () => {
    const tokens = new Set(Array.from({ length: 50 }, newChallengeToken));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe("checkChallenge through node:dns against a DNS server on loopback", () => {
  let dns: TestDnsServer;
  let resolver: TxtResolver;
  const record = challengeRecord("example.com", "the-token");

  beforeAll(async () => {
    dns = await startDnsServer();
    // One try of 300 ms: the silent name below times out quickly, every other answer is immediate.
    resolver = dnsTxtResolver({ servers: dns.servers, timeoutMs: 300, tries: 1 });
  });
  afterAll(() => dns.stop());

  it("finds the published value", async () => {
    dns.setTxt(record.name, [record.value]);
    expect(await checkChallenge(resolver, record)).toBe("verified");
    expect(dns.queries).toContain(record.name);
  });

  it("finds the value among several TXT records, and one split into several strings", async () => {
    dns.setTxt(record.name, ["v=spf1 -all", "google-site-verification=abc", record.value]);
    expect(await checkChallenge(resolver, record)).toBe("verified");
    dns.setTxt(record.name, ["v=spf1 -all", [record.value.slice(0, 10), record.value.slice(10)]]);
    expect(await checkChallenge(resolver, record)).toBe("verified");
  });

  it("is absent when the name does not exist (NXDOMAIN) or has no TXT record", async () => {
    dns.remove(record.name);
    expect(await checkChallenge(resolver, record)).toBe("absent");
    dns.setTxt(record.name, []);
    expect(await checkChallenge(resolver, record)).toBe("absent");
  });

  it("is a mismatch for another value, a prefix of it, or the value published under another name", async () => {
    dns.setTxt(record.name, [`${CHALLENGE_VALUE_PREFIX}=another-token`, "the-token", `${record.value}x`]);
    expect(await checkChallenge(resolver, record)).toBe("mismatch");
    dns.remove(record.name);
    dns.setTxt("example.com", [record.value]);
    expect(await checkChallenge(resolver, record)).toBe("absent");
  });

  it("is unavailable when the server fails or never answers", async () => {
    dns.failFor(record.name);
    expect(await checkChallenge(resolver, record)).toBe("unavailable");
    dns.silentFor(record.name);
    expect(await checkChallenge(resolver, record)).toBe("unavailable");
  });
});
