/**
 * The platform's organization permission list: every resource and its actions. The one source: the
 * organization service's built-in roles, its ORGANIZATION_ROLES schema and the custom roles an organization
 * defines draw from it, and the web app's permission checklist shows it. `team` is the teams of an
 * organization (docs/adr/0065-organization-teams.md). `ac` is the custom roles
 * themselves (better-auth 1.7's dynamic access control; docs/adr/0066-custom-organization-roles.md). `apiKey` is
 * the organization's API keys, and a key's own permissions draw from this list too (docs/adr/0075-api-keys.md).
 */
export const RESOURCES = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
  apiKey: ["create", "read", "update", "delete"],
} as const;

export type Resource = keyof typeof RESOURCES;
/** Resource -> the actions granted on it. */
export type Permissions = Partial<Record<Resource, string[]>>;
