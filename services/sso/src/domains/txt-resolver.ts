/**
 * Looking a challenge up in DNS, behind a port the tests fill with a real resolver pointed at a DNS server
 * on loopback (testing/dns-server.ts), and production with node:dns's Resolver on the configured servers.
 */
import { Resolver } from "node:dns/promises";
import type { ChallengeRecord } from "./challenge.js";

/** Resolves the TXT records at a name: each record as its character-strings (RFC 1035 3.3.14). */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

export interface DnsResolverOptions {
  /** `host` or `host:port` of the servers to ask; empty: the host's (/etc/resolv.conf). */
  servers: readonly string[];
  /** Milliseconds to wait for one answer before the next try. */
  timeoutMs: number;
  /** Tries per server. */
  tries: number;
}

/** The production resolver: node:dns (c-ares), never the host's cache, on the configured servers. */
export function dnsTxtResolver(options: DnsResolverOptions): TxtResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);
  return { resolveTxt: (name) => resolver.resolveTxt(name) };
}

export type ChallengeCheck =
  /** A TXT record at the name holds the expected value. */
  | "verified"
  /** The name does not exist, or has no TXT record. */
  | "absent"
  /** TXT records exist at the name, none with the expected value. */
  | "mismatch"
  /** The DNS could not answer (timeout, SERVFAIL, refused): nothing was learned, try again later. */
  | "unavailable";

/** Codes of node:dns for an answer that says "no such record", as opposed to "no answer". */
const NO_RECORD = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

/**
 * Whether the challenge record is published. A record split into several character-strings is read
 * joined (as a 255-byte limit forces long values to be); whitespace around it is ignored, nothing else.
 */
export async function checkChallenge(resolver: TxtResolver, record: ChallengeRecord): Promise<ChallengeCheck> {
  let records: string[][];
  try {
    records = await resolver.resolveTxt(record.name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && NO_RECORD.has(code) ? "absent" : "unavailable";
  }
  if (records.length === 0) return "absent";
  return records.some((strings) => strings.join("").trim() === record.value) ? "verified" : "mismatch";
}
