/** The organization service's tables; metadata is a string map stored as JSON text. */
import { defineEntity, p } from "@mikro-orm/core";

export const OrganizationEntity = defineEntity({
  name: "Organization",
  tableName: "organization",
  properties: {
    id: p.string().primary(),
    name: p.string(),
    slug: p.string().unique(),
    logo: p.text().nullable(),
    metadata: p.text().nullable(),
    createdAt: p.datetime(),
  },
});

export type OrganizationRow = InstanceType<typeof OrganizationEntity.class>;

export const MemberEntity = defineEntity({
  name: "Member",
  tableName: "member",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    userId: p.string(),
    role: p.string(),
    createdAt: p.datetime(),
  },
});

export type MemberRow = InstanceType<typeof MemberEntity.class>;

export const InvitationEntity = defineEntity({
  name: "Invitation",
  tableName: "invitation",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    email: p.string(),
    role: p.string(),
    status: p.string(),
    inviterId: p.string(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
  },
});

export type InvitationRow = InstanceType<typeof InvitationEntity.class>;

/** Invitation mails waiting for the invitation mail worker; variables are a string map stored as JSON text. */
export const InvitationMailEntity = defineEntity({
  name: "InvitationMail",
  tableName: "invitation_mail",
  properties: {
    id: p.string().primary(),
    invitationId: p.string(),
    recipient: p.string(),
    variables: p.text(),
    idempotencyKey: p.string(),
    language: p.string().nullable(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});

export type InvitationMailRow = InstanceType<typeof InvitationMailEntity.class>;

export const TeamEntity = defineEntity({
  name: "Team",
  tableName: "team",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type TeamRow = InstanceType<typeof TeamEntity.class>;

export const TeamMemberEntity = defineEntity({
  name: "TeamMember",
  tableName: "team_member",
  properties: {
    id: p.string().primary(),
    teamId: p.string(),
    organizationId: p.string(),
    userId: p.string(),
    createdAt: p.datetime(),
  },
});

export type TeamMemberRow = InstanceType<typeof TeamMemberEntity.class>;

/** Custom roles (docs/adr/0066-custom-organization-roles.md); permissions are stored as JSON text. */
export const OrganizationRoleEntity = defineEntity({
  name: "OrganizationRole",
  tableName: "organization_role",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    permissions: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime().nullable(),
  },
});

export type OrganizationRoleRow = InstanceType<typeof OrganizationRoleEntity.class>;

/** The organization event outbox (migration 0007, docs/adr/0077-signed-webhooks.md); the payload is JSON text. */
export const OrganizationEventEntity = defineEntity({
  name: "OrganizationEvent",
  tableName: "organization_event",
  properties: {
    id: p.string().primary(),
    type: p.string(),
    organizationId: p.string(),
    payload: p.text(),
    occurredAt: p.datetime(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().index(),
    leaseUntil: p.datetime().nullable(),
  },
});

export type OrganizationEventRow = InstanceType<typeof OrganizationEventEntity.class>;
