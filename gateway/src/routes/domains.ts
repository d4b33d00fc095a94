/**
 * Verified domains (docs/http-api/domains.md, docs/adr/0071-verified-domains.md): better-auth 1.7's sso
 * plugin routes /sso/request-domain-verification and /sso/verify-domain, and ours under /organization/ for
 * the settings screen. The sso service decides who may (an owner or admin of the organization).
 */
import type { Domain } from "@auth-platform/proto/gen/auth/sso/v1/domain";
import { call } from "@auth-platform/runtime/rpc";
import * as z from "zod";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { domainSchema, domainsSchema, domainVerificationTokenSchema, statusSchema } from "../http/public-schemas.js";
import type { CurrentSession } from "../http/session.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(64);
export const providerIdBody = z.object({ providerId: id });
export const listDomainsQuery = z.looseObject({ organizationId: id.optional() });
export const claimDomainBody = z.object({ domain: z.string().min(1).max(1024), organizationId: id.optional() });
export const domainIdBody = z.object({ domainId: id, organizationId: id.optional() });
export const autoJoinBody = z.object({ domainId: id, organizationId: id.optional(), role: z.enum(["member", "admin"]).nullable() });

const MANAGE_ERRORS = ["YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS"] as const;

/** The organization named, else the session's active one ("" is refused by the sso service like a stranger's). */
const organizationOf = (organizationId: string | undefined, session: CurrentSession) => organizationId ?? session.session.activeOrganizationId ?? "";

export const publicDomain = (domain: Domain): z.input<typeof domainSchema> => ({
  id: domain.id,
  organizationId: domain.organizationId,
  domain: domain.domain,
  status: domain.status as "pending" | "verified" | "expired",
  record: { name: domain.recordName, type: "TXT", value: domain.recordValue },
  createdAt: domain.createdAt ?? new Date(0),
  expiresAt: domain.expiresAt ?? new Date(0),
  verifiedAt: domain.verifiedAt ?? null,
  autoJoinRole: domain.autoJoinRole ?? null,
});

export function domainRoutes(deps: RouteDeps): Route[] {
  const domains = deps.clients.domains;
  return [
    defineRoute(
      {
        method: "post",
        path: "/sso/request-domain-verification",
        tag: "Organizations",
        summary: "Claim an SSO provider's domain for its organization and get the TXT record's token",
        session: "required",
        body: providerIdBody,
        response: domainVerificationTokenSchema,
        errors: ["PROVIDER_NOT_FOUND", "DOMAIN_VERIFIED", "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION", "INVALID_DOMAIN", "DOMAIN_IS_A_PUBLIC_SUFFIX"],
      },
      async ({ req, body, session, json }) => {
        const { token } = await call(domains, domains.requestProviderDomainVerification, { caller: callerOf(req, session), providerId: body.providerId });
        json({ domainVerificationToken: token });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/sso/verify-domain",
        tag: "Organizations",
        summary: "Verify an SSO provider's domain by its TXT record",
        session: "required",
        body: providerIdBody,
        response: statusSchema,
        errors: ["PROVIDER_NOT_FOUND", "DOMAIN_VERIFIED", "NO_PENDING_VERIFICATION", "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION", "DOMAIN_VERIFICATION_FAILED"],
      },
      async ({ req, body, session, json }) => {
        await call(domains, domains.verifyProviderDomain, { caller: callerOf(req, session), providerId: body.providerId });
        json({ status: true });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/list-domains",
        tag: "Organizations",
        summary: "The organization's claimed domains and the TXT records to publish",
        session: "required",
        query: listDomainsQuery,
        response: domainsSchema,
        errors: MANAGE_ERRORS,
      },
      async ({ req, query, session, json }) => {
        const { domains: list } = await call(domains, domains.listDomains, { caller: callerOf(req, session), organizationId: organizationOf(query.organizationId, session) });
        json(list.map(publicDomain));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/claim-domain",
        tag: "Organizations",
        summary: "Claim a domain for the organization",
        session: "required",
        body: claimDomainBody,
        response: domainSchema,
        errors: [...MANAGE_ERRORS, "INVALID_DOMAIN", "DOMAIN_IS_A_PUBLIC_SUFFIX", "DOMAIN_VERIFIED", "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION"],
      },
      async ({ req, body, session, json }) => {
        const { domain } = await call(domains, domains.claimDomain, {
          caller: callerOf(req, session),
          organizationId: organizationOf(body.organizationId, session),
          domain: body.domain,
        });
        json(publicDomain(domain!));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/verify-domain",
        tag: "Organizations",
        summary: "Look the claim's TXT record up now",
        session: "required",
        body: domainIdBody,
        response: domainSchema,
        errors: [...MANAGE_ERRORS, "DOMAIN_NOT_FOUND", "DOMAIN_VERIFIED", "NO_PENDING_VERIFICATION", "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION", "DOMAIN_VERIFICATION_FAILED"],
      },
      async ({ req, body, session, json }) => {
        const { domain } = await call(domains, domains.verifyDomain, {
          caller: callerOf(req, session),
          organizationId: organizationOf(body.organizationId, session),
          domainId: body.domainId,
        });
        json(publicDomain(domain!));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/remove-domain",
        tag: "Organizations",
        summary: "Remove a claimed or verified domain",
        session: "required",
        body: domainIdBody,
        response: statusSchema,
        errors: [...MANAGE_ERRORS, "DOMAIN_NOT_FOUND"],
      },
      async ({ req, body, session, json }) => {
        await call(domains, domains.removeDomain, { caller: callerOf(req, session), organizationId: organizationOf(body.organizationId, session), domainId: body.domainId });
        json({ status: true });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/set-domain-auto-join",
        tag: "Organizations",
        summary: "Let new users with a verified address of the domain join with a role, or stop it (null)",
        session: "required",
        body: autoJoinBody,
        response: domainSchema,
        errors: [...MANAGE_ERRORS, "DOMAIN_NOT_FOUND"],
      },
      async ({ req, body, session, json }) => {
        const { domain } = await call(domains, domains.setDomainAutoJoin, {
          caller: callerOf(req, session),
          organizationId: organizationOf(body.organizationId, session),
          domainId: body.domainId,
          role: body.role ?? undefined,
        });
        json(publicDomain(domain!));
      },
    ),
  ];
}
