import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADERS, clientIp, rateLimitKeyOf, trustedProxyList } from "./client-ip.js";

const PEER = "10.9.9.9";

describe("clientIp: forwarded headers", () => {
  it("follows the header order of SPEC.md §9", () => {
    expect(CLIENT_IP_HEADERS).toEqual([
      "x-client-ip",
      "x-forwarded-for",
      "cf-connecting-ip",
      "fastly-client-ip",
      "x-real-ip",
      "x-cluster-client-ip",
      "x-forwarded",
      "forwarded-for",
      "forwarded",
    ]);
  });

  it("x-client-ip wins over x-forwarded-for, which wins over the rest", () => {
    const all: Record<string, string> = {
      "x-client-ip": "1.1.1.1",
      "x-forwarded-for": "2.2.2.2",
      "cf-connecting-ip": "3.3.3.3",
      "fastly-client-ip": "4.4.4.4",
      "x-real-ip": "5.5.5.5",
      "x-cluster-client-ip": "6.6.6.6",
      "x-forwarded": "7.7.7.7",
      "forwarded-for": "8.8.8.8",
      forwarded: "for=9.9.9.9",
    };
    // Drop the winner one header at a time: each next header in the order takes over.
    const expected = ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4", "5.5.5.5", "6.6.6.6", "7.7.7.7", "8.8.8.8", "9.9.9.9"];
    const headers = { ...all };
    for (const [index, name] of CLIENT_IP_HEADERS.entries()) {
      expect(clientIp(headers, PEER)).toBe(expected[index]);
      delete headers[name];
    }
    expect(clientIp(headers, PEER)).toBe(PEER);
  });

  it("takes the first comma-separated value", () => {
    expect(clientIp({ "x-forwarded-for": "203.0.113.7, 10.0.0.1, 10.0.0.2" }, PEER)).toBe("203.0.113.7");
    expect(clientIp({ "x-forwarded-for": " 2001:db8::7 ,10.0.0.1" }, PEER)).toBe("2001:db8::7");
  });

  it("takes the first of a header given as an array", () => {
    expect(clientIp({ "x-forwarded-for": ["203.0.113.8", "10.0.0.1"] }, PEER)).toBe("203.0.113.8");
  });

  it("skips a header whose value is not an IP and goes on to the next header", () => {
    expect(clientIp({ "x-client-ip": "unknown", "x-forwarded-for": "203.0.113.9" }, PEER)).toBe("203.0.113.9");
    expect(clientIp({ "x-client-ip": "", "x-forwarded-for": "not-an-ip, 1.2.3.4", "x-real-ip": "198.51.100.1" }, PEER)).toBe("198.51.100.1");
    expect(clientIp({ "x-forwarded-for": "999.1.1.1", "cf-connecting-ip": "<script>" }, PEER)).toBe(PEER);
  });

  it("reads the RFC 7239 forwarded header, quoted and bracketed, with or without a port", () => {
    expect(clientIp({ forwarded: 'for="[2001:db8::1]:443";proto=https' }, PEER)).toBe("2001:db8::1");
    expect(clientIp({ forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43" }, PEER)).toBe("192.0.2.60");
    expect(clientIp({ forwarded: 'proto=https; For="192.0.2.61:8080"' }, PEER)).toBe("192.0.2.61");
    expect(clientIp({ forwarded: "for=192.0.2.62, for=198.51.100.17" }, PEER)).toBe("192.0.2.62");
    expect(clientIp({ forwarded: "for=_hidden" }, PEER)).toBe(PEER);
  });

  it("strips ports from IPv4 and bracketed IPv6 values", () => {
    expect(clientIp({ "x-forwarded-for": "203.0.113.10:51234" }, PEER)).toBe("203.0.113.10");
    expect(clientIp({ "x-real-ip": "[2001:db8::10]:8443" }, PEER)).toBe("2001:db8::10");
    expect(clientIp({ "x-real-ip": "[2001:db8::11]" }, PEER)).toBe("2001:db8::11");
  });

  it("falls back to the socket peer, and to nothing without a usable peer", () => {
    expect(clientIp({}, "192.0.2.1")).toBe("192.0.2.1");
    expect(clientIp({}, "2001:db8::2")).toBe("2001:db8::2");
    expect(clientIp({}, undefined)).toBeUndefined();
    expect(clientIp({}, "garbage")).toBeUndefined();
  });

  it("reports an IPv4-mapped peer as plain IPv4", () => {
    expect(clientIp({}, "::ffff:192.0.2.33")).toBe("192.0.2.33");
    expect(clientIp({}, "::FFFF:192.0.2.34")).toBe("192.0.2.34");
  });
});

describe("clientIp: trusted proxies", () => {
  const proxies = trustedProxyList(["10.0.0.0/8", "192.168.1.5", "fd00:1234::/32", "2001:db8::5"]);
  const forwarded = { "x-forwarded-for": "203.0.113.50" };

  it("has no list when none is configured (headers are then always read)", () => {
    expect(trustedProxyList([])).toBeUndefined();
    expect(clientIp(forwarded, "198.51.100.1", undefined)).toBe("203.0.113.50");
  });

  it("honours the headers from a peer inside a trusted IPv4 CIDR or equal to a trusted IPv4", () => {
    expect(clientIp(forwarded, "10.20.30.40", proxies)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "192.168.1.5", proxies)).toBe("203.0.113.50");
  });

  it("honours the headers from a trusted IPv4 peer seen through a dual-stack socket (::ffff:)", () => {
    expect(clientIp(forwarded, "::ffff:10.1.2.3", proxies)).toBe("203.0.113.50");
  });

  it("honours the headers from a peer inside a trusted IPv6 CIDR or equal to a trusted IPv6", () => {
    expect(clientIp(forwarded, "fd00:1234:5678::1", proxies)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "2001:db8::5", proxies)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "2001:0db8:0000:0000:0000:0000:0000:0005", proxies)).toBe("203.0.113.50");
  });

  it("ignores the headers from any other peer and reports the peer", () => {
    expect(clientIp(forwarded, "11.0.0.1", proxies)).toBe("11.0.0.1");
    expect(clientIp(forwarded, "192.168.1.6", proxies)).toBe("192.168.1.6");
    expect(clientIp(forwarded, "::ffff:11.0.0.2", proxies)).toBe("11.0.0.2");
    expect(clientIp(forwarded, "fd00:1235::1", proxies)).toBe("fd00:1235::1");
    expect(clientIp(forwarded, "2001:db8::6", proxies)).toBe("2001:db8::6");
    expect(clientIp({ "x-client-ip": "1.2.3.4", forwarded: "for=5.6.7.8" }, "198.51.100.9", proxies)).toBe("198.51.100.9");
  });

  it("ignores the headers when there is no peer address at all", () => {
    expect(clientIp(forwarded, undefined, proxies)).toBeUndefined();
  });

  it("refuses an entry that is neither an IP nor a CIDR", () => {
    expect(() => trustedProxyList(["proxy.internal"])).toThrow(/AUTH_TRUSTED_PROXIES/);
  });
});

