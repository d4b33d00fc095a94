/**
 * The sso domain's dependencies for unit tests: the memory store, a clock the test moves, a fake of the
 * organization service (roles by user and organization) and of discovery (documents by URL, counting reads).
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Logger } from "@auth-platform/runtime/log";
import { newId } from "@auth-platform/runtime/random";
import { ssoConfig } from "../src/config.js";
import type { Caller, DiscoveredIssuer, Registry } from "../src/domain/ports.js";
import { secretBox } from "../src/domain/secret-box.js";
import { createMemorySsoStore } from "../src/store/memory-sso-store.js";

export const T0 = Date.UTC(2031, 0, 1);
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
export const SECRET = "test-secret-0123456789-0123456789-0123456789";

export interface TestRegistry extends Registry {
  advance(ms: number): void;
  /** `${userId}/${organizationId}` -> role. */
  roles: Map<string, string>;
  /** Organization slug → id, as the organization service would answer. */
  slugs: Map<string, string>;
  /** Discovery documents by URL. */
  documents: Map<string, DiscoveredIssuer>;
  discoveries: number;
  /** SAML IdP metadata XML by URL (what samlMetadata fetches). */
  metadata: Map<string, string>;
  /** A member of a new organization with this role, as the gateway would call for them. */
  member(role: string, organizationId?: string): Caller & { organizationId: string };
  /** An issuer whose discovery document is served. */
  issuer(base?: string): string;
}

export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  let clock = T0;
  const registry: TestRegistry = {
    config: ssoConfig({ AUTH_SECRET: SECRET, AUTH_BASE_URL: "https://auth.example.com/api/auth", ...env }),
    store: createMemorySsoStore(),
    log: silent,
    now: () => new Date(clock),
    advance: (ms) => {
      clock += ms;
    },
    secrets: secretBox(SECRET),
    // No TXT record anywhere; the domain suites run a real DNS server (testing/dns-server.ts).
    resolver: {
      async resolveTxt() {
        throw Object.assign(new Error("queryTxt ENOTFOUND"), { code: "ENOTFOUND" });
      },
    },
    roles: new Map(),
    slugs: new Map(),
    documents: new Map(),
    discoveries: 0,
    metadata: new Map(),
    async samlMetadata(url) {
      const xml = registry.metadata.get(url);
      if (xml === undefined) throw new AuthError("INVALID_SAML_METADATA", "the metadata URL did not answer metadata");
      return xml;
    },
    organizations: {
      async membershipRole(userId, organizationId) {
        return registry.roles.get(`${userId}/${organizationId}`) ?? null;
      },
      async addMember(organizationId, userId, role) {
        const key = `${userId}/${organizationId}`;
        if (!registry.roles.has(key)) registry.roles.set(key, role);
      },
      async findOrganizationId(slug) {
        return registry.slugs.get(slug) ?? null;
      },
    },
    identity: {
      async signInWithProvider() {
        throw new Error("the domain unit tests sign no one in: the platform suites do (test/sso-sign-in.int.test.ts)");
      },
    },
    discovery: {
      async checkEndpoint(url) {
        // As outbound.ts answers an address inside the network.
        if (new URL(url).hostname.endsWith(".internal")) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL must lead to a public address");
      },
      async discover(url) {
        registry.discoveries++;
        const found = registry.documents.get(url);
        if (!found) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the discovery document could not be read");
        return found;
      },
    },
    member(role, organizationId = newId()) {
      const userId = newId();
      registry.roles.set(`${userId}/${organizationId}`, role);
      return { userId, sessionId: newId(), email: `${userId.toLowerCase()}@example.com`, emailVerified: true, activeOrganizationId: organizationId, organizationId };
    },
    issuer(base = `https://${newId().toLowerCase()}.idp.example.com`) {
      registry.documents.set(`${base}/.well-known/openid-configuration`, {
        issuer: base,
        authorizationEndpoint: `${base}/authorize`,
        tokenEndpoint: `${base}/token`,
        userInfoEndpoint: `${base}/userinfo`,
        jwksEndpoint: `${base}/jwks`,
      });
      return base;
    },
  };
  return registry;
}
