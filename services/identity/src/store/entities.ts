/** The identity service's tables (SPEC.md §3): user and account. */
import { defineEntity, p } from "@mikro-orm/core";

export const UserEntity = defineEntity({
  name: "User",
  tableName: "user",
  properties: {
    id: p.string().primary(),
    name: p.string(),
    email: p.string().unique(),
    emailVerified: p.boolean().default(false),
    image: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    username: p.string().nullable().unique(),
    displayUsername: p.string().nullable(),
    role: p.string().nullable(),
    banned: p.boolean().default(false),
    banReason: p.string().nullable(),
    banExpires: p.datetime().nullable(),
    /** Configured extra fields, JSON text. */
    extraFields: p.text().default("{}"),
  },
});

export const AccountEntity = defineEntity({
  name: "Account",
  tableName: "account",
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    providerId: p.string(),
    userId: p.string().index(),
    password: p.text().nullable(),
    accessToken: p.text().nullable(),
    refreshToken: p.text().nullable(),
    idToken: p.text().nullable(),
    accessTokenExpiresAt: p.datetime().nullable(),
    refreshTokenExpiresAt: p.datetime().nullable(),
    scope: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type UserRow = InstanceType<typeof UserEntity.class>;
export type AccountRow = InstanceType<typeof AccountEntity.class>;

export const VerificationEntity = defineEntity({
  name: "Verification",
  tableName: "verification",
  properties: {
    id: p.string().primary(),
    identifier: p.string().index(),
    value: p.text(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type VerificationRow = InstanceType<typeof VerificationEntity.class>;

/** Mail requests waiting for the worker (forget-password, send-verification-email). */
export const MailRequestEntity = defineEntity({
  name: "MailRequest",
  tableName: "mail_request",
  properties: {
    id: p.string().primary(),
    kind: p.string(),
    email: p.string(),
    callbackUrl: p.text().nullable(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});

export type MailRequestRow = InstanceType<typeof MailRequestEntity.class>;
