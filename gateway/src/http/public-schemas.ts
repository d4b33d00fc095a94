/**
 * The response bodies of the HTTP API as zod schemas. A route names its schema in its defineRoute
 * declaration (http/define-route.ts): the handler's answer must match the schema's input type (tsc), the
 * OpenAPI document describes it (http/openapi.ts), and gateway/test/openapi-responses.int.test.ts checks the
 * real answers. The user, session, organization, member, invitation and trusted device shapes are
 * @auth-platform/contract's, shared with the web app. Objects are strict (additionalProperties: false in
 * the document) except the user, which carries the configured additional fields.
 */
import * as z from "zod";
import {
  invitationSchema,
  memberSchema,
  organizationAccessSchema,
  organizationRoleSchema,
  organizationSchema,
  passkeySchema,
  sessionSchema,
  teamMemberSchema,
  teamSchema,
  trustedDeviceSchema,
  userSchema,
} from "@auth-platform/contract/shapes";
import { ERRORS } from "@auth-platform/proto/errors";

export { invitationSchema, memberSchema, organizationRoleSchema, organizationSchema, sessionSchema, teamMemberSchema, teamSchema, trustedDeviceSchema, userSchema };

const when = z.iso.datetime({ offset: true });
const nullableText = z.string().nullable();

// ---- response bodies ----

const status = z.object({ status: z.boolean() });
const success = z.object({ success: z.boolean() });

export const statusSchema = status;
export const successSchema = success;
export const okSchema = z.object({ ok: z.literal(true) });

export const signUpSchema = z.object({ token: z.string().nullable(), user: userSchema });

export const signInSchema = z.object({ redirect: z.boolean(), token: z.string(), url: z.string().optional(), user: userSchema });

export const twoFactorRedirectSchema = z.object({ twoFactorRedirect: z.boolean(), twoFactorMethods: z.array(z.string()) });

/** A sign-in answers the session, or (a two-factor user on an untrusted device) the challenge. */
export const signInOrChallengeSchema = z.union([signInSchema, twoFactorRedirectSchema]);

export const sessionWithUserSchema = z.object({ session: sessionSchema, user: userSchema });

export const updateSessionSchema = z.object({ session: sessionSchema });

export const accountListSchema = z.array(
  z.object({
    id: z.string(),
    provider: z.string(),
    providerId: z.string(),
    accountId: z.string(),
    userId: z.string(),
    createdAt: when,
    updatedAt: when,
    scopes: z.array(z.string()),
  }),
);

export const passwordResetRequestedSchema = z.object({ status: z.boolean(), message: z.string() });

export const usernameAvailabilitySchema = z.object({ available: z.boolean() });

export const tokenAndUserSchema = z.object({ token: z.string().nullable(), user: userSchema });

export const verifiedEmailSchema = z.object({ status: z.boolean(), user: userSchema });

export const deleteUserSchema = z.object({ success: z.boolean(), message: z.string() });

export const enableTwoFactorSchema = z.object({ method: z.literal("totp"), totpURI: z.string(), backupCodes: z.array(z.string()) });

export const totpUriSchema = z.object({ totpURI: z.string() });

export const backupCodesSchema = z.object({ status: z.boolean(), backupCodes: z.array(z.string()) });

export const twoFactorVerifiedSchema = z.object({ token: z.string(), user: userSchema });

export const trustedDevicesSchema = z.object({ devices: z.array(trustedDeviceSchema) });

