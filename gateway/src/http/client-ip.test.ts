import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADERS, DEFAULT_TRUSTED_PROXIES, clientIp, clientIpPolicy, rateLimitKeyOf, trustedProxyList } from "./client-ip.js";

/** A trusted proxy under the default policy. */
const PEER = "10.9.9.9";
const DEFAULT = clientIpPolicy(DEFAULT_TRUSTED_PROXIES);
/** Every client-IP header enabled. */
const ALL_HEADERS = clientIpPolicy(DEFAULT_TRUSTED_PROXIES, [...CLIENT_IP_HEADERS]);

describe("clientIp: which peers are trusted proxies", () => {
  const forwarded = { "x-forwarded-for": "203.0.113.50" };

  it("trusts loopback and private ranges by default, in IPv4, IPv6 and IPv4-mapped form", () => {
    for (const peer of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "10.255.255.255",
      "172.16.0.1",
      "172.31.255.254",
      "192.168.0.1",
      "192.168.255.255",
      "::1",
      "fc00::1",
      "fd12:3456::1",
      "::ffff:127.0.0.1",
      "::ffff:10.1.2.3",
      "::ffff:172.20.0.1",
      "::ffff:192.168.7.7",
      "::ffff:7f00:1",
      "0:0:0:0:0:ffff:a01:203",
    ]) {
      expect(clientIp(forwarded, peer, DEFAULT), peer).toBe("203.0.113.50");
    }
  });

  it("ignores every forwarded header from a public peer and reports the peer", () => {
    const spoofed = { "x-forwarded-for": "1.1.1.1", forwarded: "for=2.2.2.2", "x-client-ip": "3.3.3.3", "cf-connecting-ip": "4.4.4.4", "x-real-ip": "5.5.5.5" };
    for (const peer of ["198.51.100.7", "172.32.0.1", "172.15.255.255", "192.169.0.1", "11.0.0.1", "2001:db8::1", "fe00::1", "::ffff:198.51.100.8"]) {
      expect(clientIp(spoofed, peer, ALL_HEADERS), peer).toBe(peer.replace(/^::ffff:/, ""));
    }
  });

  it("uses exactly the configured list when one is given; an empty list trusts no peer", () => {
    const only = clientIpPolicy(["10.0.0.0/8", "192.168.1.5", "fd00:1234::/32", "2001:db8::5"]);
    expect(clientIp(forwarded, "10.20.30.40", only)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "192.168.1.5", only)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "::ffff:10.1.2.3", only)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "fd00:1234:5678::1", only)).toBe("203.0.113.50");
    expect(clientIp(forwarded, "2001:0db8:0000:0000:0000:0000:0000:0005", only)).toBe("203.0.113.50");
    for (const peer of ["127.0.0.1", "192.168.1.6", "fd00:1235::1", "2001:db8::6", "::ffff:11.0.0.2"]) {
      expect(clientIp(forwarded, peer, only), peer).toBe(peer.replace(/^::ffff:/, ""));
    }
    expect(clientIp(forwarded, "127.0.0.1", clientIpPolicy([]))).toBe("127.0.0.1");
  });

  it("falls back to the socket peer, and to nothing without a usable peer", () => {
    expect(clientIp({}, "192.0.2.1", DEFAULT)).toBe("192.0.2.1");
    expect(clientIp({}, "2001:db8::2", DEFAULT)).toBe("2001:db8::2");
    expect(clientIp({}, "::FFFF:192.0.2.34", DEFAULT)).toBe("192.0.2.34");
    expect(clientIp(forwarded, undefined, DEFAULT)).toBeUndefined();
    expect(clientIp(forwarded, "garbage", DEFAULT)).toBeUndefined();
  });

  it("refuses an entry that is neither an IP nor a CIDR", () => {
    expect(() => trustedProxyList(["proxy.internal"])).toThrow(/AUTH_TRUSTED_PROXIES/);
    expect(() => trustedProxyList(["10.0.0.0/33"])).toThrow(/AUTH_TRUSTED_PROXIES/);
    expect(() => trustedProxyList(["10.0.0.0/x"])).toThrow(/AUTH_TRUSTED_PROXIES/);
    expect(() => trustedProxyList(["fc00::/129"])).toThrow(/AUTH_TRUSTED_PROXIES/);
  });
});

