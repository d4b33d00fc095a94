/**
 * SCIM PATCH (RFC 7644 §3.5.2) in the forms Okta and Entra ID send: `add`, `replace` and `remove`, spelt in
 * any case (Entra writes "Replace"), with a `path` or with an object of attributes as the value, `active` as
 * a boolean or the string "False", and group members removed by `members[value eq "<id>"]` or by a list.
 * Each operation applies to the result of the one before; the whole request fails on the first bad one.
 */
import { badRequest } from "./errors.js";
import { memberIds, type ScimGroupAttributes } from "./group.js";
import { ENTERPRISE_USER_SCHEMA, emailValue, type ScimUserAttributes } from "./user.js";
import { booleanValue, field, isRecord, stringValue } from "./values.js";

export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const MAX_OPERATIONS = 100;

export interface PatchOperation {
  op: "add" | "replace" | "remove";
  path?: string;
  value?: unknown;
}

export function parsePatchBody(body: unknown): PatchOperation[] {
  if (!isRecord(body)) throw badRequest("invalidSyntax", "The body must be a JSON object");
  const schemas = field(body, "schemas");
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP_SCHEMA)) throw badRequest("invalidSyntax", `schemas must include ${PATCH_OP_SCHEMA}`);
  const operations = field(body, "Operations");
  if (!Array.isArray(operations) || operations.length === 0) throw badRequest("invalidSyntax", "Operations must be a non-empty array");
  if (operations.length > MAX_OPERATIONS) throw badRequest("tooMany", `At most ${MAX_OPERATIONS} operations per request`);
  return operations.map((operation) => {
    if (!isRecord(operation)) throw badRequest("invalidSyntax", "Each operation must be an object");
    const op = field(operation, "op");
    const lower = typeof op === "string" ? op.toLowerCase() : "";
    if (lower !== "add" && lower !== "replace" && lower !== "remove") throw badRequest("invalidSyntax", 'op must be "add", "replace" or "remove"');
    const path = field(operation, "path");
    if (path !== undefined && (typeof path !== "string" || path.trim() === "")) throw badRequest("invalidPath", "path must be a non-empty string");
    const value = field(operation, "value");
    if (lower !== "remove" && value === undefined) throw badRequest("invalidValue", `${lower} needs a value`);
    if (path === undefined && !isRecord(value)) throw badRequest(lower === "remove" ? "noTarget" : "invalidValue", "An operation without a path needs an object value");
    return { op: lower, ...(path !== undefined ? { path: path.trim() } : {}), ...(value !== undefined ? { value } : {}) };
  });
}

// Core User attributes (RFC 7643 §4.1) an IdP may send that the platform does not keep: accepted, ignored.
const IGNORED_USER_ATTRIBUTES = new Set([
  "nickname",
  "profileurl",
  "title",
  "usertype",
  "preferredlanguage",
  "locale",
  "timezone",
  "password",
  "phonenumbers",
  "ims",
  "photos",
  "addresses",
  "groups",
  "entitlements",
  "roles",
  "x509certificates",
  "name.middlename",
  "name.honorificprefix",
  "name.honorificsuffix",
]);

/** `emails[type eq "work"].value` and the like: a filter on the one email kept, which always matches. */
const EMAIL_VALUE_PATH = /^emails\[[^\]]*\]\.value$/i;

