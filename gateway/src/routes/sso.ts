/**
 * Identity providers per organization (docs/http-api/sso.md), as `@better-auth/sso` 1.7 calls them. Each
 * route checks the shape, then makes one call to the sso service with the caller read from the session;
 * the service applies every rule (who may manage, discovery, sealing the client secret).
 */
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import type { SamlInput } from "@auth-platform/proto/gen/auth/sso/v1/saml";
import type { OidcInput, Provider } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { type SsoProvider, ssoProviderListSchema, ssoProviderSchema, ssoProviderTestSchema, successSchema } from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(64);
const url = z.string().min(1).max(2048);
const mapping = z.object({
  id: z.string().max(255).optional(),
  email: z.string().max(255).optional(),
  emailVerified: z.string().max(255).optional(),
  name: z.string().max(255).optional(),
  image: z.string().max(255).optional(),
  extraFields: z.record(z.string(), z.unknown()).optional(),
});
export const oidcConfigBody = z.object({
  clientId: z.string().min(1).max(512).optional(),
  clientSecret: z.string().min(1).max(4096).optional(),
  discoveryEndpoint: url.optional(),
  authorizationEndpoint: url.optional(),
  tokenEndpoint: url.optional(),
  userInfoEndpoint: url.optional(),
  jwksEndpoint: url.optional(),
  scopes: z.array(z.string().min(1).max(128)).max(30).optional(),
  pkce: z.boolean().optional(),
  tokenEndpointAuthentication: z.enum(["client_secret_post", "client_secret_basic"]).optional(),
  mapping: mapping.optional(),
});
const certificates = z.union([z.string().min(1).max(16_384), z.array(z.string().min(1).max(16_384)).max(2)]);
/** @better-auth/sso 1.7's samlConfig (the fields it sends that we do not use are accepted and ignored), plus ours. */
export const samlConfigBody = z.looseObject({
  entryPoint: url.optional(),
  cert: certificates.optional(),
  idpMetadata: z
    .looseObject({
      metadata: z
        .string()
        .min(1)
        .max(100 * 1024)
        .optional(),
      entityID: z.string().min(1).max(1024).optional(),
      cert: certificates.optional(),
    })
    .optional(),
  mapping: z
    .looseObject({
      email: z.string().max(255).optional(),
      emailVerified: z.string().max(255).optional(),
      name: z.string().max(255).optional(),
      firstName: z.string().max(255).optional(),
      lastName: z.string().max(255).optional(),
    })
    .optional(),
  /** Ours: where to fetch the IdP's metadata XML instead of pasting it. */
  metadataUrl: url.optional(),
  /** Ours: accept responses the IdP sends without our request (off unless set). */
  allowIdpInitiated: z.boolean().optional(),
});
export const registerBody = z.object({
  providerId: id,
  issuer: url,
  domain: z.string().min(1).max(253),
  organizationId: id.optional(),
  oidcConfig: oidcConfigBody.optional(),
  samlConfig: samlConfigBody.optional(),
  /** Ours: the role a user joining through the provider gets (default member). */
  defaultRole: z.string().min(1).max(255).optional(),
  /** Ours: whether sign-in through it is on (default true). */
  enabled: z.boolean().optional(),
});
export const updateBody = z.object({
  providerId: id,
  issuer: url.optional(),
  domain: z.string().min(1).max(253).optional(),
  oidcConfig: oidcConfigBody.optional(),
  samlConfig: samlConfigBody.optional(),
  defaultRole: z.string().min(1).max(255).optional(),
  enabled: z.boolean().optional(),
});
export const providerQuery = z.looseObject({ providerId: id });
export const providerBody = z.object({ providerId: id });
export const listQuery = z.looseObject({ organizationId: id.optional() });

function oidcInput(body: z.infer<typeof oidcConfigBody>): OidcInput {
  const { scopes, mapping: claims, ...rest } = body;
  return {
    ...rest,
    scopes: scopes ?? [],
    setScopes: scopes !== undefined,
    mapping: claims && { id: claims.id ?? "", email: claims.email ?? "", emailVerified: claims.emailVerified ?? "", name: claims.name ?? "", image: claims.image ?? "" },
  };
}

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function samlInput(body: z.infer<typeof samlConfigBody>): SamlInput {
  return {
    idpMetadataXml: body.idpMetadata?.metadata,
    idpEntityId: body.idpMetadata?.entityID,
    metadataUrl: body.metadataUrl,
    entryPoint: body.entryPoint,
    certificates: [...listOf(body.idpMetadata?.cert), ...listOf(body.cert)],
    allowIdpInitiated: body.allowIdpInitiated,
    mapping: body.mapping && {
      email: body.mapping.email,
      emailVerified: body.mapping.emailVerified,
      name: body.mapping.name,
      firstName: body.mapping.firstName,
      lastName: body.mapping.lastName,
    },
  };
}

