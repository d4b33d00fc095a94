/**
 * The public JSON shapes of a user, a session, an organization, a member, an invitation, a trusted device and a passkey,
 * declared once: the gateway answers them (gateway/src/http/public-shapes.ts builds them, and its OpenAPI
 * document describes them from these schemas) and the web app reads them (web/src/api.ts). Types and
 * schemas only: nothing here runs on a server. Objects are strict in the OpenAPI document
 * (additionalProperties: false) except the user, which carries the configured additional fields.
 */
import * as z from "zod";

const when = z.iso.datetime({ offset: true });
const nullableText = z.string().nullable();

export const userSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    image: nullableText,
    createdAt: when,
    updatedAt: when,
    username: nullableText,
    displayUsername: nullableText,
    twoFactorEnabled: z.boolean(),
    // The admin fields: a comma-separated role list, and the ban.
    role: nullableText,
    banned: z.boolean(),
    banReason: nullableText,
    banExpires: when.nullable(),
  })
  .describe("A user; configured additional fields appear beside these.");

export const sessionSchema = z.object({
  id: z.string(),
  token: z.string(),
  userId: z.string(),
  expiresAt: when,
  ipAddress: nullableText,
  userAgent: nullableText,
  createdAt: when,
  updatedAt: when,
  // The admin's user id on a session an admin started as this user (impersonation).
  impersonatedBy: nullableText.optional(),
  activeOrganizationId: nullableText.optional(),
  // better-auth 1.7's organization plugin with teams: the team the session acts in.
  activeTeamId: nullableText.optional(),
  // How the user proved who they are at sign-in ("password", "passkey", "magic-link", "email-otp",
  // "social:<provider>", ...), the second factor passed ("totp", "otp", "backup-code", "passkey",
  // "trusted-device") and when; null on sessions opened before the platform recorded it.
  authMethod: nullableText.optional(),
  secondFactor: nullableText.optional(),
  authenticatedAt: when.nullable().optional(),
});

export const trustedDeviceSchema = z.object({
  id: z.string(),
  userAgent: nullableText,
  ipAddress: nullableText,
  createdAt: when,
  lastUsedAt: when,
  expiresAt: when,
});

/**
 * A passkey as better-auth 1.7's passkey plugin declares it (transports comma-separated, as it stores them;
 * `name` and `aaguid` absent when unset).
 */
export const passkeySchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  userId: z.string(),
  credentialID: z.string(),
  publicKey: z.string(),
  counter: z.number(),
  deviceType: z.enum(["singleDevice", "multiDevice"]),
  backedUp: z.boolean(),
  transports: z.string(),
  aaguid: z.string().optional(),
  createdAt: when,
});

export const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  logo: nullableText,
  // null when none is set.
  metadata: z.record(z.string(), z.string()).nullable(),
  createdAt: when,
});

export const memberSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  role: z.string(),
  createdAt: when,
  user: z.object({ id: z.string(), name: z.string(), email: z.string(), image: nullableText }).optional(),
});

export const invitationStatusSchema = z.enum(["pending", "accepted", "rejected", "canceled"]);

export const invitationSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  role: z.string(),
  status: invitationStatusSchema,
  inviterId: z.string(),
  expiresAt: when,
  createdAt: when,
});

/**
 * What the signed-in user may do in an organization (get-full-organization's `access`): their role and
 * what it allows by the organization service's rules, so a client offers only what will be accepted.
 */
export const organizationAccessSchema = z.object({
  role: z.string(),
  canUpdateOrganization: z.boolean(),
  canDeleteOrganization: z.boolean(),
  canInvite: z.boolean(),
  canCancelInvitations: z.boolean(),
  // The roles they may give: invite with, or set as a member's role.
  assignableRoles: z.array(z.string()),
  // Of the members in the answer: whose role they may change, and whom they may remove (themselves: leaving).
  updatableMemberIds: z.array(z.string()),
  removableMemberIds: z.array(z.string()),
  // The role that makes a member an owner: only an owner gives or takes it, and changes or removes owners.
  ownerRole: z.string(),
  // May create, rename and delete teams.
  canManageTeams: z.boolean(),
  // What they may do with custom roles: the ac actions their role grants (read, create, update, delete).
  roleActions: z.array(z.string()),
});

/** A team of an organization (better-auth 1.7's organization plugin with teams). */
export const teamSchema = z.object({
  id: z.string(),
  name: z.string(),
  organizationId: z.string(),
  createdAt: when,
  updatedAt: when,
});

/** One user's place in one team. */
export const teamMemberSchema = z.object({
  id: z.string(),
  teamId: z.string(),
  userId: z.string(),
  createdAt: when,
});

/**
 * A custom role of an organization, as better-auth 1.7's dynamic access control answers it: `role` is its
 * name, `permission` what it grants (resource -> actions, from contract/src/permissions.ts).
 */
export const organizationRoleSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  role: z.string(),
  permission: z.record(z.string(), z.array(z.string())),
  createdAt: when,
  updatedAt: when.optional(),
});

export type User = z.infer<typeof userSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type TrustedDevice = z.infer<typeof trustedDeviceSchema>;
export type Passkey = z.infer<typeof passkeySchema>;
export type Organization = z.infer<typeof organizationSchema>;
export type Member = z.infer<typeof memberSchema>;
export type InvitationStatus = z.infer<typeof invitationStatusSchema>;
export type Invitation = z.infer<typeof invitationSchema>;
export type OrganizationAccess = z.infer<typeof organizationAccessSchema>;
export type Team = z.infer<typeof teamSchema>;
export type TeamMember = z.infer<typeof teamMemberSchema>;
export type OrganizationRole = z.infer<typeof organizationRoleSchema>;
