/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the routes' own zod schemas: each route's request
 * schemas (exported by its route file) and its response schemas (public-schemas.ts) are named once in
 * OPERATIONS, and openApiDocument() turns them into JSON Schema with z.toJSONSchema. The registry cannot
 * drift from the router unseen: gateway/test/openapi.test.ts fails when an express route has no entry here
 * or an entry has no route, and gateway/test/openapi-responses.int.test.ts checks real answers of every
 * route against the document.
 */
import * as z from "zod";
import { ERRORS, type ErrorCode } from "@auth-platform/proto/errors";
import * as account from "../routes/account.js";
import * as admin from "../routes/admin.js";
import * as currentClient from "../routes/current-client.js";
import * as devMailbox from "../routes/dev-mailbox.js";
import * as organization from "../routes/organization.js";
import * as passwordReset from "../routes/password-reset.js";
import * as providerAccounts from "../routes/provider-accounts.js";
import * as responses from "../routes/responses.js";
import * as sessions from "../routes/sessions.js";
import * as signIn from "../routes/sign-in.js";
import * as signUp from "../routes/sign-up.js";
import * as social from "../routes/social.js";
import * as twoFactor from "../routes/two-factor.js";
import * as verification from "../routes/verification.js";
import type { RouteSpec } from "./define-route.js";
import * as s from "./public-schemas.js";

/** What a route answers on success: a JSON body, a redirect (302 with Location), or an HTML page. */
type Success = z.ZodType | "redirect" | "html";

export interface Operation {
  method: "get" | "post";
  /** The express path under the base path (`:name` for a path parameter). */
  path: string;
  tag: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** Success answers by status (200, 302). */
  success: Partial<Record<200 | 302, Success>>;
  /** Error statuses beyond those every route may answer (COMMON_ERRORS). */
  errors?: number[];
  /** The catalogue errors the route declares (listed per route in the document). */
  codes?: readonly ErrorCode[];
  /** Needs a session (cookie or bearer): 401 without one. */
  session?: boolean;
  /** Served only with AUTH_DEV_MAILBOX (development). */
  devOnly?: boolean;
}

/** Every route: a bad body or query (400), a refused origin (403), rate limited (429), a failure (500, 503). */
export const COMMON_ERRORS = [400, 403, 429, 500, 503] as const;

/**
 * A JSON success schema tied to the route's response builder: the builder's return type must be assignable
 * to the schema's input type, so changing a builder's shape without its schema (or the reverse) fails tsc.
 */
function ok<S extends z.ZodType>(schema: S, _builder?: (...args: never[]) => z.input<S>): S {
  return schema;
}

const op = (method: Operation["method"], path: string, tag: string, summary: string, rest: Omit<Operation, "method" | "path" | "tag" | "summary">): Operation => ({
  method,
  path,
  tag,
  summary,
  ...rest,
});

const A = "Account";
const SESS = "Sessions";
const TF = "Two-factor";
const ORG = "Organizations";
const ADM = "Admin";
const SOC = "Social sign-in";
const META = "Meta";

