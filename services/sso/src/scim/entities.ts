/** The SCIM tables of the sso schema (docs/adr/0070-scim-provisioning.md). */
import { defineEntity, p } from "@mikro-orm/core";

export const ScimTokenEntity = defineEntity({
  name: "ScimToken",
  tableName: "scim_token",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    prefix: p.string(),
    tokenHash: p.string().unique(),
    createdBy: p.string(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
  },
});

export const ScimUserEntity = defineEntity({
  name: "ScimUser",
  tableName: "scim_user",
  properties: {
    organizationId: p.string().primary(),
    userId: p.string().primary(),
    userName: p.string(),
    userNameLower: p.string(),
    externalId: p.string().nullable(),
    displayName: p.string().nullable(),
    givenName: p.string().nullable(),
    familyName: p.string().nullable(),
    email: p.string(),
    active: p.boolean(),
    deleted: p.boolean(),
    applied: p.string().nullable(),
    pending: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    revision: p.integer(),
  },
});

export const ScimGroupEntity = defineEntity({
  name: "ScimGroup",
  tableName: "scim_group",
  properties: {
    organizationId: p.string().primary(),
    teamId: p.string().primary(),
    displayName: p.string(),
    displayNameLower: p.string(),
    externalId: p.string().nullable(),
    /** JSON array of user ids. */
    members: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    revision: p.integer(),
  },
});

export const SCIM_ENTITIES = [ScimTokenEntity, ScimUserEntity, ScimGroupEntity];
export type ScimUserEntityRow = InstanceType<typeof ScimUserEntity.class>;
export type ScimGroupEntityRow = InstanceType<typeof ScimGroupEntity.class>;
