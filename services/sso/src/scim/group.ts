/** The SCIM Group resource (RFC 7643 §4.2): an organization's team, its members the platform's user ids. */
import { badRequest } from "./errors.js";
import { etagOf, requireSchema } from "./user.js";
import { field, isRecord, stringValue } from "./values.js";

export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
/** At most this many members in one request; a larger group is pushed in several PATCHes. */
export const MAX_MEMBERS_PER_REQUEST = 1000;

export interface ScimGroupAttributes {
  displayName: string;
  externalId?: string;
  /** User ids (the SCIM User ids). */
  members: string[];
}

export interface ScimGroupRecord extends ScimGroupAttributes {
  /** The team id: the SCIM resource id. */
  id: string;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
}

export interface ScimGroupResource {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  /** Left out when the IdP asks for `excludedAttributes=members` (Entra does before each group push). */
  members?: { value: string; $ref: string; type: "User"; display?: string }[];
  meta: { resourceType: "Group"; created: string; lastModified: string; location: string; version: string };
}

/** The user ids of a `members` value: `[{ value: "<id>", display?, type? }]`. */
export function memberIds(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length > MAX_MEMBERS_PER_REQUEST) throw badRequest("tooMany", `At most ${MAX_MEMBERS_PER_REQUEST} members per request`);
  const ids = entries.map((entry) => {
    if (!isRecord(entry)) throw badRequest("invalidValue", "members must be objects with a value");
    return stringValue("members.value", field(entry, "value"), { required: true })!;
  });
  return [...new Set(ids)];
}

export function parseGroupBody(body: unknown): ScimGroupAttributes {
  if (!isRecord(body)) throw badRequest("invalidSyntax", "The body must be a JSON object");
  requireSchema(body, GROUP_SCHEMA);
  return {
    displayName: stringValue("displayName", field(body, "displayName"), { required: true })!,
    externalId: stringValue("externalId", field(body, "externalId")),
    members: memberIds(field(body, "members")),
  };
}

export function toGroupResource(
  group: ScimGroupRecord,
  baseUrl: string,
  options: { members?: boolean; displayOf?: (userId: string) => string | undefined } = {},
): ScimGroupResource {
  const resource: ScimGroupResource = {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.externalId !== undefined ? { externalId: group.externalId } : {}),
    displayName: group.displayName,
    meta: {
      resourceType: "Group",
      created: group.createdAt.toISOString(),
      lastModified: group.updatedAt.toISOString(),
      location: `${baseUrl}/Groups/${encodeURIComponent(group.id)}`,
      version: etagOf(group.revision),
    },
  };
  if (options.members === false) return resource;
  resource.members = group.members.map((id) => {
    const display = options.displayOf?.(id);
    return { value: id, $ref: `${baseUrl}/Users/${encodeURIComponent(id)}`, type: "User" as const, ...(display ? { display } : {}) };
  });
  return resource;
}
