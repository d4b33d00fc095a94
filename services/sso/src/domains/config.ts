/**
 * The verified-domain settings of the sso service (docs/configuration.md#sso), read with the service's own
 * (config.ts spreads domainSettings into its config).
 */
import { env, loadConfig } from "@auth-platform/runtime/config";
import * as z from "zod";
import type { DnsResolverOptions } from "./txt-resolver.js";

const HOUR = 3_600_000;

const schema = z.object({
  SSO_DNS_SERVERS: env.list(),
  SSO_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3_000),
  SSO_DOMAIN_CLAIM_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24 * 7),
});

export interface DomainSettings {
  /** The resolver that looks the TXT records up: SSO_DNS_SERVERS (`host` or `host:port`; empty: the host's), SSO_DNS_TIMEOUT_MS, 2 tries. */
  dns: DnsResolverOptions;
  /** How long an unverified claim stays verifiable (SSO_DOMAIN_CLAIM_TTL_HOURS). */
  claimTtlMs: number;
}

export function domainSettings(source: Record<string, string | undefined>): DomainSettings {
  const c = loadConfig(schema, source);
  return { dns: { servers: c.SSO_DNS_SERVERS, timeoutMs: c.SSO_DNS_TIMEOUT_MS, tries: 2 }, claimTtlMs: c.SSO_DOMAIN_CLAIM_TTL_HOURS * HOUR };
}
