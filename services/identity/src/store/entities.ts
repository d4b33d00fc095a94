/** The identity service's tables: user and account. */
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
    twoFactorEnabled: p.boolean().default(false),
    /** The last sign-in (recordSignIn): not part of the user record, which the session service copies. */
    lastSignInAt: p.datetime().nullable(),
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
    language: p.string().nullable(),
    details: p.text().nullable(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});

export type MailRequestRow = InstanceType<typeof MailRequestEntity.class>;

/** Mailed codes (email OTP), one per purpose and address (email-code-store.ts). */
export const EmailCodeEntity = defineEntity({
  name: "EmailCode",
  tableName: "email_code",
  properties: {
    id: p.string().primary(),
    purpose: p.string(),
    email: p.string(),
    codeHash: p.string(),
    attempts: p.integer(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
  },
});

export type EmailCodeRow = InstanceType<typeof EmailCodeEntity.class>;

/** What the session service has still to be told about each user (identity-store.ts, SessionOutboxRecord). */
export const SessionOutboxEntity = defineEntity({
  name: "SessionOutbox",
  tableName: "session_outbox",
  properties: {
    userId: p.string().primary(),
    revokeSessions: p.boolean().default(false),
    version: p.integer(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
  },
});

export type SessionOutboxRow = InstanceType<typeof SessionOutboxEntity.class>;

/** The user event outbox (migration 0015, docs/adr/0074-user-event-outbox.md). */
export const UserEventEntity = defineEntity({
  name: "UserEvent",
  tableName: "user_event",
  properties: {
    id: p.string().primary(),
    userId: p.string().index(),
    type: p.string(),
    payload: p.text(),
    occurredAt: p.datetime(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().index(),
    leaseUntil: p.datetime().nullable(),
  },
});

export type UserEventRow = InstanceType<typeof UserEventEntity.class>;

/** Two-factor (migration 0004): the TOTP enrolment, backup codes, sign-in challenges, trusted devices. */
export const TwoFactorEntity = defineEntity({
  name: "TwoFactor",
  tableName: "two_factor",
  properties: {
    userId: p.string().primary(),
    secret: p.text(),
    verified: p.boolean(),
    lastTotpStep: p.integer().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const BackupCodeEntity = defineEntity({
  name: "BackupCode",
  tableName: "two_factor_backup_code",
  properties: {
    userId: p.string().primary(),
    codeHash: p.string().primary(),
  },
});

export const TwoFactorChallengeEntity = defineEntity({
  name: "TwoFactorChallenge",
  tableName: "two_factor_challenge",
  properties: {
    id: p.string().primary(),
    userId: p.string().index(),
    rememberMe: p.boolean(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    attempts: p.integer(),
    otpHash: p.string().nullable(),
    otpExpiresAt: p.datetime().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    method: p.string().nullable(),
  },
});

export const TrustedDeviceEntity = defineEntity({
  name: "TrustedDevice",
  tableName: "trusted_device",
  properties: {
    id: p.string().primary(),
    userId: p.string().index(),
    tokenHash: p.string().unique(),
    userAgent: p.text().nullable(),
    ipAddress: p.string().nullable(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export type TwoFactorRow = InstanceType<typeof TwoFactorEntity.class>;
export type TwoFactorChallengeRow = InstanceType<typeof TwoFactorChallengeEntity.class>;
export type TrustedDeviceRow = InstanceType<typeof TrustedDeviceEntity.class>;

/** Passkeys (migration 0013): the WebAuthn credentials and the pending ceremonies. */
export const PasskeyEntity = defineEntity({
  name: "Passkey",
  tableName: "passkey",
  properties: {
    id: p.string().primary(),
    userId: p.string().index(),
    name: p.string().nullable(),
    credentialId: p.string().unique(),
    publicKey: p.text(),
    counter: p.bigint("number"),
    deviceType: p.string(),
    backedUp: p.boolean(),
    // Comma-separated, as the browser listed them.
    transports: p.string(),
    aaguid: p.string().nullable(),
    createdAt: p.datetime(),
  },
});

export const PasskeyChallengeEntity = defineEntity({
  name: "PasskeyChallenge",
  tableName: "passkey_challenge",
  properties: {
    id: p.string().primary(),
    kind: p.string(),
    challenge: p.string(),
    userId: p.string().nullable().index(),
    sessionId: p.string().nullable(),
    expiresAt: p.datetime().index(),
    createdAt: p.datetime(),
  },
});

/** API keys (migration 0016, docs/adr/0075-api-keys.md): only the key's keyed hash is stored. */
export const ApiKeyEntity = defineEntity({
  name: "ApiKey",
  tableName: "api_key",
  properties: {
    id: p.string().primary(),
    name: p.string().nullable(),
    start: p.string().nullable(),
    prefix: p.string().nullable(),
    keyHash: p.string().unique(),
    userId: p.string().nullable().index(),
    organizationId: p.string().nullable().index(),
    // JSON text.
    permissions: p.text().nullable(),
    metadata: p.text().nullable(),
    enabled: p.boolean(),
    expiresAt: p.datetime().nullable().index(),
    rateLimitWindowMs: p.bigint("number").nullable(),
    rateLimitMax: p.integer().nullable(),
    // The rate limit's current window: its start (ms since the epoch) and the uses counted in it.
    windowStart: p.bigint("number").nullable(),
    requestCount: p.integer(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type ApiKeyRow = InstanceType<typeof ApiKeyEntity.class>;
export type PasskeyRow = InstanceType<typeof PasskeyEntity.class>;
export type PasskeyChallengeRow = InstanceType<typeof PasskeyChallengeEntity.class>;