/** Every route of the gateway, in the order app.ts registers them. */
export const OPERATIONS: readonly Operation[] = [
  op("get", "/ok", META, "Liveness", { success: { 200: s.okSchema } }),
  op("get", "/error", META, "The page error redirects land on", { success: { 200: "html" } }),
  op("get", "/openapi.json", META, "This document", { success: { 200: z.looseObject({ openapi: z.literal("3.1.0") }) } }),

  op("post", "/sign-up/email", A, "Sign up with email and password", { body: signUp.signUpBody, success: { 200: ok(s.signUpSchema, responses.signUpResponse) }, errors: [422] }),
  op("post", "/sign-in/email", A, "Sign in with email and password", {
    body: signIn.signInEmailBody,
    success: { 200: ok(s.signInOrChallengeSchema, responses.signInEmailResponse) },
    errors: [401],
  }),
  op("post", "/sign-in/username", A, "Sign in with username and password", {
    body: signIn.signInUsernameBody,
    success: { 200: ok(s.signInOrChallengeSchema, responses.signInUsernameResponse) },
    errors: [401],
  }),

  op("get", "/get-session", SESS, "The caller's session and user (null when signed out)", {
    query: sessions.getSessionQuery,
    success: { 200: ok(s.sessionWithUserSchema.nullable(), responses.sessionResponse) },
  }),
  op("post", "/get-session", SESS, "The caller's session and user (null when signed out)", {
    query: sessions.getSessionQuery,
    success: { 200: ok(s.sessionWithUserSchema.nullable(), responses.sessionResponse) },
  }),
  op("get", "/list-sessions", SESS, "The caller's sessions", { session: true, success: { 200: z.array(s.sessionSchema) } }),
  op("post", "/revoke-session", SESS, "Revoke one of the caller's sessions", { session: true, body: sessions.revokeSessionBody, success: { 200: s.statusSchema }, errors: [404] }),
  op("post", "/revoke-sessions", SESS, "Revoke all the caller's sessions", { session: true, success: { 200: s.statusSchema } }),
  op("post", "/revoke-other-sessions", SESS, "Revoke the caller's other sessions", { session: true, success: { 200: s.statusSchema } }),
  op("post", "/sign-out", SESS, "Sign out", { success: { 200: s.successSchema } }),

  op("post", "/send-verification-email", A, "Send the email verification link", { body: verification.sendBody, success: { 200: s.statusSchema } }),
  op("get", "/verify-email", A, "Verify an email address (the mailed link)", {
    query: verification.verifyQuery,
    success: { 200: s.verifiedEmailSchema, 302: "redirect" },
    errors: [401],
  }),

  op("post", "/forget-password", A, "Request a password reset link (1.1 client)", {
    body: passwordReset.requestBody,
    success: { 200: ok(s.passwordResetRequestedSchema, responses.passwordResetRequestedResponse) },
  }),
  op("post", "/request-password-reset", A, "Request a password reset link", {
    body: passwordReset.requestBody,
    success: { 200: ok(s.passwordResetRequestedSchema, responses.passwordResetRequestedResponse) },
  }),
  op("get", "/reset-password/:token", A, "The mailed reset link: redirects to the callback URL with the token", {
    query: passwordReset.landingQuery,
    success: { 302: "redirect" },
  }),
  op("post", "/reset-password", A, "Set a new password with a reset token", { body: passwordReset.resetBody, query: passwordReset.resetQuery, success: { 200: s.statusSchema } }),

  op("post", "/update-user", A, "Update the caller's profile", { session: true, body: account.updateUserBody, success: { 200: s.statusSchema }, errors: [422] }),
  op("post", "/change-email", A, "Change the caller's email address", { session: true, body: account.changeEmailBody, success: { 200: s.statusSchema } }),
  op("post", "/change-password", A, "Change the caller's password", { session: true, body: account.changePasswordBody, success: { 200: s.tokenAndUserSchema } }),
  op("post", "/delete-user", A, "Delete the caller's account (or mail the confirmation link)", {
    session: true,
    body: account.deleteUserBody,
    success: { 200: s.deleteUserSchema },
  }),
  op("get", "/delete-user/callback", A, "Confirm an account deletion (the mailed link)", {
    session: true,
    query: account.deleteCallbackQuery,
    success: { 200: s.deleteUserSchema, 302: "redirect" },
    errors: [404],
  }),
  op("get", "/list-accounts", A, "The caller's linked accounts", { session: true, success: { 200: ok(s.accountListSchema, responses.accountListResponse) } }),
  op("post", "/unlink-account", A, "Unlink one of the caller's accounts", { session: true, body: account.unlinkBody, success: { 200: s.statusSchema } }),

  op("post", "/get-access-token", A, "A linked provider account's access token", {
    session: true,
    body: providerAccounts.selection,
    success: { 200: s.accessTokenSchema },
    errors: [404],
  }),
  op("post", "/refresh-token", A, "Refresh a linked provider account's tokens", {
    session: true,
    body: providerAccounts.selection,
    success: { 200: s.refreshedTokenSchema },
    errors: [404],
  }),
  op("get", "/account-info", A, "What the provider says about a linked account", {
    session: true,
    query: providerAccounts.selection,
    success: { 200: s.accountInfoSchema },
    errors: [404],
  }),

  op("post", "/update-session", SESS, "The caller's session (no additional session fields are configurable)", {
    session: true,
    success: { 200: ok(s.updateSessionSchema, responses.updateSessionResponse) },
  }),
  op("post", "/is-username-available", A, "Whether a username is free", {
    body: currentClient.usernameBody,
    success: { 200: ok(s.usernameAvailabilitySchema, responses.usernameAvailabilityResponse) },
  }),

  op("post", "/two-factor/enable", TF, "Start TOTP enrolment", {
    session: true,
    body: twoFactor.enableBody,
    success: { 200: ok(s.enableTwoFactorSchema, responses.enableTwoFactorResponse) },
  }),
  op("post", "/two-factor/disable", TF, "Turn two-factor off", { session: true, body: twoFactor.passwordBody, success: { 200: ok(s.statusSchema, responses.statusResponse) } }),
  op("post", "/two-factor/get-totp-uri", TF, "The TOTP URI", { session: true, body: twoFactor.passwordBody, success: { 200: ok(s.totpUriSchema, responses.totpUriResponse) } }),
  op("post", "/two-factor/generate-backup-codes", TF, "New backup codes", {
    session: true,
    body: twoFactor.passwordBody,
    success: { 200: ok(s.backupCodesSchema, responses.backupCodesResponse) },
  }),
  op("post", "/two-factor/send-otp", TF, "Mail a one-time code for the pending sign-in", { body: twoFactor.sendOtpBody, success: { 200: s.statusSchema }, errors: [401] }),
  ...(["/two-factor/verify-totp", "/two-factor/verify-otp", "/two-factor/verify-backup-code"] as const).map((path) =>
    op("post", path, TF, "Check a second-factor code (completes a pending sign-in)", {
      body: twoFactor.verifyBody,
      success: { 200: ok(s.twoFactorVerifiedSchema, responses.twoFactorVerifiedResponse) },
      errors: [401],
    }),
  ),
  op("get", "/two-factor/list-trusted-devices", TF, "The caller's trusted devices", {
    session: true,
    success: { 200: ok(s.trustedDevicesSchema, responses.trustedDevicesResponse) },
  }),
  op("post", "/two-factor/revoke-trusted-device", TF, "Forget a trusted device", { session: true, body: twoFactor.revokeBody, success: { 200: s.statusSchema }, errors: [404] }),

  op("post", "/organization/create", ORG, "Create an organization", {
    session: true,
    body: organization.createBody,
    success: { 200: ok(s.fullOrganizationSchema, responses.fullOrganizationResponse) },
  }),
  op("post", "/organization/update", ORG, "Update an organization", {
    session: true,
    body: organization.updateBody,
    success: { 200: ok(s.organizationSchema, responses.organizationResponse) },
  }),
  op("post", "/organization/delete", ORG, "Delete an organization", {
    session: true,
    body: organization.organizationIdBody,
    success: { 200: ok(s.organizationSchema, responses.organizationResponse) },
  }),
  op("get", "/organization/get-full-organization", ORG, "An organization with its members and pending invitations", {
    session: true,
    query: organization.fullOrganizationQuery,
    success: { 200: s.fullOrganizationSchema.nullable() },
  }),
  op("get", "/organization/get-organization", ORG, "An organization", { session: true, query: organization.targetQuery, success: { 200: s.organizationSchema.nullable() } }),
  op("post", "/organization/set-active", ORG, "Set the session's active organization", {
    session: true,
    body: organization.setActiveBody,
    success: { 200: s.fullOrganizationSchema.nullable() },
  }),
  op("get", "/organization/list", ORG, "The caller's organizations", { session: true, success: { 200: ok(z.array(s.organizationSchema), responses.organizationListResponse) } }),
  op("get", "/organization/list-members", ORG, "An organization's members", {
    session: true,
    query: organization.listMembersQuery,
    success: { 200: ok(s.memberListSchema, responses.memberListResponse) },
  }),
  op("get", "/organization/get-active-member", ORG, "The caller's membership", {
    session: true,
    query: organization.targetQuery,
    success: { 200: ok(s.memberSchema, responses.memberResponse) },
  }),
  op("get", "/organization/get-active-member-role", ORG, "The caller's role", {
    session: true,
    query: organization.activeRoleQuery,
    success: { 200: ok(s.memberRoleSchema, responses.memberRoleResponse) },
  }),
  op("post", "/organization/invite-member", ORG, "Invite someone by email", {
    session: true,
    body: organization.inviteBody,
    success: { 200: ok(s.invitationSchema, responses.invitationResponse) },
  }),
  op("get", "/organization/get-invitation", ORG, "An invitation addressed to the caller", {
    session: true,
    query: organization.invitationQuery,
    success: { 200: ok(s.invitationDetailSchema, responses.invitationDetailResponse) },
  }),
  op("get", "/organization/list-invitations", ORG, "An organization's invitations", {
    session: true,
    query: organization.organizationQuery,
    success: { 200: ok(z.array(s.invitationSchema), responses.invitationListResponse) },
  }),
  op("get", "/organization/list-user-invitations", ORG, "Invitations addressed to the caller (none while the address is unverified)", {
    session: true,
    success: { 200: ok(z.array(s.userInvitationSchema), responses.userInvitationListResponse) },
  }),
  op("post", "/organization/accept-invitation", ORG, "Accept an invitation", {
    session: true,
    body: organization.invitationIdBody,
    success: { 200: ok(s.acceptedInvitationSchema, responses.acceptedInvitationResponse) },
  }),
  op("post", "/organization/reject-invitation", ORG, "Reject an invitation", {
    session: true,
    body: organization.invitationIdBody,
    success: { 200: ok(s.rejectedInvitationSchema, responses.rejectedInvitationResponse) },
  }),
  op("post", "/organization/cancel-invitation", ORG, "Cancel an invitation", {
    session: true,
    body: organization.invitationIdBody,
    success: { 200: ok(s.invitationSchema, responses.invitationResponse) },
  }),
  op("post", "/organization/remove-member", ORG, "Remove a member", {
    session: true,
    body: organization.removeBody,
    success: { 200: ok(s.removedMemberSchema, responses.removedMemberResponse) },
  }),
  op("post", "/organization/update-member-role", ORG, "Change a member's role", {
    session: true,
    body: organization.updateRoleBody,
    success: { 200: ok(s.memberSchema, responses.memberResponse) },
  }),
  op("post", "/organization/leave", ORG, "Leave an organization", {
    session: true,
    body: organization.organizationIdBody,
    success: { 200: ok(s.memberSchema, responses.memberResponse) },
  }),
  op("post", "/organization/check-slug", ORG, "Whether a slug is free", {
    session: true,
    body: organization.slugBody,
    success: { 200: ok(s.statusSchema, responses.slugAvailableResponse) },
  }),
  op("post", "/organization/has-permission", ORG, "Whether the caller's role allows actions", {
    session: true,
    body: organization.permissionBody,
    success: { 200: ok(s.permissionSchema, responses.permissionResponse) },
  }),

  op("get", "/admin/list-users", ADM, "Search and page users", {
    session: true,
    query: admin.listUsersQuery,
    success: { 200: ok(s.listUsersSchema, responses.listUsersResponse) },
  }),
  op("get", "/admin/get-user", ADM, "One user", { session: true, query: admin.getUserQuery, success: { 200: s.userSchema }, errors: [404] }),
  op("post", "/admin/create-user", ADM, "Create a user", {
    session: true,
    body: admin.createUserBody,
    success: { 200: ok(s.adminUserSchema, responses.adminUserResponse) },
    errors: [422],
  }),
  op("post", "/admin/update-user", ADM, "Update a user's name, image, role or configured fields (the current client)", {
    session: true,
    body: admin.updateUserBody,
    success: { 200: s.userSchema },
    errors: [404],
  }),
  op("post", "/admin/set-role", ADM, "Set a user's role", {
    session: true,
    body: admin.setRoleBody,
    success: { 200: ok(s.adminUserSchema, responses.adminUserResponse) },
    errors: [404],
  }),
  op("post", "/admin/set-user-password", ADM, "Set a user's password", {
    session: true,
    body: admin.setUserPasswordBody,
    success: { 200: ok(s.statusSchema, responses.setUserPasswordResponse) },
    errors: [404],
  }),
  op("post", "/admin/list-user-sessions", ADM, "A user's sessions", {
    session: true,
    body: admin.userIdBody,
    success: { 200: ok(s.listUserSessionsSchema, responses.listUserSessionsResponse) },
    errors: [404],
  }),
  op("post", "/admin/ban-user", ADM, "Ban a user", { session: true, body: admin.banUserBody, success: { 200: ok(s.adminUserSchema, responses.adminUserResponse) }, errors: [404] }),
  op("post", "/admin/unban-user", ADM, "Lift a ban", {
    session: true,
    body: admin.userIdBody,
    success: { 200: ok(s.adminUserSchema, responses.adminUserResponse) },
    errors: [404],
  }),
  op("post", "/admin/impersonate-user", ADM, "Act as a user", {
    session: true,
    body: admin.userIdBody,
    success: { 200: ok(s.sessionWithUserSchema, responses.impersonationResponse) },
    errors: [404],
  }),
  op("post", "/admin/stop-impersonating", ADM, "Back to the admin's own session", {
    session: true,
    success: { 200: ok(s.sessionWithUserSchema, responses.impersonationResponse) },
  }),
  op("post", "/admin/revoke-user-session", ADM, "Revoke one session of a user", {
    session: true,
    body: admin.revokeUserSessionBody,
    success: { 200: ok(s.successSchema, responses.adminSuccessResponse) },
    errors: [404],
  }),
  op("post", "/admin/revoke-user-sessions", ADM, "Revoke all sessions of a user", {
    session: true,
    body: admin.userIdBody,
    success: { 200: ok(s.successSchema, responses.adminSuccessResponse) },
    errors: [404],
  }),
  op("post", "/admin/remove-user", ADM, "Delete a user", {
    session: true,
    body: admin.userIdBody,
    success: { 200: ok(s.successSchema, responses.adminSuccessResponse) },
    errors: [404],
  }),
  op("post", "/admin/has-permission", ADM, "Whether the caller's role allows actions", {
    session: true,
    body: admin.hasPermissionBody,
    success: { 200: ok(s.permissionSchema, responses.permissionResponse) },
  }),
  op("get", "/admin/list-audit-events", ADM, "The audit log", { session: true, query: admin.auditQuery, success: { 200: s.auditEventsSchema } }),

  op("get", "/social-providers", SOC, "The configured social providers (ours: the sign-in page shows only these)", {
    success: { 200: ok(z.object({ providers: z.array(z.string()) }).strict(), responses.socialProvidersResponse) },
  }),
  op("post", "/sign-in/social", SOC, "Start a social sign-in (or sign in with a provider's id token)", {
    body: social.signInSocialBody,
    success: { 200: ok(s.socialSignInSchema, responses.socialTokenResponse) },
    errors: [401, 404],
  }),
  op("post", "/link-social", SOC, "Start linking a provider account", {
    session: true,
    body: social.linkSocialBody,
    success: { 200: ok(s.socialRedirectSchema, responses.socialRedirectResponse) },
    errors: [404],
  }),
  op("get", "/callback/:id", SOC, "The provider's redirect back (every outcome is a redirect)", { query: social.callbackFields, success: { 302: "redirect" } }),
  op("post", "/callback/:id", SOC, "A provider's form POST back (Apple): redirected to the GET", { success: { 302: "redirect" } }),

  op("get", "/dev/outbox", "Development", "The development mailbox (AUTH_DEV_MAILBOX only)", { devOnly: true, query: devMailbox.outboxQuery, success: { 200: s.outboxSchema } }),
];