/** WebAuthn options for navigator.credentials (the JSON forms @simplewebauthn/browser and the Level 3 parsers take). */
const credentialDescriptorSchema = z.object({ id: z.string(), type: z.literal("public-key"), transports: z.array(z.string()).optional() });
export const passkeyRegistrationOptionsSchema = z.looseObject({
  challenge: z.string(),
  rp: z.object({ name: z.string(), id: z.string().optional() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.object({ type: z.literal("public-key"), alg: z.number() })),
  timeout: z.number().optional(),
  excludeCredentials: z.array(credentialDescriptorSchema).optional(),
  authenticatorSelection: z.looseObject({}).optional(),
  attestation: z.string().optional(),
});
export const passkeyAuthenticationOptionsSchema = z.looseObject({
  challenge: z.string(),
  rpId: z.string().optional(),
  timeout: z.number().optional(),
  allowCredentials: z.array(credentialDescriptorSchema).optional(),
  userVerification: z.string().optional(),
});
export const passkeysSchema = z.array(passkeySchema);
export const updatePasskeySchema = z.object({ passkey: passkeySchema });

export const accessTokenSchema = z.object({
  accessToken: z.string().optional(),
  accessTokenExpiresAt: when.optional(),
  scopes: z.array(z.string()),
  idToken: z.string().optional(),
});

export const refreshedTokenSchema = z.object({
  accessToken: z.string().optional(),
  refreshToken: z.string().optional(),
  accessTokenExpiresAt: when.optional(),
  refreshTokenExpiresAt: when.optional(),
  scope: z.string(),
  idToken: z.string().optional(),
  providerId: z.string().optional(),
  accountId: z.string().optional(),
});

export const accountInfoSchema = z.object({
  user: z.record(z.string(), z.unknown()),
  data: z.record(z.string(), z.unknown()),
  account: z.object({ id: z.string().optional(), providerId: z.string().optional(), accountId: z.string().optional() }),
});

export const socialRedirectSchema = z.object({ url: z.string(), redirect: z.boolean() });

export const socialSignInSchema = z.union([socialRedirectSchema, signInSchema]);

/** access: ours (docs/better-auth-compat.md), what the caller may do in it. */
export const fullOrganizationSchema = organizationSchema.extend({
  members: z.array(memberSchema),
  invitations: z.array(invitationSchema),
  teams: z.array(teamSchema),
  access: organizationAccessSchema.optional(),
});

export const messageSchema = z.object({ message: z.string() });

export const memberListSchema = z.object({ members: z.array(memberSchema), total: z.number().int() });

export const removedMemberSchema = z.object({ member: memberSchema });

export const userInvitationSchema = invitationSchema.extend({ organizationName: z.string() });

export const invitationDetailSchema = invitationSchema.extend({ organizationName: z.string(), organizationSlug: z.string(), inviterEmail: z.string() });

export const acceptedInvitationSchema = z.object({ invitation: invitationSchema, member: memberSchema });

export const rejectedInvitationSchema = z.object({ invitation: invitationSchema, member: z.null() });

export const permissionSchema = z.object({ error: z.null(), success: z.boolean() });

export const memberRoleSchema = z.object({ role: z.string() });

/** create-role: the role, and what it grants as better-auth's access control lists it (`statements`). */
export const createdRoleSchema = z.object({
  success: z.literal(true),
  roleData: organizationRoleSchema,
  statements: z.record(z.string(), z.array(z.string())),
});
export const updatedRoleSchema = z.object({ success: z.literal(true), roleData: organizationRoleSchema });

export const adminUserSchema = z.object({ user: userSchema });

export const listUsersSchema = z.object({
  users: z.array(
    userSchema.extend({
      // Ours, for admins only (docs/adr/0054-last-sign-in-and-audit-names.md): better-auth's clients ignore it.
      lastSignInAt: when.nullable().describe("When the user last signed in; null when never (or not since the platform records it)."),
    }),
  ),
  total: z.number().int().describe("How many users match; when totalIsLowerBound, at least this many (the count limit)."),
  totalIsLowerBound: z.literal(true).optional().describe("Present when more users match than ADMIN_LIST_USERS_COUNT_LIMIT: total is that limit."),
  limit: z.number().int().optional(),
  offset: z.number().int().optional(),
});

export const listUserSessionsSchema = z.object({ sessions: z.array(sessionSchema) });

export const auditEventsSchema = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      actorId: nullableText,
      impersonatorId: nullableText,
      targetId: nullableText,
      at: when,
      ipAddress: nullableText,
      userAgent: nullableText,
      outcome: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  ),
  total: z.number().int(),
  users: z
    .record(z.string(), z.object({ name: z.string(), email: z.string() }))
    .describe("The name and email of each user the page's events name (actor, impersonator, target), by id; a removed user is absent."),
});

export const rolesSchema = z.object({ roles: z.array(z.string()).describe("The roles admins may give, in configured order.") });

export const outboxSchema = z.object({
  messages: z.array(
    z.object({
      id: z.string(),
      to: z.string(),
      subject: z.string(),
      text: z.string(),
      html: z.string(),
      template: z.string(),
      createdAt: when,
      deliveredAt: when.nullable(),
      links: z.array(z.string()),
    }),
  ),
});

/** The error body for one HTTP status: the catalogue's codes answered with that status. */
export function errorSchema(http: number) {
  const codes = Object.entries(ERRORS)
    .filter(([, entry]) => entry.http === http)
    .map(([code]) => code);
  const code = codes.length ? z.enum(codes as [string, ...string[]]) : z.string();
  if (http === ERRORS.DOMAIN_VERIFICATION_FAILED.http) {
    return z.object({
      code,
      message: z.string(),
      reason: z.enum(["absent", "mismatch", "unavailable"]).optional().describe("DOMAIN_VERIFICATION_FAILED: why the TXT record was not found"),
      domain: z.string().optional().describe("DOMAIN_VERIFICATION_FAILED: the domain whose TXT record was looked up"),
    });
  }
  if (http !== ERRORS.BANNED_USER.http) return z.object({ code, message: z.string() });
  return z.object({ code, message: z.string(), banExpires: z.string().nullable().optional().describe("BANNED_USER: when the ban ends (ISO 8601); null: it does not") });
}