function ignoredUserPath(lower: string): boolean {
  const base = lower.split(/[[.]/)[0]!;
  return IGNORED_USER_ATTRIBUTES.has(lower) || IGNORED_USER_ATTRIBUTES.has(base) || lower.startsWith(ENTERPRISE_USER_SCHEMA.toLowerCase()) || lower.startsWith("urn:");
}

function setUserAttribute(user: ScimUserAttributes, op: PatchOperation["op"], path: string, value: unknown): void {
  const lower = path.toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:user:/, "");
  const removing = op === "remove";
  switch (lower) {
    case "active":
      user.active = removing ? false : booleanValue("active", value);
      return;
    case "username":
      if (removing) throw badRequest("invalidValue", "userName is required");
      user.userName = stringValue("userName", value, { required: true })!;
      return;
    case "externalid":
      user.externalId = removing ? undefined : stringValue("externalId", value);
      return;
    case "displayname":
      user.displayName = removing ? undefined : stringValue("displayName", value);
      return;
    case "name.givenname":
      user.givenName = removing ? undefined : stringValue("name.givenName", value);
      return;
    case "name.familyname":
      user.familyName = removing ? undefined : stringValue("name.familyName", value);
      return;
    case "name.formatted":
      return;
    case "name":
      if (removing) {
        user.givenName = undefined;
        user.familyName = undefined;
        return;
      }
      if (!isRecord(value)) throw badRequest("invalidValue", "name must be an object");
      for (const [key, part] of Object.entries(value)) setUserAttribute(user, op, `name.${key}`, part);
      return;
    case "emails": {
      if (removing) throw badRequest("invalidValue", "A provisioned user keeps an email address");
      const entries = Array.isArray(value) ? value : [value];
      const chosen = entries.filter(isRecord).find((entry) => field(entry, "primary") === true || String(field(entry, "primary")).toLowerCase() === "true") ?? entries[0];
      if (!isRecord(chosen)) throw badRequest("invalidValue", "emails must be an array of objects");
      user.email = emailValue("emails.value", field(chosen, "value"));
      return;
    }
    case "id":
      throw badRequest("mutability", "id cannot be changed");
  }
  if (EMAIL_VALUE_PATH.test(lower)) {
    if (removing) throw badRequest("invalidValue", "A provisioned user keeps an email address");
    user.email = emailValue("emails.value", value);
    return;
  }
  if (ignoredUserPath(lower)) return;
  throw badRequest("invalidPath", `The attribute "${path}" is not known`);
}

/** Applies the operations to a copy of the user's attributes. */
export function applyUserPatch(current: ScimUserAttributes, operations: PatchOperation[]): ScimUserAttributes {
  const user = { ...current };
  for (const { op, path, value } of operations) {
    if (path !== undefined) {
      setUserAttribute(user, op, path, value);
      continue;
    }
    for (const [key, part] of Object.entries(value as Record<string, unknown>)) {
      // Okta and Entra send the enterprise extension as one object under its URN: not kept.
      if (key.toLowerCase() === "schemas" || (key.startsWith("urn:") && isRecord(part))) continue;
      setUserAttribute(user, op, key, part);
    }
  }
  return user;
}

const MEMBER_FILTER_PATH = /^members\s*\[\s*value\s+eq\s+("(?:[^"\\]|\\.)*")\s*\]$/i;

function setGroupAttribute(group: ScimGroupAttributes, op: PatchOperation["op"], path: string, value: unknown): void {
  const lower = path.toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/, "");
  switch (lower) {
    case "displayname":
      if (op === "remove") throw badRequest("invalidValue", "displayName is required");
      group.displayName = stringValue("displayName", value, { required: true })!;
      return;
    case "externalid":
      group.externalId = op === "remove" ? undefined : stringValue("externalId", value);
      return;
    case "id":
      throw badRequest("mutability", "id cannot be changed");
    case "members": {
      if (op === "replace") {
        group.members = memberIds(value);
        return;
      }
      if (op === "add") {
        group.members = [...new Set([...group.members, ...memberIds(value)])];
        return;
      }
      // remove: Entra names the members in the value; without one, every member goes (RFC 7644 §3.5.2.2).
      const removed = value === undefined ? undefined : new Set(memberIds(value));
      group.members = removed === undefined ? [] : group.members.filter((id) => !removed.has(id));
      return;
    }
  }
  const member = MEMBER_FILTER_PATH.exec(path);
  if (member) {
    if (op !== "remove") throw badRequest("invalidPath", "A members filter is only supported to remove a member");
    let id: unknown;
    try {
      id = JSON.parse(member[1]!);
    } catch {
      throw badRequest("invalidPath", "The members filter's value is not a valid string");
    }
    group.members = group.members.filter((existing) => existing !== id);
    return;
  }
  throw badRequest("invalidPath", `The attribute "${path}" is not known`);
}

/** Applies the operations to a copy of the group's attributes; `id` in a pathless value must be the group's. */
export function applyGroupPatch(current: ScimGroupAttributes & { id: string }, operations: PatchOperation[]): ScimGroupAttributes {
  const group: ScimGroupAttributes = { displayName: current.displayName, externalId: current.externalId, members: [...current.members] };
  for (const { op, path, value } of operations) {
    if (path !== undefined) {
      setGroupAttribute(group, op, path, value);
      continue;
    }
    for (const [key, part] of Object.entries(value as Record<string, unknown>)) {
      if (key.toLowerCase() === "schemas") continue;
      // Okta repeats the group's id in a replace without a path: only a different one is a change.
      if (key.toLowerCase() === "id") {
        if (part !== current.id) throw badRequest("mutability", "id cannot be changed");
        continue;
      }
      setGroupAttribute(group, op, key, part);
    }
  }
  return group;
}
