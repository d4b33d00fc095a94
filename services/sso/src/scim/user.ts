/**
 * The SCIM User resource (RFC 7643 §4.1) as this platform keeps it: the attributes an IdP provisions that
 * mean something here (userName, externalId, names, the primary email, active). The others an IdP sends
 * (phone numbers, the enterprise extension, a password) are accepted and not kept (docs/adr/0070-scim-provisioning.md).
 */
import * as z from "zod";
import { badRequest } from "./errors.js";
import { booleanValue, field, isRecord, stringValue } from "./values.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_USER_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/** What the platform keeps of a provisioned user, per organization. */
export interface ScimUserAttributes {
  userName: string;
  externalId?: string;
  displayName?: string;
  givenName?: string;
  familyName?: string;
  /** The primary email: the user's email on the platform. */
  email: string;
  active: boolean;
}

export interface ScimUserRecord extends ScimUserAttributes {
  /** The platform's user id: the SCIM resource id. */
  id: string;
  createdAt: Date;
  updatedAt: Date;
  /** Bumped by every change; the ETag (meta.version). */
  revision: number;
}

export interface ScimUserResource {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  displayName: string;
  name: { formatted: string; givenName?: string; familyName?: string };
  emails: { value: string; primary: boolean; type: string }[];
  active: boolean;
  meta: { resourceType: "User"; created: string; lastModified: string; location: string; version: string };
}

const emailSchema = z.email();

export function emailValue(attribute: string, value: unknown): string {
  const email = stringValue(attribute, value, { required: true })!.toLowerCase();
  if (!emailSchema.safeParse(email).success) throw badRequest("invalidValue", `${attribute} is not an email address`);
  return email;
}

export function requireSchema(body: Record<string, unknown>, schema: string): void {
  const schemas = field(body, "schemas");
  if (!Array.isArray(schemas) || !schemas.includes(schema)) throw badRequest("invalidSyntax", `schemas must include ${schema}`);
}

/** The primary email of an `emails` value: the one marked primary, else the first, else undefined. */
function primaryEmail(emails: unknown): string | undefined {
  if (emails === undefined || emails === null) return undefined;
  if (!Array.isArray(emails)) throw badRequest("invalidValue", "emails must be an array");
  const entries = emails.filter(isRecord);
  if (entries.length !== emails.length) throw badRequest("invalidValue", "emails must be an array of objects");
  const chosen = entries.find((entry) => field(entry, "primary") === true || field(entry, "primary") === "True" || field(entry, "primary") === "true") ?? entries[0];
  return chosen === undefined ? undefined : emailValue("emails.value", field(chosen, "value"));
}

/** The email a user without `emails` gets: the userName when it is an address (Okta's default). */
function emailFromUserName(userName: string): string {
  if (emailSchema.safeParse(userName).success) return userName.toLowerCase();
  throw badRequest("invalidValue", "A user needs an email address: emails with a value, or a userName that is one");
}

/** Reads the body of POST /Users or PUT /Users/:id into the attributes kept (a PUT replaces them all). */
export function parseUserBody(body: unknown): ScimUserAttributes {
  if (!isRecord(body)) throw badRequest("invalidSyntax", "The body must be a JSON object");
  requireSchema(body, USER_SCHEMA);
  const userName = stringValue("userName", field(body, "userName"), { required: true })!;
  const name = field(body, "name");
  if (name !== undefined && name !== null && !isRecord(name)) throw badRequest("invalidValue", "name must be an object");
  const active = field(body, "active");
  return {
    userName,
    externalId: stringValue("externalId", field(body, "externalId")),
    displayName: stringValue("displayName", field(body, "displayName")),
    givenName: isRecord(name) ? stringValue("name.givenName", field(name, "givenName")) : undefined,
    familyName: isRecord(name) ? stringValue("name.familyName", field(name, "familyName")) : undefined,
    email: primaryEmail(field(body, "emails")) ?? emailFromUserName(userName),
    active: active === undefined || active === null ? true : booleanValue("active", active),
  };
}

/** The name shown for a user: displayName, else the given and family names, else the userName. */
export function displayNameOf(user: ScimUserAttributes): string {
  const fromParts = [user.givenName, user.familyName].filter(Boolean).join(" ");
  return user.displayName ?? (fromParts || user.userName);
}

export const etagOf = (revision: number) => `W/"${revision}"`;

export function toUserResource(user: ScimUserRecord, baseUrl: string): ScimUserResource {
  const formatted = [user.givenName, user.familyName].filter(Boolean).join(" ") || displayNameOf(user);
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(user.externalId !== undefined ? { externalId: user.externalId } : {}),
    userName: user.userName,
    displayName: displayNameOf(user),
    name: { formatted, ...(user.givenName !== undefined ? { givenName: user.givenName } : {}), ...(user.familyName !== undefined ? { familyName: user.familyName } : {}) },
    emails: [{ value: user.email, primary: true, type: "work" }],
    active: user.active,
    meta: {
      resourceType: "User",
      created: user.createdAt.toISOString(),
      lastModified: user.updatedAt.toISOString(),
      location: `${baseUrl}/Users/${encodeURIComponent(user.id)}`,
      version: etagOf(user.revision),
    },
  };
}