function providerResponse(p: Provider): SsoProvider {
  const o = p.oidcConfig;
  const s = p.samlConfig;
  return {
    providerId: p.providerId,
    type: p.type,
    issuer: p.issuer,
    domain: p.domain,
    organizationId: p.organizationId || null,
    domainVerified: p.domainVerified,
    oidcConfig: o && {
      discoveryEndpoint: o.discoveryEndpoint,
      clientIdLastFour: o.clientIdLastFour,
      pkce: o.pkce,
      authorizationEndpoint: o.authorizationEndpoint,
      tokenEndpoint: o.tokenEndpoint,
      userInfoEndpoint: o.userInfoEndpoint,
      jwksEndpoint: o.jwksEndpoint,
      scopes: o.scopes,
      tokenEndpointAuthentication: o.tokenEndpointAuthentication as "client_secret_post" | "client_secret_basic",
      mapping: { id: "sub", email: "email", emailVerified: "email_verified", name: "name", image: "picture", ...o.mapping },
    },
    samlConfig: s && {
      entryPoint: s.ssoUrl,
      idpEntityId: s.idpEntityId,
      certificates: s.certificates,
      metadataUrl: s.metadataUrl,
      allowIdpInitiated: s.allowIdpInitiated,
      mapping: { email: "email", name: "name", firstName: "firstName", lastName: "lastName", ...s.mapping },
      spEntityId: s.spEntityId,
      acsUrl: s.acsUrl,
      spMetadataUrl: s.spMetadataUrl,
    },
    // Under the same base URL as the redirect URI the sso service answers.
    spMetadataUrl: s ? s.spMetadataUrl : p.redirectUri.replace(/\/sso\/callback\/[^/]*$/, `/sso/saml2/sp/metadata?providerId=${encodeURIComponent(p.providerId)}`),
    redirectURI: p.redirectUri,
    enabled: p.enabled,
    defaultRole: p.defaultRole,
    userId: p.userId,
    createdAt: (p.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (p.updatedAt ?? new Date(0)).toISOString(),
  };
}

export function ssoRoutes(deps: RouteDeps): Route[] {
  const sso = deps.clients.sso;
  const shown = (p: Provider | undefined) => providerResponse(p!);
  return [
    defineRoute(
      {
        method: "post",
        path: "/sso/register",
        tag: "Single sign-on",
        session: "required",
        summary: "Register an identity provider for an organization",
        body: registerBody,
        response: ssoProviderSchema,
        errors: [
          "SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS",
          "THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER",
          "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION",
          "ORGANIZATION_NOT_FOUND",
          "YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS",
          "INVALID_OIDC_CONFIGURATION",
          "INVALID_SAML_METADATA",
        ],
      },
      async ({ req, body, session, json }) => {
        if (!body.oidcConfig === !body.samlConfig) throw new AuthError("VALIDATION_ERROR", "give either oidcConfig or samlConfig");
        const { provider } = await call(sso, sso.registerProvider, {
          caller: callerOf(req, session),
          providerId: body.providerId,
          issuer: body.issuer,
          domain: body.domain,
          organizationId: body.organizationId,
          oidc: body.oidcConfig && oidcInput(body.oidcConfig),
          saml: body.samlConfig && samlInput(body.samlConfig),
          defaultRole: body.defaultRole,
          enabled: body.enabled,
        });
        json(shown(provider));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/sso/providers",
        tag: "Single sign-on",
        session: "required",
        summary: "List the identity providers of the active organization",
        query: listQuery,
        response: ssoProviderListSchema,
      },
      async ({ req, query, session, json }) => {
        const { providers } = await call(sso, sso.listProviders, { caller: callerOf(req, session), organizationId: query.organizationId });
        json({ providers: providers.map((p) => shown(p)) });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/sso/get-provider",
        tag: "Single sign-on",
        session: "required",
        summary: "Read one identity provider",
        query: providerQuery,
        response: ssoProviderSchema,
        errors: ["PROVIDER_NOT_FOUND"],
      },
      async ({ req, query, session, json }) => {
        const { provider } = await call(sso, sso.getProvider, { caller: callerOf(req, session), providerId: query.providerId });
        json(shown(provider));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/sso/update-provider",
        tag: "Single sign-on",
        session: "required",
        summary: "Change an identity provider",
        body: updateBody,
        response: ssoProviderSchema,
        errors: [
          "PROVIDER_NOT_FOUND",
          "THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER",
          "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION",
          "INVALID_OIDC_CONFIGURATION",
          "INVALID_SAML_METADATA",
          "NO_FIELDS_PROVIDED_FOR_UPDATE",
        ],
      },
      async ({ req, body, session, json }) => {
        const { provider } = await call(sso, sso.updateProvider, {
          caller: callerOf(req, session),
          providerId: body.providerId,
          issuer: body.issuer,
          domain: body.domain,
          oidc: body.oidcConfig && oidcInput(body.oidcConfig),
          saml: body.samlConfig && samlInput(body.samlConfig),
          defaultRole: body.defaultRole,
          enabled: body.enabled,
        });
        json(shown(provider));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/sso/test-provider",
        tag: "Single sign-on",
        session: "required",
        summary: "Check an identity provider's settings against the provider",
        body: providerBody,
        response: ssoProviderTestSchema,
        errors: ["PROVIDER_NOT_FOUND", "YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS"],
      },
      async ({ req, body, session, json }) => {
        const { ok, checks } = await call(sso, sso.testProvider, { caller: callerOf(req, session), providerId: body.providerId });
        json({ ok, checks: checks.map(({ name, ok: passed, detail }) => ({ name, ok: passed, detail })) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/sso/delete-provider",
        tag: "Single sign-on",
        session: "required",
        summary: "Delete an identity provider",
        body: providerBody,
        response: successSchema,
        errors: ["PROVIDER_NOT_FOUND"],
      },
      async ({ req, body, session, json }) => {
        await call(sso, sso.deleteProvider, { caller: callerOf(req, session), providerId: body.providerId });
        json({ success: true });
      },
    ),
  ];
}
