/**
 * The client's IP for rate limiting: forwarded headers in the order of SPEC.md §9 (first comma-separated
 * value that is an IP), else the socket peer. With trusted proxies configured, headers count only when the
 * peer is one of them, so a client cannot pick its own rate-limit key. IPv6 clients are keyed by their /64:
 * one subscriber usually holds a whole /64, and per-address keys would let it rotate past the limit.
 */
import { BlockList, isIP } from "node:net";

export const CLIENT_IP_HEADERS = [
  "x-client-ip",
  "x-forwarded-for",
  "cf-connecting-ip",
  "fastly-client-ip",
  "x-real-ip",
  "x-cluster-client-ip",
  "x-forwarded",
  "forwarded-for",
  "forwarded",
] as const;

/** Strips brackets, ports and `for=` so `[::1]:80`, `1.2.3.4:5` and `for="1.2.3.4"` read as addresses. */
function cleanAddress(raw: string): string {
  let value = raw.trim();
  const forMatch = /(?:^|;)\s*for=("?)([^;"]+)\1/i.exec(value);
  if (forMatch) value = forMatch[2]!.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(value)) return value.slice(0, value.lastIndexOf(":"));
  return value;
}

/** Expands an IPv6 address to 8 groups; null if it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.replace(v4[1]!, `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...fill, ...tailGroups].map((g) => parseInt(g, 16));
}

/** IPv4 as is; IPv4-mapped IPv6 as its IPv4; other IPv6 as its /64 prefix. */
export function rateLimitKeyOf(address: string): string {
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

export function trustedProxyList(entries: string[]): BlockList | undefined {
  if (!entries.length) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (!isIP(address)) throw new Error(`AUTH_TRUSTED_PROXIES: not an IP or CIDR: ${entry}`);
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function isTrustedPeer(peer: string, proxies: BlockList): boolean {
  const family = isIP(peer) === 6 ? "ipv6" : "ipv4";
  if (proxies.check(peer, family)) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer);
  return mapped ? proxies.check(mapped[1]!, "ipv4") : false;
}

/**
 * Behind trusted proxies a list header is read from the right: each proxy appends the address it saw, so
 * the nearest entry that is not one of ours is the client, and whatever the client wrote further left
 * cannot choose its own rate-limit key.
 */
function nearestUntrusted(entries: string[], proxies: BlockList): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (!isTrustedPeer(entries[i]!, proxies)) return entries[i];
  return entries[0];
}

export function clientIp(
  headers: Record<string, string | string[] | undefined>,
  peer: string | undefined,
  proxies?: BlockList,
): string | undefined {
  const useHeaders = !proxies || (peer !== undefined && isTrustedPeer(peer, proxies));
  if (useHeaders) {
    for (const name of CLIENT_IP_HEADERS) {
      const raw = headers[name];
      const value = Array.isArray(raw) ? raw.join(",") : raw;
      if (!value) continue;
      const entries = value.split(",").map(cleanAddress);
      // SPEC §9: the first value; behind trusted proxies, the nearest untrusted one.
      const candidate = proxies ? nearestUntrusted(entries.filter((entry) => isIP(entry)), proxies) : entries[0];
      if (candidate && isIP(candidate)) return candidate;
    }
  }
  if (!peer || !isIP(peer)) return undefined;
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; record the plain IPv4 address.
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(peer) ? peer.slice(7) : peer;
}
