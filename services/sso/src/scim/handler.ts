/**
 * One /scim/v2 request, as the gateway hands it over (HandleScim): the bearer token picks the organization,
 * then the resource and method pick the use case. Every refusal is a SCIM error body (RFC 7644 §3.12).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { excludesMembers, selectAttributes } from "./attributes.js";
import { resourceTypeById, resourceTypes, schemaById, schemas, serviceProviderConfig } from "./discovery.js";
import { badRequest, ScimError } from "./errors.js";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./groups.js";
import { parsePage } from "./pagination.js";
import type { ScimDeps } from "./ports.js";
import { authenticate } from "./tokens.js";
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from "./users.js";

export interface ScimRequest {
  authorization: string;
  method: string;
  resource: string;
  id?: string;
  query: Record<string, string>;
  body: string;
  ifMatch?: string;
  baseUrl: string;
}

export interface ScimResponse {
  status: number;
  body: string;
  etag?: string;
}

export const DOCUMENTATION_URI = "https://github.com/auth-platform/auth-platform/blob/main/docs/scim.md";
const MAX_BODY = 1_000_000;

function parseBody(body: string): unknown {
  if (body.length > MAX_BODY) throw new ScimError(413, "The request body is too large");
  try {
    return JSON.parse(body);
  } catch {
    throw badRequest("invalidSyntax", "The body is not valid JSON");
  }
}

const methodNotAllowed = () => new ScimError(405, "This method is not supported on this endpoint");

function answer(status: number, resource?: object): ScimResponse {
  if (resource === undefined) return { status, body: "" };
  const version = (resource as { meta?: { version?: unknown } }).meta?.version;
  return { status, body: JSON.stringify(resource), ...(typeof version === "string" ? { etag: version } : {}) };
}

async function route(deps: ScimDeps, request: ScimRequest): Promise<ScimResponse> {
  const { method, resource, id, query, baseUrl } = request;
  const selection = { attributes: query.attributes, excludedAttributes: query.excludedAttributes };
  if (resource === "ServiceProviderConfig" && method === "GET" && id === undefined) return answer(200, serviceProviderConfig(baseUrl, DOCUMENTATION_URI));
  if (resource === "ResourceTypes" && method === "GET") return answer(200, id === undefined ? resourceTypes(baseUrl) : resourceTypeById(id, baseUrl));
  if (resource === "Schemas" && method === "GET") return answer(200, id === undefined ? schemas(baseUrl) : schemaById(id, baseUrl));
  if (resource !== "Users" && resource !== "Groups") throw new ScimError(404, "No such endpoint");
  const organizationId = await authenticate(deps, request.authorization);
  const users = resource === "Users";
  const body = () => parseBody(request.body);
  if (id === undefined) {
    if (method === "GET") {
      const page = parsePage(query);
      const list = users
        ? await listUsers(deps, organizationId, { filter: query.filter }, page, baseUrl)
        : await listGroups(deps, organizationId, { filter: query.filter }, page, baseUrl, !excludesMembers(selection));
      return answer(200, { ...list, Resources: list.Resources.map((r: object) => selectAttributes(r, selection)) });
    }
    if (method === "POST") return answer(201, users ? await createUser(deps, organizationId, body(), baseUrl) : await createGroup(deps, organizationId, body(), baseUrl));
    throw methodNotAllowed();
  }
  switch (method) {
    case "GET":
      return answer(
        200,
        selectAttributes(users ? await getUser(deps, organizationId, id, baseUrl) : await getGroup(deps, organizationId, id, baseUrl, !excludesMembers(selection)), selection),
      );
    case "PUT":
      return answer(
        200,
        users ? await replaceUser(deps, organizationId, id, body(), request.ifMatch, baseUrl) : await replaceGroup(deps, organizationId, id, body(), request.ifMatch, baseUrl),
      );
    case "PATCH":
      return answer(
        200,
        users ? await patchUser(deps, organizationId, id, body(), request.ifMatch, baseUrl) : await patchGroup(deps, organizationId, id, body(), request.ifMatch, baseUrl),
      );
    case "DELETE":
      await (users ? deleteUser(deps, organizationId, id, request.ifMatch) : deleteGroup(deps, organizationId, id, request.ifMatch));
      return answer(204);
    default:
      throw methodNotAllowed();
  }
}

/** A peer's catalogue refusal in SCIM terms: its status kept, a taken address a uniqueness conflict. */
function fromAuthError(error: AuthError): ScimError {
  if (error.code === "USER_ALREADY_EXISTS") return new ScimError(409, error.message, "uniqueness");
  if (error.http >= 500) return new ScimError(error.http === 503 ? 503 : 500, error.http === 503 ? "The service is unavailable; retry" : "Internal error");
  return new ScimError(400, error.message, "invalidValue");
}

export async function handleScim(deps: ScimDeps, request: ScimRequest): Promise<ScimResponse> {
  try {
    return await route(deps, request);
  } catch (error) {
    const scim = error instanceof ScimError ? error : error instanceof AuthError ? fromAuthError(error) : undefined;
    if (!scim) throw error;
    return { status: scim.status, body: JSON.stringify(scim.body()) };
  }
}
