import { ConfigError } from "@auth-platform/runtime/config";
import { describe, expect, it } from "vitest";
import { domainSettings } from "./config.js";

describe("domainSettings", () => {
  it("defaults to the host's resolvers, 3 s, and claims verifiable for 7 days", () => {
    expect(domainSettings({})).toEqual({ dns: { servers: [], timeoutMs: 3_000, tries: 2 }, claimTtlMs: 7 * 86_400_000 });
  });

  it("reads the servers, the timeout and the claim's lifetime", () => {
    expect(domainSettings({ SSO_DNS_SERVERS: "1.1.1.1, 127.0.0.1:5353", SSO_DNS_TIMEOUT_MS: "500", SSO_DOMAIN_CLAIM_TTL_HOURS: "48" })).toEqual({
      dns: { servers: ["1.1.1.1", "127.0.0.1:5353"], timeoutMs: 500, tries: 2 },
      claimTtlMs: 48 * 3_600_000,
    });
  });

  it("stops on a value out of range, naming the variable", () => {
    expect(() => domainSettings({ SSO_DOMAIN_CLAIM_TTL_HOURS: "0" })).toThrow(ConfigError);
    expect(() => domainSettings({ SSO_DNS_TIMEOUT_MS: "soon" })).toThrow(/SSO_DNS_TIMEOUT_MS/);
  });
});