/** A declared route (defineRoute) as an operation of the document. */
function operationOf(spec: RouteSpec): Operation {
  const success: Operation["success"] = {};
  if (spec.response) success[200] = spec.response;
  if (spec.html) success[200] = "html";
  if (spec.redirect) success[302] = "redirect";
  return {
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    body: spec.body,
    query: spec.query ?? spec.queryCheckedByRoute,
    success,
    errors: (spec.errors ?? []).map((code) => ERRORS[code].http),
    codes: spec.errors,
    session: spec.session !== undefined,
    devOnly: spec.devOnly,
  };
}

/** The document's operations: the declared routes, then the registry entries of routes not yet declared with defineRoute. */
function operationsOf(routes: readonly RouteSpec[]): Operation[] {
  const declared = routes.map(operationOf);
  const isDeclared = (o: Operation) => declared.some((d) => d.method === o.method && d.path === o.path);
  return [...declared, ...OPERATIONS.filter((o) => !isDeclared(o))];
}

/** A route's declared catalogue errors of one status, as the description of that error response. */
function errorDescription(operation: Operation, status: number): string | undefined {
  const codes = (operation.codes ?? []).filter((code) => ERRORS[code].http === status);
  return codes.length ? `Error (${status}): ${codes.map((code) => `${code} (${ERRORS[code].message})`).join(", ")}` : undefined;
}