describe("rateLimitKeyOf", () => {
  it("keys IPv4 by the address itself", () => {
    expect(rateLimitKeyOf("203.0.113.1")).toBe("203.0.113.1");
    expect(rateLimitKeyOf("203.0.113.2")).not.toBe(rateLimitKeyOf("203.0.113.1"));
  });

  it("keys IPv4-mapped IPv6 as the IPv4 address, in either notation", () => {
    expect(rateLimitKeyOf("::ffff:1.2.3.4")).toBe("1.2.3.4");
    expect(rateLimitKeyOf("::FFFF:1.2.3.4")).toBe("1.2.3.4");
    expect(rateLimitKeyOf("::ffff:102:304")).toBe("1.2.3.4");
    expect(rateLimitKeyOf("0:0:0:0:0:ffff:c000:0221")).toBe("192.0.2.33");
  });

  it("gives every address in one IPv6 /64 the same key", () => {
    const key = rateLimitKeyOf("2001:db8:1:2::1");
    for (const address of ["2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0DB8:0001:0002:0000:0000:0000:0abc", "2001:db8:1:2:a:b:c:d"]) {
      expect(rateLimitKeyOf(address)).toBe(key);
    }
  });

  it("gives different /64s different keys", () => {
    const keys = new Set(["2001:db8:1:2::1", "2001:db8:1:3::1", "2001:db8:2:2::1", "2001:db9:1:2::1", "2001:db8:1:2:0:0:0:1"].map(rateLimitKeyOf));
    expect(keys.size).toBe(4);
  });

  it("expands compressed forms before taking the prefix", () => {
    expect(rateLimitKeyOf("2001:db8::1")).toBe(rateLimitKeyOf("2001:0db8:0000:0000:0000:0000:0000:0001"));
    expect(rateLimitKeyOf("2001:db8::1")).toBe(rateLimitKeyOf("2001:db8:0:0:1234::"));
    expect(rateLimitKeyOf("2001:db8::1")).not.toBe(rateLimitKeyOf("2001:db8:0:1::1"));
    expect(rateLimitKeyOf("::1")).toBe(rateLimitKeyOf("::"));
    expect(rateLimitKeyOf("fe80::1")).not.toBe(rateLimitKeyOf("fe81::1"));
  });

  it("does not confuse an IPv6 /64 key with any IPv4 key", () => {
    expect(rateLimitKeyOf("2001:db8::1")).toMatch(/\/64$/);
    expect(rateLimitKeyOf("::ffff:1.2.3.4")).not.toMatch(/\//);
  });
});

describe("behind trusted proxies, list headers are read from the right", () => {
  const proxies = trustedProxyList(["10.0.0.0/8"])!;
  it("takes the nearest address that is not a trusted proxy, not what the client wrote first", () => {
    const headers = { "x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.0.0.2" };
    expect(clientIp(headers, "10.0.0.1", proxies)).toBe("203.0.113.7");
  });
  it("takes the leftmost when every entry is a trusted proxy", () => {
    expect(clientIp({ "x-forwarded-for": "10.0.0.9, 10.0.0.2" }, "10.0.0.1", proxies)).toBe("10.0.0.9");
  });
  it("still reads the first value without trusted proxies (SPEC §9)", () => {
    expect(clientIp({ "x-forwarded-for": "6.6.6.6, 203.0.113.7" }, "10.0.0.1")).toBe("6.6.6.6");
  });
});
