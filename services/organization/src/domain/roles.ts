/**
 * Organization roles and what they may do (docs/organizations.md has the matrix). A role grants actions on
 * resources; a member's role may list several roles separated by commas, and grants what any of them does.
 */
import * as z from "zod";

import { type Permissions, RESOURCES, type Resource } from "@auth-platform/contract/permissions";

export { type Permissions, RESOURCES, type Resource };
/** Role name -> what it grants. */
export type RoleTable = Record<string, Permissions>;

const ALL_ACTIONS = ["create", "read", "update", "delete"] as const;

export const DEFAULT_ROLES: RoleTable = {
  owner: {
    organization: ["update", "delete"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    ac: [...ALL_ACTIONS],
    apiKey: [...ALL_ACTIONS],
  },
  admin: {
    organization: ["update"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    ac: [...ALL_ACTIONS],
    apiKey: [...ALL_ACTIONS],
  },
  member: {},
};

/** A role's name: lower-case letters, digits, - and _ (no comma: a member's role value lists roles with commas). */
export const roleName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "role names are lower-case letters, digits, - and _");
const permissions = z.strictObject(Object.fromEntries(Object.entries(RESOURCES).map(([resource, actions]) => [resource, z.array(z.enum(actions)).optional()])));
/** ORGANIZATION_ROLES: a JSON object, role name -> { resource: [actions] }. */
export const roleTableSchema = z.record(roleName, permissions).refine((table) => Object.keys(table).length > 0, "at least one role");

/** The roles a member's role value names (comma-separated), trimmed. */
export function rolesOf(role: string): string[] {
  return role
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
}

/** Whether every role in the value is configured. */
export function isKnownRole(table: RoleTable, role: string): boolean {
  const roles = rolesOf(role);
  return roles.length > 0 && roles.every((r) => Object.hasOwn(table, r));
}

/** What one role grants on one resource; none for a name that is not a resource (e.g. "constructor"). */
function actionsOf(permissions: Permissions, resource: string): readonly string[] {
  return Object.hasOwn(permissions, resource) ? (permissions[resource as Resource] ?? []) : [];
}

/** Whether the member's role grants every asked action on every asked resource. */
export function grants(table: RoleTable, role: string, asked: Record<string, readonly string[]>): boolean {
  const roles = rolesOf(role).filter((r) => Object.hasOwn(table, r));
  return Object.entries(asked).every(([resource, actions]) => actions.every((action) => roles.some((r) => actionsOf(table[r]!, resource).includes(action))));
}

/** Whether `holder` grants everything `role` grants: a member hands on (invites with, sets) only what they hold. */
export function grantsAllOf(table: RoleTable, holder: string, role: string): boolean {
  return rolesOf(role)
    .filter((r) => Object.hasOwn(table, r))
    .every((r) => grants(table, holder, table[r]! as Record<string, readonly string[]>));
}

/** Whether the role value includes the creator role (the owner). */
export function isCreator(creatorRole: string, role: string): boolean {
  return rolesOf(role).includes(creatorRole);
}