/** The statuses an operation may answer with an error body. */
export function errorStatuses(operation: Operation): number[] {
  return [...new Set([...COMMON_ERRORS, ...(operation.session ? [401] : []), ...(operation.errors ?? [])])].sort();
}

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of what a client sends (io: input) or receives (io: output). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

const operationId = (o: Operation) => `${o.method}${o.path.replace(/[:/{}.-]+(\w?)/g, (_m, c: string) => c.toUpperCase())}`;

function queryParameters(query: z.ZodType): JsonSchema[] {
  const schema = jsonSchema(query, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** The headers telling a refused client when to come back, by status (rate-limit.ts, errors.ts). */
const RETRY_HEADERS: Record<number, JsonSchema> = {
  429: { "X-Retry-After": { description: "Seconds until the rate-limit window lets this client in again", schema: { type: "integer", minimum: 1 } } },
  503: {
    "Retry-After": {
      description: "Seconds after which a retry is expected to be let in (password hashing busy, a database out of reach, a service unreachable)",
      schema: { type: "integer", minimum: 1 },
    },
  },
};

const REDIRECT = { description: "Redirect to the callback URL (errors as ?error=code)", headers: { Location: { schema: { type: "string" } } } };

function successResponses(operation: Operation): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, success] of Object.entries(operation.success)) {
    if (success === "redirect") out[status] = REDIRECT;
    else if (success === "html") out[status] = { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } };
    else out[status] = { description: "Success", content: { "application/json": { schema: jsonSchema(success, "output") } } };
  }
  return out;
}

