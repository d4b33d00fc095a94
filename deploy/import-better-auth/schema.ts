/**
 * The better-auth schema this importer knows (releases 1.1 to 1.7, with the username, two-factor and admin
 * plugins and configured extra user fields), checked before anything is read, and the source's rows turned
 * into the shapes the services' import modules take (runtime/imported-rows.ts). SQLite holds dates as text
 * or numbers and flags as 0/1; PostgreSQL as timestamps and booleans: both read the same here.
 */
import type { ImportedAccount, ImportedSession, ImportedTwoFactor, ImportedUser } from "@auth-platform/runtime/imported-rows";
import type { SourceRow } from "./source.js";

/** Columns every known release has; a table without them is not a better-auth table this importer reads. */
export const REQUIRED = {
  user: ["id", "name", "email", "emailVerified", "image", "createdAt", "updatedAt"],
  account: ["id", "accountId", "providerId", "userId", "password", "accessToken", "refreshToken", "idToken", "scope", "createdAt", "updatedAt"],
  session: ["id", "token", "userId", "expiresAt", "ipAddress", "userAgent", "createdAt", "updatedAt"],
  verification: ["id", "identifier", "value", "expiresAt"],
  twoFactor: ["id", "secret", "backupCodes", "userId"],
  // The organization plugin (optional); teams (1.7, or member.teamId before) and dynamic roles are its options.
  organization: ["id", "name", "slug", "logo", "metadata", "createdAt"],
  member: ["id", "organizationId", "userId", "role", "createdAt"],
  invitation: ["id", "organizationId", "email", "role", "status", "expiresAt", "inviterId"],
  team: ["id", "name", "organizationId", "createdAt"],
  teamMember: ["id", "teamId", "userId"],
  organizationRole: ["id", "organizationId", "role", "permission", "createdAt"],
} as const;

/** The organization plugin's tables: all of them or none, as the plugin creates them together. */
const ORGANIZATION_TABLES = ["organization", "member", "invitation"];

/** Tables an import can do without (a plugin or a plugin's option not installed). */
export const OPTIONAL_TABLES = new Set(["twoFactor", "verification", ...ORGANIZATION_TABLES, "team", "teamMember", "organizationRole"]);

/** An optional table only makes sense beside another: a team member without teams is a shape this importer does not know. */
const NEEDS: Record<string, string> = { team: "organization", teamMember: "team", organizationRole: "organization" };

/** User columns of better-auth and its plugins that map to our own user fields. */
const KNOWN_USER_COLUMNS = new Set([
  ...REQUIRED.user,
  "username",
  "displayUsername",
  "role",
  "banned",
  "banReason",
  "banExpires",
  "twoFactorEnabled",
  // Plugins whose data has no place here (phone number, anonymous): reported, not imported.
]);

export class UnknownSchemaError extends Error {}

export interface SchemaCheck {
  /** The user columns that become extra fields (configured in IDENTITY_USER_FIELDS). */
  extraFields: string[];
  /** User columns neither better-auth's nor configured: not imported (listed in the summary). */
  ignoredUserColumns: string[];
  /** Optional tables present. */
  present: Set<string>;
}

/** Checks the source's tables against REQUIRED; throws UnknownSchemaError naming everything missing. */
export function checkSchema(tables: Map<string, Set<string>>, configuredFields: string[]): SchemaCheck {
  const problems: string[] = [];
  const present = new Set<string>();
  for (const [table, columns] of Object.entries(REQUIRED)) {
    const found = tables.get(table);
    if (!found) {
      if (!OPTIONAL_TABLES.has(table)) problems.push(`table "${table}" is missing`);
      continue;
    }
    present.add(table);
    const missing = columns.filter((c) => !found.has(c));
    if (missing.length) problems.push(`table "${table}" lacks column(s) ${missing.map((c) => `"${c}"`).join(", ")}`);
  }
  const organizationTables = ORGANIZATION_TABLES.filter((table) => tables.has(table));
  if (organizationTables.length && organizationTables.length < ORGANIZATION_TABLES.length) {
    const absent = ORGANIZATION_TABLES.filter((table) => !tables.has(table));
    problems.push(
      `the organization plugin's tables are half there: ${absent.map((t) => `"${t}"`).join(", ")} missing beside ${organizationTables.map((t) => `"${t}"`).join(", ")}`,
    );
  }
  for (const [table, needed] of Object.entries(NEEDS)) {
    if (tables.has(table) && !tables.has(needed)) problems.push(`table "${table}" is there without table "${needed}"`);
  }
  if (problems.length) {
    const seen = [...tables.keys()].sort().join(", ") || "none";
    throw new UnknownSchemaError(
      `not a better-auth database this importer knows (better-auth 1.1 to 1.7, default table and column names): ${problems.join("; ")}. Tables found: ${seen}`,
    );
  }
  const userColumns = [...tables.get("user")!];
  const unknown = userColumns.filter((c) => !KNOWN_USER_COLUMNS.has(c));
  return { extraFields: unknown.filter((c) => configuredFields.includes(c)), ignoredUserColumns: unknown.filter((c) => !configuredFields.includes(c)), present };
}