/** An organization's identity provider, as `@better-auth/sso` 1.7 reads it: never a client secret (docs/http-api/sso.md). */
export const ssoProviderSchema = z.object({
  providerId: z.string(),
  type: z.string(),
  issuer: z.string(),
  domain: z.string(),
  organizationId: z.string().nullable(),
  domainVerified: z.boolean(),
  oidcConfig: z
    .object({
      discoveryEndpoint: z.string(),
      clientIdLastFour: z.string(),
      pkce: z.boolean(),
      authorizationEndpoint: z.string().optional(),
      tokenEndpoint: z.string().optional(),
      userInfoEndpoint: z.string().optional(),
      jwksEndpoint: z.string().optional(),
      scopes: z.array(z.string()).optional(),
      tokenEndpointAuthentication: z.enum(["client_secret_post", "client_secret_basic"]).optional(),
      mapping: z.object({ id: z.string(), email: z.string(), emailVerified: z.string(), name: z.string(), image: z.string() }),
    })
    .optional(),
  /** A SAML provider's settings (its public certificates only) and the values the admin pastes into their IdP. */
  samlConfig: z
    .object({
      entryPoint: z.string(),
      idpEntityId: z.string(),
      certificates: z.array(z.string()),
      metadataUrl: z.string().optional(),
      allowIdpInitiated: z.boolean(),
      mapping: z.object({ email: z.string(), emailVerified: z.string().optional(), name: z.string(), firstName: z.string(), lastName: z.string() }),
      spEntityId: z.string(),
      acsUrl: z.string(),
      spMetadataUrl: z.string(),
    })
    .optional(),
  spMetadataUrl: z.string(),
  /** Ours: the redirect URI to register with the identity provider. */
  redirectURI: z.string(),
  enabled: z.boolean(),
  defaultRole: z.string(),
  userId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SsoProvider = z.infer<typeof ssoProviderSchema>;
export const ssoProviderListSchema = z.object({ providers: z.array(ssoProviderSchema) });
/** POST /sso/test-provider: each check of the provider against its identity provider (docs/http-api/sso.md). */
export const ssoProviderTestSchema = z.object({
  ok: z.boolean(),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })),
});
/** A claimed domain as its organization's managers see it (docs/http-api/domains.md). */
export const domainSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  domain: z.string(),
  status: z.enum(["pending", "verified", "expired"]),
  /** The TXT record to publish. */
  record: z.object({ name: z.string(), type: z.literal("TXT"), value: z.string() }),
  createdAt: z.date(),
  expiresAt: z.date(),
  verifiedAt: z.date().nullable(),
  /** The role new users with a verified address of the domain join with; null: auto-join off. */
  autoJoinRole: z.string().nullable(),
});
export const domainsSchema = z.array(domainSchema);
/** better-auth 1.7's /sso/request-domain-verification answer. */
export const domainVerificationTokenSchema = z.object({ domainVerificationToken: z.string() });

/** A SCIM token as listed: never its secret (docs/http-api/scim.md). */
export const scimTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The token's first characters ("scim_AbCd"), to tell tokens apart. */
  prefix: z.string(),
  createdBy: z.string(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
});
export const scimTokensSchema = z.array(scimTokenSchema);
/** A new SCIM token: the secret is answered this once. */
export const newScimTokenSchema = scimTokenSchema.extend({ token: z.string() });

/**
 * An API key as @better-auth/api-key 1.7 answers it (never the key itself). Its refill and usage-count fields
 * are answered null/0: keys here have no usage quota. `organizationId` is ours: the owning organization.
 */
export const apiKeySchema = z.object({
  id: z.string(),
  configId: z.string(),
  name: nullableText,
  start: nullableText,
  prefix: nullableText,
  referenceId: z.string(),
  userId: nullableText,
  organizationId: nullableText,
  refillInterval: z.null(),
  refillAmount: z.null(),
  lastRefillAt: z.null(),
  enabled: z.boolean(),
  rateLimitEnabled: z.boolean(),
  rateLimitTimeWindow: z.number().nullable(),
  rateLimitMax: z.number().nullable(),
  requestCount: z.number(),
  remaining: z.null(),
  lastRequest: when.nullable(),
  expiresAt: when.nullable(),
  createdAt: when,
  updatedAt: when,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  permissions: z.record(z.string(), z.array(z.string())).nullable(),
});
export type PublicApiKey = z.input<typeof apiKeySchema>;
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema), total: z.number(), limit: z.number().optional(), offset: z.number().optional() });
export const deletedExpiredApiKeysSchema = z.object({ success: z.boolean(), error: z.null() });
export const verifiedApiKeySchema = z.object({
  valid: z.boolean(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  key: apiKeySchema.nullable(),
});
