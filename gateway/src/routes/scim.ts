/**
 * SCIM provisioning (docs/http-api/scim.md, docs/adr/0070-scim-provisioning.md): an owner's token routes
 * under /organization/scim, and /scim/v2, which the gateway hands to the sso service as received
 * (ScimService.HandleScim) and answers as the service did: SCIM documents and SCIM error bodies, in
 * application/scim+json. The sso service decides everything (the token, the organization, the rules).
 */
import type { ScimToken } from "@auth-platform/proto/gen/auth/sso/v1/scim";
import { call } from "@auth-platform/runtime/rpc";
import type { Request } from "express";
import * as z from "zod";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { newScimTokenSchema, type scimTokenSchema, scimTokensSchema, statusSchema } from "../http/public-schemas.js";
import type { CurrentSession } from "../http/session.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(64);
export const generateScimTokenBody = z.object({ name: z.string().min(1).max(100), organizationId: id.optional() });
export const listScimTokensQuery = z.looseObject({ organizationId: id.optional() });
export const revokeScimTokenBody = z.object({ tokenId: id, organizationId: id.optional() });

const TOKEN_ERRORS = ["USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS"] as const;

/** The organization named, else the session's active one ("" is refused by the sso service like a stranger's). */
const organizationOf = (organizationId: string | undefined, session: CurrentSession) => organizationId ?? session.session.activeOrganizationId ?? "";

const publicToken = (t: ScimToken | undefined): z.input<typeof scimTokenSchema> => ({
  id: t?.id ?? "",
  name: t?.name ?? "",
  prefix: t?.prefix ?? "",
  createdBy: t?.createdBy ?? "",
  createdAt: t?.createdAt ?? new Date(0),
  lastUsedAt: t?.lastUsedAt ?? null,
});

/** The media type of every /scim/v2 answer (RFC 7644 §3.1). */
export const SCIM_MEDIA_TYPE = "application/scim+json";
/** The query parameters the SCIM service reads; others are not passed on. */
const SCIM_QUERY = ["filter", "startIndex", "count", "attributes", "excludedAttributes", "sortBy", "sortOrder"] as const;
export const scimQuery = z.looseObject(Object.fromEntries(SCIM_QUERY.map((name) => [name, z.string().max(2048).optional()])));

/** The body as received: text for the SCIM media types (app.ts reads it so), else nothing. */
const bodyText = (req: Request): string => (typeof req.body === "string" ? req.body : "");

function scimQueryOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SCIM_QUERY) {
    const value = req.query[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

export function scimRoutes(deps: RouteDeps): Route[] {
  const scim = deps.clients.scim;
  const tokenRoutes: Route[] = [
    defineRoute(
      {
        method: "post",
        path: "/organization/scim/generate-token",
        tag: "Organizations",
        summary: "Generate a SCIM bearer token for the organization (an owner; the token is shown this once)",
        session: "required",
        body: generateScimTokenBody,
        response: newScimTokenSchema,
        errors: [...TOKEN_ERRORS, "TOO_MANY_SCIM_TOKENS"],
      },
      async ({ req, body, session, json }) => {
        const { token, summary } = await call(scim, scim.generateScimToken, {
          caller: callerOf(req, session),
          organizationId: organizationOf(body.organizationId, session),
          name: body.name,
        });
        json({ ...publicToken(summary), token });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/scim/list-tokens",
        tag: "Organizations",
        summary: "The organization's SCIM tokens, without their secrets (an owner)",
        session: "required",
        query: listScimTokensQuery,
        response: scimTokensSchema,
        errors: TOKEN_ERRORS,
      },
      async ({ req, query, session, json }) => {
        const { tokens } = await call(scim, scim.listScimTokens, { caller: callerOf(req, session), organizationId: organizationOf(query.organizationId, session) });
        json(tokens.map(publicToken));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/scim/revoke-token",
        tag: "Organizations",
        summary: "Revoke a SCIM token of the organization: it stops working at once (an owner)",
        session: "required",
        body: revokeScimTokenBody,
        response: statusSchema,
        errors: [...TOKEN_ERRORS, "SCIM_TOKEN_NOT_FOUND"],
      },
      async ({ req, body, session, json }) => {
        await call(scim, scim.revokeScimToken, { caller: callerOf(req, session), organizationId: organizationOf(body.organizationId, session), tokenId: body.tokenId });
        json({ status: true });
      },
    ),
  ];
  const protocol = (method: "get" | "post" | "put" | "patch" | "delete", path: "/scim/v2/:resource" | "/scim/v2/:resource/:id", summary: string, statuses: number[]) =>
    defineRoute({ method, path, tag: "Single sign-on", summary, query: method === "get" ? scimQuery : undefined, scim: { statuses } }, async ({ req, res }) => {
      const answer = await call(scim, scim.handleScim, {
        authorization: req.get("authorization") ?? "",
        method: req.method.toUpperCase(),
        resource: String(req.params.resource),
        id: req.params.id === undefined ? undefined : String(req.params.id),
        query: scimQueryOf(req),
        body: bodyText(req),
        ifMatch: req.get("if-match") ?? undefined,
        baseUrl: `${req.facts.baseUrl}/scim/v2`,
      });
      if (answer.etag) res.set("ETag", answer.etag);
      if (answer.status === 401) res.set("WWW-Authenticate", 'Bearer realm="SCIM"');
      res.status(answer.status);
      if (answer.body) res.type(SCIM_MEDIA_TYPE).send(answer.body);
      else res.end();
    });
  return [
    ...tokenRoutes,
    protocol("get", "/scim/v2/:resource", "SCIM: list or search Users or Groups, or read ServiceProviderConfig, Schemas, ResourceTypes", [200]),
    protocol("post", "/scim/v2/:resource", "SCIM: create a User or a Group", [201]),
    protocol("get", "/scim/v2/:resource/:id", "SCIM: read a User, a Group, a Schema or a ResourceType", [200]),
    protocol("put", "/scim/v2/:resource/:id", "SCIM: replace a User or a Group", [200]),
    protocol("patch", "/scim/v2/:resource/:id", "SCIM: patch a User or a Group (RFC 7644 §3.5.2)", [200]),
    protocol("delete", "/scim/v2/:resource/:id", "SCIM: delete a User (the membership ends) or a Group", [204]),
  ];
}