export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(value);
    // Seconds (an integer column written by hand) or milliseconds.
    return new Date(n < 1e11 ? n * 1000 : n);
  }
  if (typeof value === "string") {
    if (/^\d+$/.test(value)) return toDate(Number(value));
    // SQLite's CURRENT_TIMESTAMP form ("2026-01-02 03:04:05") is UTC.
    const date = new Date(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new Error(`not a date: ${JSON.stringify(value)}`);
}

const toDateOrNull = (value: unknown) => (value === null || value === undefined ? null : toDate(value));
const toBool = (value: unknown) => value === true || value === 1 || value === 1n || value === "1" || value === "true" || value === "t";
const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** An extra field's value as its configured type, or undefined to leave it out. */
function fieldValue(value: unknown, type: "string" | "number" | "boolean"): unknown {
  if (value === null || value === undefined) return undefined;
  if (type === "boolean") return toBool(value);
  if (type === "number") return Number.isFinite(Number(value)) ? Number(value) : undefined;
  return String(value);
}

export function toUser(row: SourceRow, extraFields: Array<{ name: string; type: "string" | "number" | "boolean" }>): ImportedUser {
  const extra: Record<string, unknown> = {};
  for (const field of extraFields) {
    const value = fieldValue(row[field.name], field.type);
    if (value !== undefined) extra[field.name] = value;
  }
  return {
    id: String(row.id),
    name: String(row.name ?? ""),
    email: String(row.email).toLowerCase(),
    emailVerified: toBool(row.emailVerified),
    image: text(row.image),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    username: text(row.username),
    displayUsername: text(row.displayUsername),
    role: text(row.role),
    banned: toBool(row.banned),
    banReason: text(row.banReason),
    banExpires: toDateOrNull(row.banExpires),
    extraFields: extra,
    twoFactorEnabled: toBool(row.twoFactorEnabled),
  };
}

export function toAccount(row: SourceRow): ImportedAccount {
  return {
    id: String(row.id),
    accountId: String(row.accountId),
    providerId: String(row.providerId),
    userId: String(row.userId),
    password: text(row.password),
    accessToken: text(row.accessToken),
    refreshToken: text(row.refreshToken),
    idToken: text(row.idToken),
    // Releases before 1.1 named the access token's expiry expiresAt.
    accessTokenExpiresAt: toDateOrNull(row.accessTokenExpiresAt ?? row.expiresAt),
    refreshTokenExpiresAt: toDateOrNull(row.refreshTokenExpiresAt),
    scope: text(row.scope),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
  };
}

export function toSession(row: SourceRow): ImportedSession {
  return {
    id: String(row.id),
    token: String(row.token),
    userId: String(row.userId),
    expiresAt: toDate(row.expiresAt),
    ipAddress: text(row.ipAddress),
    userAgent: text(row.userAgent),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    impersonatedBy: text(row.impersonatedBy),
    activeOrganizationId: text(row.activeOrganizationId),
    activeTeamId: text(row.activeTeamId),
  };
}

export function toTwoFactor(row: SourceRow): ImportedTwoFactor {
  return { userId: String(row.userId), secret: String(row.secret), backupCodes: String(row.backupCodes), verified: row.verified === undefined || toBool(row.verified) };
}
