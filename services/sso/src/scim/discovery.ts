/**
 * The discovery documents (RFC 7644 §4): ServiceProviderConfig, ResourceTypes and Schemas, describing what
 * this implementation does, so an IdP does not try what it does not (bulk, sort, complex filters).
 */
import { notFound } from "./errors.js";
import { GROUP_SCHEMA } from "./group.js";
import { LIST_RESPONSE_SCHEMA, MAX_PAGE_SIZE } from "./pagination.js";
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from "./user.js";

const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

export function serviceProviderConfig(baseUrl: string, documentationUri: string) {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [{ type: "oauthbearertoken", name: "OAuth Bearer Token", description: "A SCIM token an owner of the organization generated", primary: true }],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

const RESOURCE_TYPES = [
  {
    id: "User",
    name: "User",
    endpoint: "/Users",
    description: "A member of the organization",
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
  },
  { id: "Group", name: "Group", endpoint: "/Groups", description: "A team of the organization", schema: GROUP_SCHEMA, schemaExtensions: [] },
];

function resourceType(type: (typeof RESOURCE_TYPES)[number], baseUrl: string) {
  return { schemas: [RESOURCE_TYPE_SCHEMA], ...type, meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/${type.id}` } };
}

export function resourceTypes(baseUrl: string) {
  const resources = RESOURCE_TYPES.map((type) => resourceType(type, baseUrl));
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
}

export function resourceTypeById(id: string, baseUrl: string) {
  const type = RESOURCE_TYPES.find((t) => t.id === id);
  if (!type) throw notFound("ResourceType");
  return resourceType(type, baseUrl);
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

const SCHEMAS = [
  {
    id: USER_SCHEMA,
    name: "User",
    description: "A provisioned user; the attributes the platform keeps",
    attributes: [
      attribute("userName", "string", { required: true, uniqueness: "server" }),
      attribute("externalId", "string", { caseExact: true }),
      attribute("displayName", "string"),
      attribute("name", "complex", {
        subAttributes: [attribute("formatted", "string", { mutability: "readOnly" }), attribute("givenName", "string"), attribute("familyName", "string")],
      }),
      attribute("emails", "complex", {
        multiValued: true,
        required: true,
        subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")],
      }),
      attribute("active", "boolean"),
    ],
  },
  {
    id: GROUP_SCHEMA,
    name: "Group",
    description: "A team of the organization",
    attributes: [
      attribute("displayName", "string", { required: true }),
      attribute("externalId", "string", { caseExact: true }),
      attribute("members", "complex", {
        multiValued: true,
        subAttributes: [
          attribute("value", "string", { mutability: "immutable" }),
          attribute("display", "string", { mutability: "readOnly" }),
          attribute("$ref", "reference", { mutability: "immutable" }),
        ],
      }),
    ],
  },
];

function schema(entry: (typeof SCHEMAS)[number], baseUrl: string) {
  return { schemas: [SCHEMA_SCHEMA], ...entry, meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${entry.id}` } };
}

export function schemas(baseUrl: string) {
  const resources = SCHEMAS.map((entry) => schema(entry, baseUrl));
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
}

export function schemaById(id: string, baseUrl: string) {
  const entry = SCHEMAS.find((s) => s.id === id);
  if (!entry) throw notFound("Schema");
  return schema(entry, baseUrl);
}