describe("clientIp: which headers count from a trusted proxy", () => {
  it("reads only X-Forwarded-For and Forwarded unless more are configured", () => {
    expect(DEFAULT.headers).toEqual(["x-forwarded-for", "forwarded"]);
    const singles = { "x-client-ip": "1.1.1.1", "cf-connecting-ip": "3.3.3.3", "fastly-client-ip": "4.4.4.4", "x-real-ip": "5.5.5.5", "x-cluster-client-ip": "6.6.6.6" };
    expect(clientIp(singles, PEER, DEFAULT)).toBe(PEER);
    expect(clientIp({ ...singles, forwarded: "for=9.9.9.9" }, PEER, DEFAULT)).toBe("9.9.9.9");
  });

  it("tries the configured headers in their fixed order, whatever order they are named in", () => {
    expect(clientIpPolicy([], ["CF-Connecting-IP", "x-client-ip"]).headers).toEqual(["x-client-ip", "x-forwarded-for", "cf-connecting-ip", "forwarded"]);
    expect(clientIpPolicy([], ["true-client-ip"]).headers).toEqual(["x-forwarded-for", "forwarded", "true-client-ip"]);
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
      expect(clientIp(headers, PEER, ALL_HEADERS)).toBe(expected[index]);
      delete headers[name];
    }
    expect(clientIp(headers, PEER, ALL_HEADERS)).toBe(PEER);
  });

  it("skips a header whose value is not an IP and goes on to the next header", () => {
    expect(clientIp({ "x-client-ip": "unknown", "x-forwarded-for": "203.0.113.9" }, PEER, ALL_HEADERS)).toBe("203.0.113.9");
    expect(clientIp({ "x-client-ip": "", "x-forwarded-for": "1.2.3.4, not-an-ip", "x-real-ip": "198.51.100.1" }, PEER, ALL_HEADERS)).toBe("198.51.100.1");
    expect(clientIp({ "x-forwarded-for": "999.1.1.1", "cf-connecting-ip": "<script>" }, PEER, ALL_HEADERS)).toBe(PEER);
  });

  it("reads the RFC 7239 forwarded header, quoted and bracketed, with or without a port", () => {
    expect(clientIp({ forwarded: 'for="[2001:db8::1]:443";proto=https' }, PEER, DEFAULT)).toBe("2001:db8::1");
    expect(clientIp({ forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43" }, PEER, DEFAULT)).toBe("192.0.2.60");
    expect(clientIp({ forwarded: 'proto=https; For="192.0.2.61:8080"' }, PEER, DEFAULT)).toBe("192.0.2.61");
    expect(clientIp({ forwarded: "for=_hidden" }, PEER, DEFAULT)).toBe(PEER);
  });

  it("strips ports from IPv4 and bracketed IPv6 values", () => {
    expect(clientIp({ "x-forwarded-for": "203.0.113.10:51234" }, PEER, DEFAULT)).toBe("203.0.113.10");
    expect(clientIp({ "x-real-ip": "[2001:db8::10]:8443" }, PEER, ALL_HEADERS)).toBe("2001:db8::10");
    expect(clientIp({ "x-real-ip": "[2001:db8::11]" }, PEER, ALL_HEADERS)).toBe("2001:db8::11");
    expect(clientIp({ "x-forwarded-for": "::ffff:203.0.113.12" }, PEER, DEFAULT)).toBe("203.0.113.12");
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

describe("clientIp: list headers are read from the right", () => {
  const proxies = clientIpPolicy(["10.0.0.0/8"]);

  it("takes the nearest address that is not a trusted proxy, not what the client wrote first", () => {
    expect(clientIp({ "x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.0.0.2" }, "10.0.0.1", proxies)).toBe("203.0.113.7");
    expect(clientIp({ "x-forwarded-for": "6.6.6.6, 203.0.113.7" }, "10.0.0.1", proxies)).toBe("203.0.113.7");
    expect(clientIp({ forwarded: "for=6.6.6.6, for=192.0.2.62;proto=https, for=10.0.0.3" }, "10.0.0.1", proxies)).toBe("192.0.2.62");
    expect(clientIp({ "x-forwarded-for": ["6.6.6.6", "203.0.113.8"] }, "10.0.0.1", proxies)).toBe("203.0.113.8");
    expect(clientIp({ "x-forwarded-for": " 2001:db8::7 ,2001:db8::8" }, "10.0.0.1", proxies)).toBe("2001:db8::8");
  });

  it("takes the leftmost when every entry is a trusted proxy", () => {
    expect(clientIp({ "x-forwarded-for": "10.0.0.9, 10.0.0.2" }, "10.0.0.1", proxies)).toBe("10.0.0.9");
  });

  it("stops at an entry that is not an address: what lies left of it was written by the client", () => {
    expect(clientIp({ "x-forwarded-for": "6.6.6.6, unknown, 10.0.0.2" }, "10.0.0.1", proxies)).toBe("10.0.0.1");
    expect(clientIp({ forwarded: "for=6.6.6.6, for=_hidden" }, "10.0.0.1", proxies)).toBe("10.0.0.1");
    expect(clientIp({ "x-forwarded-for": "6.6.6.6,, 203.0.113.9" }, "10.0.0.1", proxies)).toBe("203.0.113.9");
  });
});
