/** The sso store on MikroORM (SQLite or PostgreSQL). */
import { AuthError } from "@auth-platform/proto/errors";
import { isUniqueViolation, openStore } from "@auth-platform/runtime/store";
import { SCIM_ENTITIES } from "../scim/entities.js";
import { scimStoreOver } from "../scim/mikro-scim-store.js";
import type { ScimStore } from "../scim/ports.js";
import { DomainEntity } from "./domain-entities.js";
import { OidcStateEntity, ProviderEntity, type ProviderRow } from "./entities.js";
import { samlStateEntities, samlStateOn } from "../saml/saml-state-store.js";
import { mikroDomainStore } from "./mikro-domain-store.js";
import { ssoMigrations } from "./migrations.js";
import type { OidcSettings, ProviderRecord, ProviderType, SsoStore } from "./sso-store.js";

function toProvider(row: ProviderRow): ProviderRecord {
  return {
    providerId: row.providerId,
    organizationId: row.organizationId,
    type: row.type as ProviderType,
    issuer: row.issuer,
    domain: row.domain,
    domainVerified: Boolean(row.domainVerified),
    enabled: Boolean(row.enabled),
    defaultRole: row.defaultRole,
    userId: row.userId,
    oidc: row.oidcConfig ? (JSON.parse(row.oidcConfig) as OidcSettings) : null,
    saml: row.samlConfig ? (JSON.parse(row.samlConfig) as Record<string, unknown>) : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const json = (value: object | null | undefined) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));

/** The sso schema on one connection: providers, verified domains, and the SCIM tables (`scim`). */
export async function openSsoStore(url: string): Promise<SsoStore & { scim: ScimStore }> {
  const store = await openStore({ url, entities: [ProviderEntity, DomainEntity, OidcStateEntity, ...samlStateEntities, ...SCIM_ENTITIES], migrations: ssoMigrations });
  return {
    ...mikroDomainStore(store),
    scim: scimStoreOver(store),
    saml: samlStateOn(store),
    async insertProvider(p) {
      try {
        await store.em().insert(ProviderEntity, {
          providerId: p.providerId,
          organizationId: p.organizationId,
          type: p.type,
          issuer: p.issuer,
          domain: p.domain,
          domainVerified: p.domainVerified,
          enabled: p.enabled,
          defaultRole: p.defaultRole,
          userId: p.userId,
          oidcConfig: json(p.oidc) ?? null,
          samlConfig: json(p.saml) ?? null,
          createdAt: p.createdAt,
          updatedAt: p.updatedAt,
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const taken = await store.readOne(ProviderEntity, { providerId: p.providerId });
        throw new AuthError(taken ? "SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS" : "THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER", undefined, { cause: error });
      }
    },
    async getProvider(providerId) {
      const row = await store.readOne(ProviderEntity, { providerId });
      return row ? toProvider(row) : null;
    },
    async findProviderByDomain(domain) {
      const row = await store.readOne(ProviderEntity, { domain });
      return row ? toProvider(row) : null;
    },
    async listProviders(organizationId) {
      const rows = await store.em().find(ProviderEntity, { organizationId }, { orderBy: { createdAt: "asc", providerId: "asc" } });
      return rows.map(toProvider);
    },
    async updateProvider(providerId, patch) {
      const { oidc, saml, ...plain } = patch;
      const set = Object.fromEntries(Object.entries({ ...plain, oidcConfig: json(oidc), samlConfig: json(saml) }).filter(([, v]) => v !== undefined));
      try {
        if (Object.keys(set).length) await store.em().nativeUpdate(ProviderEntity, { providerId }, set);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError("THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER", undefined, { cause: error });
        throw error;
      }
      const row = await store.readOne(ProviderEntity, { providerId });
      return row ? toProvider(row) : null;
    },
    async deleteProvider(providerId) {
      return (await store.em().nativeDelete(ProviderEntity, { providerId })) > 0;
    },
    async saveSignInState(state, now) {
      await store.em().nativeDelete(OidcStateEntity, { expiresAt: { $lte: now } });
      await store.em().insert(OidcStateEntity, { ...state });
    },
    async takeSignInState(state) {
      const row = await store.readOne(OidcStateEntity, { state });
      // Whoever deletes the row owns it: two callbacks with one state cannot both take it.
      if (!row || (await store.em().nativeDelete(OidcStateEntity, { state })) !== 1) return null;
      return { ...row, errorUrl: row.errorUrl ?? null, newUserUrl: row.newUserUrl ?? null };
    },
    close: () => store.close(),
  };
}
