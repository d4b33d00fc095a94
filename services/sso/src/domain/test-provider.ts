/**
 * "Test connection" for an organization's admin (docs/sso.md#the-identity-provider-screen): the provider's
 * settings checked against its identity provider the way a sign-in reaches it, each check answered with what
 * was found, so the admin sees which setting to fix. Only a provider the caller may manage is tested: a
 * member of its organization without a manager's role is told so (403; they know the organization has
 * one from its sign-in), anyone else gets PROVIDER_NOT_FOUND as GetProvider answers, so ids are not probed.
 * Every address goes through the service's outbound check.
 */
import { X509Certificate } from "node:crypto";
import { AuthError } from "@auth-platform/proto/errors";
import { parseIdentityProviderMetadata } from "../saml/idp-metadata.js";
import { readSamlSettings } from "../saml/settings.js";
import type { OidcSettings } from "../store/sso-store.js";
import type { Caller, Registry } from "./ports.js";
import { managedProvider } from "./providers.js";

export interface ProviderCheck {
  name: "discovery" | "issuer" | "token_endpoint" | "jwks_endpoint" | "metadata_url" | "certificate" | "sso_url";
  ok: boolean;
  /** For the admin: why it failed, or what was found. Never a secret. */
  detail: string;
}

export interface ProviderTestResult {
  ok: boolean;
  checks: ProviderCheck[];
}

/** The catalogue's reason of a refusal (AuthError's message); anything else is said generically. */
const reasonOf = (error: unknown) => (error instanceof AuthError ? error.message : "the check could not be made");

async function check(name: ProviderCheck["name"], run: () => Promise<string>): Promise<ProviderCheck> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (error) {
    return { name, ok: false, detail: reasonOf(error) };
  }
}

async function oidcChecks(registry: Registry, issuer: string, oidc: OidcSettings): Promise<ProviderCheck[]> {
  const checks: ProviderCheck[] = [];
  let discoveredIssuer: string | undefined;
  checks.push(
    await check("discovery", async () => {
      discoveredIssuer = (await registry.discovery.discover(oidc.discoveryEndpoint)).issuer;
      return oidc.discoveryEndpoint;
    }),
  );
  if (discoveredIssuer !== undefined) {
    // OpenID Connect Discovery 1.0, 4.3: the document names the issuer asked for, exactly.
    checks.push(
      discoveredIssuer === issuer
        ? { name: "issuer", ok: true, detail: issuer }
        : { name: "issuer", ok: false, detail: `the discovery document names ${discoveredIssuer}, not ${issuer}` },
    );
  }
  for (const [name, url] of [
    ["token_endpoint", oidc.tokenEndpoint],
    ["jwks_endpoint", oidc.jwksEndpoint],
  ] as const) {
    checks.push(
      await check(name, async () => {
        if (!url) throw new AuthError("INVALID_OIDC_CONFIGURATION", "no endpoint is known");
        await registry.discovery.checkEndpoint(url);
        return url;
      }),
    );
  }
  return checks;
}

/** A signing certificate (base64 DER, as stored): its subject and when it expires, refused once expired or before it starts. */
export function certificateCheck(certificate: string, now: Date): ProviderCheck {
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(Buffer.from(certificate, "base64"));
  } catch {
    return { name: "certificate", ok: false, detail: "the certificate could not be read" };
  }
  const subject = parsed.subject.replace(/\n/g, ", ");
  const validTo = new Date(parsed.validTo);
  const validFrom = new Date(parsed.validFrom);
  if (validTo.getTime() <= now.getTime()) return { name: "certificate", ok: false, detail: `${subject}: expired on ${validTo.toISOString()}` };
  if (validFrom.getTime() > now.getTime()) return { name: "certificate", ok: false, detail: `${subject}: not valid before ${validFrom.toISOString()}` };
  return { name: "certificate", ok: true, detail: `${subject}: expires on ${validTo.toISOString()}` };
}

async function samlChecks(registry: Registry, stored: unknown): Promise<ProviderCheck[]> {
  const settings = readSamlSettings(stored);
  const checks: ProviderCheck[] = [];
  const { metadataUrl } = settings;
  if (metadataUrl) {
    checks.push(
      await check("metadata_url", async () => {
        const idp = await parseIdentityProviderMetadata(await registry.samlMetadata(metadataUrl));
        return idp.entityId === settings.idpEntityId ? metadataUrl : `${metadataUrl} now names the IdP ${idp.entityId}: update the provider to use it`;
      }),
    );
  }
  const now = registry.now();
  for (const certificate of settings.certificates) checks.push(certificateCheck(certificate, now));
  checks.push(
    await check("sso_url", async () => {
      await registry.discovery.checkEndpoint(settings.ssoUrl);
      return settings.ssoUrl;
    }),
  );
  return checks;
}

export async function testProvider(registry: Registry, caller: Caller, providerId: string): Promise<ProviderTestResult> {
  const found = await registry.store.getProvider(providerId);
  if (found && (await registry.organizations.membershipRole(caller.userId, found.organizationId)) !== null) {
    await managedProvider(registry, caller, providerId).catch((error: unknown) => {
      if (error instanceof AuthError && error.code === "PROVIDER_NOT_FOUND") throw new AuthError("YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS");
      throw error;
    });
  }
  const { provider } = await managedProvider(registry, caller, providerId);
  const checks = provider.oidc ? await oidcChecks(registry, provider.issuer, provider.oidc) : provider.saml ? await samlChecks(registry, provider.saml) : [];
  registry.log.info("sso provider tested", { providerId, failed: checks.filter((c) => !c.ok).map((c) => c.name) });
  return { ok: checks.length > 0 && checks.every((c) => c.ok), checks };
}