export interface DocumentOptions {
  /** The app's declared routes (defineRoute), in the order they are mounted. */
  routes: readonly RouteSpec[];
  /** The API's absolute URL (the request's base URL: AUTH_BASE_URL, or what the request names). */
  baseUrl: string;
  /** Whether the development mailbox is served. */
  devMailbox: boolean;
  /** The session cookie's name (AUTH_COOKIE_PREFIX). */
  sessionCookieName: string;
}

/** The OpenAPI 3.1 document of the routes served with these options. */
export function openApiDocument(options: DocumentOptions): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorBodies = new Map<number, JsonSchema>();
  const errorResponse = (status: number) => {
    if (!errorBodies.has(status)) errorBodies.set(status, jsonSchema(s.errorSchema(status), "output"));
    return { $ref: `#/components/responses/Error${status}` };
  };
  const operations = operationsOf(options.routes);
  for (const operation of operations) {
    if (operation.devOnly && !options.devMailbox) continue;
    const parameters = [
      ...[...operation.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...(operation.query ? queryParameters(operation.query) : []),
    ];
    const responses = successResponses(operation);
    for (const status of errorStatuses(operation)) {
      const description = errorDescription(operation, status);
      // A Reference Object's description overrides the shared one: the codes this route answers with that status.
      responses[String(status)] = { ...errorResponse(status), ...(description ? { description } : {}) };
    }
    const pathItem = paths[openApiPath(operation.path)] ?? {};
    paths[openApiPath(operation.path)] = pathItem;
    pathItem[operation.method] = {
      operationId: operationId(operation),
      tags: [operation.tag],
      summary: operation.summary,
      ...(operation.codes?.length ? { "x-error-codes": [...operation.codes] } : {}),
      ...(operation.session ? { security: [{ sessionCookie: [] }, { bearer: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(operation.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(operation.body, "input") } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "auth-platform HTTP API",
      version: "1",
      description: "Email and password, sessions, two-factor, organizations, admin and social sign-in. Errors answer { code, message } with the catalogue's codes.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: options.baseUrl }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: options.sessionCookieName },
        bearer: { type: "http", scheme: "bearer" },
      },
      responses: Object.fromEntries(
        [...errorBodies]
          .sort(([a], [b]) => a - b)
          .map(([status, schema]) => [
            `Error${status}`,
            { description: `Error (${status})`, ...(RETRY_HEADERS[status] ? { headers: RETRY_HEADERS[status] } : {}), content: { "application/json": { schema } } },
          ]),
      ),
    },
  };
}
