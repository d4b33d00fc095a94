/**
 * The client's IP for rate limiting. Forwarded headers count only when the socket peer is a trusted proxy
 * (AUTH_TRUSTED_PROXIES, default loopback and private ranges): a gateway reached directly from the internet
 * ignores them, so a client cannot pick its own rate-limit key. From a trusted peer, X-Forwarded-For and
 * Forwarded are read from the right (the nearest address that is not a trusted proxy); single-value headers
 * (X-Client-IP, CF-Connecting-IP, ...) count only when named in AUTH_CLIENT_IP_HEADERS, because common
 * proxies pass them through untouched. Headers are tried in one fixed order (docs/adr/0007-client-ip-from-trusted-proxies.md). IPv6 clients are keyed
 * by their /64: one subscriber usually holds a whole /64, and per-address keys would let it rotate past the
 * limit.
 */
import { BlockList, isIP } from "node:net";

/** The fixed order headers are tried in (docs/adr/0007-client-ip-from-trusted-proxies.md). */
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

/** Read from every trusted peer: each proxy appends to them, so the right end is ours to trust. */
const LIST_HEADERS = ["x-forwarded-for", "forwarded"];

/** AUTH_TRUSTED_PROXIES when unset: loopback and private ranges, also in their IPv4-mapped IPv6 form. */
export const DEFAULT_TRUSTED_PROXIES = [
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "::1/128",
  "fc00::/7",
  "::ffff:127.0.0.0/104",
  "::ffff:10.0.0.0/104",
  "::ffff:172.16.0.0/108",
  "::ffff:192.168.0.0/112",
];

export interface ClientIpPolicy {
  proxies: BlockList;
  /** The headers read from a trusted peer, in the order they are tried. */
  headers: string[];
}

/**
 * The policy from AUTH_TRUSTED_PROXIES (IPs and CIDRs) and AUTH_CLIENT_IP_HEADERS (extra single-value
 * headers): X-Forwarded-For and Forwarded plus the named ones, in the fixed order above, unknown names last.
 */
export function clientIpPolicy(trustedProxies: string[], extraHeaders: string[] = []): ClientIpPolicy {
  const wanted = new Set([...LIST_HEADERS, ...extraHeaders.map((name) => name.toLowerCase())]);
  const known = CLIENT_IP_HEADERS.filter((name) => wanted.has(name));
  const others = [...wanted].filter((name) => !(CLIENT_IP_HEADERS as readonly string[]).includes(name));
  return { proxies: trustedProxyList(trustedProxies), headers: [...known, ...others] };
}

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
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** A BlockList of the entries (IPs or CIDRs); an empty list trusts no peer. */
export function trustedProxyList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    const bits = Number(prefix);
    if (!isIP(address)) throw new Error(`AUTH_TRUSTED_PROXIES: not an IP or CIDR: ${entry}`);
    if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && bits <= (family === "ipv6" ? 128 : 32))) {
      throw new Error(`AUTH_TRUSTED_PROXIES: bad prefix length: ${entry}`);
    }
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, bits, family);
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
 * A list header is read from the right: each proxy appends the address it saw, so the nearest entry that is
 * not one of ours is the client, and whatever the client wrote further left cannot choose its own key. An
 * entry that is not an address (`unknown`, `_hidden`) ends the walk with nothing: what lies left of it is
 * the client's own writing. When every entry is a trusted proxy, the leftmost is the client.
 */
function nearestUntrusted(entries: string[], proxies: BlockList): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (!isIP(entry)) return undefined;
    if (!isTrustedPeer(entry, proxies)) return entry;
  }
  return entries[0];
}

export function clientIp(headers: Record<string, string | string[] | undefined>, peer: string | undefined, policy: ClientIpPolicy): string | undefined {
  if (peer !== undefined && isIP(peer) && isTrustedPeer(peer, policy.proxies)) {
    for (const name of policy.headers) {
      const raw = headers[name];
      const value = Array.isArray(raw) ? raw.join(",") : raw;
      if (!value) continue;
      const candidate = nearestUntrusted(value.split(",").map(cleanAddress).filter(Boolean), policy.proxies);
      if (candidate) return plainIpv4(candidate);
    }
  }
  if (!peer || !isIP(peer)) return undefined;
  return plainIpv4(peer);
}

/** A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; record the plain IPv4 address. */
function plainIpv4(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}
