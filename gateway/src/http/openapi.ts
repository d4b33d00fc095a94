/**
 * The OpenAPI 3.1 document of the HTTP API, built from the app's declared routes alone (http/define-route.ts):
 * each declaration's body, query and response schemas become JSON Schema with z.toJSONSchema, and its
 * declared catalogue errors are listed with the route. There is no second list of routes:
 * gateway/test/openapi.test.ts checks that the document's operations are exactly the express app's routes,
 * and gateway/test/openapi-responses.int.test.ts checks real answers of every route against the document.
 */
import * as z from "zod";
import { ERRORS } from "@auth-platform/proto/errors";
import type { RouteSpec } from "./define-route.js";
import * as s from "./public-schemas.js";

/** Every route: a bad body or query (400), a refused origin (403), rate limited (429), a failure (500, 503). */
export const COMMON_ERRORS = [400, 403, 429, 500, 503] as const;
const ERROR_STATUS_SET: Record<number, true> = Object.fromEntries(COMMON_ERRORS.map((status) => [status, true]));

/** The statuses a route may answer with an error body: the common ones, 401 when it needs a session, and those of its declared errors. */
export function errorStatuses(route: RouteSpec): number[] {
  const declared = (route.errors ?? []).map((code) => ERRORS[code].http);
  return [...new Set([...COMMON_ERRORS, ...(route.session ? [401] : []), ...declared])].sort();
}

/** A route's declared catalogue errors of one status, as the description of that error response. */
function errorDescription(route: RouteSpec, status: number): string | undefined {
  const codes = (route.errors ?? []).filter((code) => ERRORS[code].http === status);
  return codes.length ? `Error (${status}): ${codes.map((code) => `${code} (${ERRORS[code].message})`).join(", ")}` : undefined;
}

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of what a client sends (io: input) or receives (io: output). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

const operationId = (o: RouteSpec) => `${o.method}${o.path.replace(/[:/{}.-]+(\w?)/g, (_m, c: string) => c.toUpperCase())}`;

function queryParameters(query: z.ZodType): JsonSchema[] {
  const schema = jsonSchema(query, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** The headers telling a refused client when to come back, by status (rate-limit.ts, errors.ts). */
const RETRY_HEADERS: Record<number, JsonSchema> = {
  429: {
    "X-Retry-After": { description: "Seconds until the rate-limit window lets this client in again", schema: { type: "integer", minimum: 1 } },
    "Retry-After": { description: "The same seconds, in the standard header", schema: { type: "integer", minimum: 1 } },
  },
  503: {
    "Retry-After": {
      description: "Seconds after which a retry is expected to be let in (password hashing busy, a database out of reach, a service unreachable)",
      schema: { type: "integer", minimum: 1 },
    },
  },
};

const REDIRECT = { description: "Redirect to the callback URL (errors as ?error=code)", headers: { Location: { schema: { type: "string" } } } };

/** The statuses a SCIM route answers with a SCIM error body (services/sso/src/scim/errors.ts). */
export const SCIM_ERROR_STATUSES = [400, 401, 404, 405, 409, 412, 413, 501] as const;

const SCIM_ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["schemas", "status", "detail"],
  properties: {
    schemas: { type: "array", items: { const: "urn:ietf:params:scim:api:messages:2.0:Error" } },
    status: { type: "string", pattern: "^[1-5][0-9][0-9]$" },
    scimType: { type: "string" },
    detail: { type: "string" },
  },
};

/** What a route answers on success: a JSON body or an HTML page (200), a redirect (302 with Location), a SCIM document. */
function successResponses(route: RouteSpec): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const status of route.scim?.statuses ?? []) {
    out[status] =
      status === 204
        ? { description: "No content" }
        : { description: "A SCIM resource or ListResponse (RFC 7643)", content: { "application/scim+json": { schema: { type: "object" } } } };
  }
  if (route.response) out[200] = { description: "Success", content: { "application/json": { schema: jsonSchema(route.response, "output") } } };
  if (route.html) out[200] = { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } };
  if (route.xml) out[200] = { description: "XML document", content: { [route.xml]: { schema: { type: "string" } } } };
  if (route.redirect) out[302] = REDIRECT;
  return out;
}

export interface DocumentOptions {
  /** The app's declared routes (defineRoute), in the order they are mounted. */
  routes: readonly RouteSpec[];
  /** The API's absolute URL (the request's base URL: AUTH_BASE_URL, or what the request names). */
  baseUrl: string;
  /** Whether the development mailbox is served. */
  devMailbox: boolean;
  /** The session cookie's name (AUTH_COOKIE_PREFIX). */
  sessionCookieName: string;
}

/** The OpenAPI 3.1 document of the routes served with these options. */
export function openApiDocument(options: DocumentOptions): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorBodies = new Map<number, JsonSchema>();
  const errorResponse = (status: number) => {
    if (!errorBodies.has(status)) errorBodies.set(status, jsonSchema(s.errorSchema(status), "output"));
    return { $ref: `#/components/responses/Error${status}` };
  };
  const routes = options.routes.filter((route) => options.devMailbox || !route.devOnly);
  for (const operation of routes) {
    const query = operation.query ?? operation.queryCheckedByRoute;
    const parameters = [
      ...[...operation.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...(query ? queryParameters(query) : []),
    ];
    const responses = successResponses(operation);
    if (operation.scim) {
      // SCIM's own error bodies; the gateway's (a limit, an unreachable service) stay catalogue errors.
      for (const status of [...new Set([...SCIM_ERROR_STATUSES, ...COMMON_ERRORS])].sort()) {
        const catalogue = (status as number) in ERROR_STATUS_SET ? { "application/json": { schema: jsonSchema(s.errorSchema(status), "output") } } : {};
        responses[String(status)] = { description: `Error (${status})`, content: { "application/scim+json": { schema: SCIM_ERROR_SCHEMA }, ...catalogue } };
      }
    }
    for (const status of operation.scim ? [] : errorStatuses(operation)) {
      const description = errorDescription(operation, status);
      // A Reference Object's description overrides the shared one: the codes this route answers with that status.
      responses[String(status)] = { ...errorResponse(status), ...(description ? { description } : {}) };
    }
    const pathItem = paths[openApiPath(operation.path)] ?? {};
    paths[openApiPath(operation.path)] = pathItem;
    pathItem[operation.method] = {
      operationId: operationId(operation),
      tags: [operation.tag],
      summary: operation.summary,
      ...(operation.errors?.length ? { "x-error-codes": [...operation.errors] } : {}),
      ...(operation.session ? { security: [{ sessionCookie: [] }, { bearer: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(operation.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(operation.body, "input") } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "auth-platform HTTP API",
      version: "1",
      description: "Email and password, sessions, two-factor, organizations, admin and social sign-in. Errors answer { code, message } with the catalogue's codes.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: options.baseUrl }],
    tags: [...new Set(routes.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: options.sessionCookieName },
        bearer: { type: "http", scheme: "bearer" },
      },
      responses: Object.fromEntries(
        [...errorBodies]
          .sort(([a], [b]) => a - b)
          .map(([status, schema]) => [
            `Error${status}`,
            { description: `Error (${status})`, ...(RETRY_HEADERS[status] ? { headers: RETRY_HEADERS[status] } : {}), content: { "application/json": { schema } } },
          ]),
      ),
    },
  };
}
