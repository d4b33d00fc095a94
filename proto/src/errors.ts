/**
 * The one error catalogue. Each entry: the gRPC status a service answers, the HTTP status the gateway
 * answers, and the exact message (docs/http-api.md#errors). Keys are the stable codes the better-auth client shows as
 * `error.code`, each derived from its message by codeOf (errors.test.ts checks every entry): deprecate,
 * never rename. This file imports nothing from grpc-js so any package can use it.
 */

/** gRPC status codes used by the catalogue (numeric values of grpc.status). */
export const GrpcStatus = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface ErrorEntry {
  status: number;
  http: number;
  message: string;
}

const S = GrpcStatus;
const e = (status: number, http: number, message: string): ErrorEntry => ({ status, http, message });

export const ERRORS = {
  // Account
  USER_NOT_FOUND: e(S.NOT_FOUND, 404, "User not found"),
  FAILED_TO_CREATE_USER: e(S.INTERNAL, 500, "Failed to create user"),
  FAILED_TO_CREATE_SESSION: e(S.INTERNAL, 500, "Failed to create session"),
  FAILED_TO_UPDATE_USER: e(S.INTERNAL, 500, "Failed to update user"),
  FAILED_TO_GET_SESSION: e(S.INTERNAL, 500, "Failed to get session"),
  INVALID_PASSWORD: e(S.INVALID_ARGUMENT, 400, "Invalid password"),
  INVALID_EMAIL: e(S.INVALID_ARGUMENT, 400, "Invalid email"),
  INVALID_EMAIL_OR_PASSWORD: e(S.UNAUTHENTICATED, 401, "Invalid email or password"),
  SOCIAL_ACCOUNT_ALREADY_LINKED: e(S.ALREADY_EXISTS, 400, "Social account already linked"),
  PROVIDER_NOT_FOUND: e(S.NOT_FOUND, 404, "Provider not found"),
  INVALID_TOKEN: e(S.INVALID_ARGUMENT, 400, "invalid token"),
  TOKEN_EXPIRED: e(S.INVALID_ARGUMENT, 400, "Token expired"),
  ID_TOKEN_NOT_SUPPORTED: e(S.INVALID_ARGUMENT, 400, "id_token not supported"),
  // The provider's discovery document could not be read or names no authorization or token endpoint.
  INVALID_OAUTH_CONFIGURATION: e(S.FAILED_PRECONDITION, 503, "Invalid OAuth configuration"),
  FAILED_TO_GET_USER_INFO: e(S.INTERNAL, 500, "Failed to get user info"),
  USER_EMAIL_NOT_FOUND: e(S.NOT_FOUND, 400, "User email not found"),
  EMAIL_NOT_VERIFIED: e(S.PERMISSION_DENIED, 403, "Email not verified"),
  PASSWORD_TOO_SHORT: e(S.INVALID_ARGUMENT, 400, "Password too short"),
  PASSWORD_TOO_LONG: e(S.INVALID_ARGUMENT, 400, "Password too long"),
  USER_ALREADY_EXISTS: e(S.ALREADY_EXISTS, 422, "User already exists"),
  EMAIL_CAN_NOT_BE_UPDATED: e(S.INVALID_ARGUMENT, 400, "Email can not be updated"),
  CREDENTIAL_ACCOUNT_NOT_FOUND: e(S.NOT_FOUND, 400, "Credential account not found"),
  SESSION_EXPIRED_RE_AUTHENTICATE_TO_PERFORM_THIS_ACTION: e(S.UNAUTHENTICATED, 401, "Session expired. Re-authenticate to perform this action."),
  YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT: e(S.FAILED_PRECONDITION, 400, "You can't unlink your last account"),
  ACCOUNT_NOT_FOUND: e(S.NOT_FOUND, 400, "Account not found"),
  NO_PASSWORD_CREDENTIAL_FOUND: e(S.NOT_FOUND, 400, "No password credential found"),
  EMAIL_AND_PASSWORD_IS_NOT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Email and password is not enabled"),
  VERIFICATION_EMAIL_ISNT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Verification email isn't enabled"),
  RESET_PASSWORD_ISNT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Reset password isn't enabled"),
  CHANGE_EMAIL_IS_DISABLED: e(S.FAILED_PRECONDITION, 400, "Change email is disabled"),
  EMAIL_IS_THE_SAME: e(S.INVALID_ARGUMENT, 400, "Email is the same"),
  COULDNT_UPDATE_YOUR_EMAIL: e(S.ALREADY_EXISTS, 400, "Couldn't update your email"),
  USER_ALREADY_HAS_A_PASSWORD: e(S.ALREADY_EXISTS, 400, "user already has a password"),
  SESSION_NOT_FOUND: e(S.NOT_FOUND, 404, "Session not found"),
  SESSION_IS_NOT_FRESH: e(S.PERMISSION_DENIED, 403, "Session is not fresh"),
  NOT_AUTHENTICATED: e(S.UNAUTHENTICATED, 401, "Not authenticated"),
  FAILED_TO_INITIALIZE_DATABASE_ADAPTER: e(S.INTERNAL, 500, "Failed to initialize database adapter"),
  VALUE_MUST_BE_AN_ARRAY: e(S.INVALID_ARGUMENT, 400, "Value must be an array"),
  KEYS_NOT_FOUND: e(S.INTERNAL, 500, "Keys not found"),
  CLIENT_ID_AND_SECRET_REQUIRED: e(S.FAILED_PRECONDITION, 500, "CLIENT_ID_AND_SECRET_REQUIRED"),
  CODEVERIFIER_IS_REQUIRED_FOR_GOOGLE: e(S.INVALID_ARGUMENT, 400, "codeVerifier is required for Google"),

  // Organization
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to create a new organization"),
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS: e(S.RESOURCE_EXHAUSTED, 403, "You have reached the maximum number of organizations"),
  ORGANIZATION_ALREADY_EXISTS: e(S.ALREADY_EXISTS, 400, "Organization already exists"),
  ORGANIZATION_NOT_FOUND: e(S.NOT_FOUND, 400, "Organization not found"),
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "User is not a member of the organization"),
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to update this organization"),
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to delete this organization"),
  NO_ACTIVE_ORGANIZATION: e(S.FAILED_PRECONDITION, 400, "No active organization"),
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: e(S.ALREADY_EXISTS, 400, "User is already a member of this organization"),
  MEMBER_NOT_FOUND: e(S.NOT_FOUND, 400, "Member not found"),
  ROLE_NOT_FOUND: e(S.NOT_FOUND, 400, "Role not found"),
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: e(S.FAILED_PRECONDITION, 400, "You cannot leave the organization as the only owner"),
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: e(S.PERMISSION_DENIED, 403, "You are not allowed to delete this member"),
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to invite users to this organization"),
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: e(S.ALREADY_EXISTS, 400, "User is already invited to this organization"),
  INVITATION_NOT_FOUND: e(S.NOT_FOUND, 400, "Invitation not found"),
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: e(S.PERMISSION_DENIED, 403, "You are not the recipient of the invitation"),
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to cancel this invitation"),
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: e(S.FAILED_PRECONDITION, 400, "Inviter is no longer a member of the organization"),
  // better-auth 1.7's code and text (its invitationLimit, 100 by default).
  INVITATION_LIMIT_REACHED: e(S.PERMISSION_DENIED, 403, "Invitation limit reached"),
  // Ours: the inviter was demoted since and may no longer give the invited role (services/organization invitations.ts).
  INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE: e(S.FAILED_PRECONDITION, 400, "Inviter may no longer give this role"),
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: e(S.PERMISSION_DENIED, 403, "you are not allowed to invite user with this role"),
  // The refusal of the member update permission: better-auth's own text.
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: e(S.PERMISSION_DENIED, 403, "You are not allowed to update this member"),
  // Teams (better-auth 1.7's codes and texts; docs/organizations.md#teams).
  TEAM_NOT_FOUND: e(S.NOT_FOUND, 400, "Team not found"),
  TEAM_ALREADY_EXISTS: e(S.ALREADY_EXISTS, 400, "Team already exists"),
  YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not allowed to create teams in this organization"),
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: e(S.PERMISSION_DENIED, 403, "You are not allowed to update this team"),
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: e(S.PERMISSION_DENIED, 403, "You are not allowed to delete this team"),
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS: e(S.RESOURCE_EXHAUSTED, 403, "You have reached the maximum number of teams"),
  TEAM_MEMBER_LIMIT_REACHED: e(S.RESOURCE_EXHAUSTED, 403, "Team member limit reached"),
  USER_IS_NOT_A_MEMBER_OF_THE_TEAM: e(S.PERMISSION_DENIED, 403, "User is not a member of the team"),
  YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM: e(S.PERMISSION_DENIED, 403, "You are not allowed to list the members of this team"),
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER: e(S.PERMISSION_DENIED, 403, "You are not allowed to create a new member"),
  YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER: e(S.PERMISSION_DENIED, 403, "You are not allowed to remove a team member"),
  YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM: e(S.FAILED_PRECONDITION, 400, "You do not have an active team"),
  // Custom roles: better-auth 1.7's dynamic access control codes and texts (docs/adr/0066-custom-organization-roles.md).
  YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE: e(S.FAILED_PRECONDITION, 400, "You must be in an organization to create a role"),
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not a member of this organization"),
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE: e(S.PERMISSION_DENIED, 403, "You are not allowed to create a role"),
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE: e(S.PERMISSION_DENIED, 403, "You are not allowed to update a role"),
  YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE: e(S.PERMISSION_DENIED, 403, "You are not allowed to delete a role"),
  YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE: e(S.PERMISSION_DENIED, 403, "You are not allowed to read a role"),
  YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE: e(S.PERMISSION_DENIED, 403, "You are not allowed to list a role"),
  TOO_MANY_ROLES: e(S.RESOURCE_EXHAUSTED, 400, "This organization has too many roles"),
  INVALID_RESOURCE: e(S.INVALID_ARGUMENT, 400, "The provided permission includes an invalid resource"),
  ROLE_NAME_IS_ALREADY_TAKEN: e(S.ALREADY_EXISTS, 400, "That role name is already taken"),
  CANNOT_DELETE_A_PRE_DEFINED_ROLE: e(S.FAILED_PRECONDITION, 400, "Cannot delete a pre-defined role"),
  ROLE_IS_ASSIGNED_TO_MEMBERS: e(S.FAILED_PRECONDITION, 400, "Cannot delete a role that is assigned to members. Please reassign the members to a different role first"),

  // Admin
  YOU_CANNOT_BAN_YOURSELF: e(S.FAILED_PRECONDITION, 400, "You cannot ban yourself"),
  ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT: e(S.PERMISSION_DENIED, 403, "Only admins can access this endpoint"),
  YOU_ARE_NOT_IMPERSONATING_ANYONE: e(S.FAILED_PRECONDITION, 400, "You are not impersonating anyone"),
  FAILED_TO_FIND_ADMIN_SESSION: e(S.NOT_FOUND, 400, "Failed to find admin session"),
  // The current better-auth client's codes for the admin-on-admin and self-removal refusals.
  YOU_CANNOT_IMPERSONATE_ADMINS: e(S.PERMISSION_DENIED, 403, "You cannot impersonate admins"),
  YOU_CANNOT_REMOVE_YOURSELF: e(S.FAILED_PRECONDITION, 400, "You cannot remove yourself"),
  // Ours: an admin taking their own admin role away while no other admin could sign in (services/admin users.ts).
  YOU_CANNOT_REMOVE_THE_LAST_ADMIN: e(S.FAILED_PRECONDITION, 400, "You cannot remove the last admin"),
  // Ours: a banned user gets no session by any path (docs/adr/0037-no-session-for-a-banned-user.md), an admin's impersonation included.
  YOU_CANNOT_IMPERSONATE_BANNED_USERS: e(S.PERMISSION_DENIED, 403, "You cannot impersonate banned users"),
  // better-auth 1.7's code and text for a banned user's proven sign-in (docs/adr/0052-a-banned-user-is-told-after-the-proof.md);
  // named apart from its message (CODES_APART_FROM_MESSAGE). The body carries the ban's end, `banExpires`.
  BANNED_USER: e(S.PERMISSION_DENIED, 403, "You have been banned from this application"),
  // Ours: an impersonation session cannot start another, so stop-impersonating always leads back to an admin's own session.
  YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING: e(S.PERMISSION_DENIED, 403, "You cannot impersonate while impersonating"),
  // The current client's code for a role that is not configured (ADMIN_ASSIGNABLE_ROLES); better-auth has no message for it,
  // so this one is ours, worded to keep better-auth 1.7's code.
  YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE: e(S.INVALID_ARGUMENT, 400, "You are not allowed to set non-existent value"),
  // Ours: an impersonation session reads no provider tokens or profile (gateway/src/routes/provider-accounts.ts).
  PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING: e(S.PERMISSION_DENIED, 403, "Provider accounts are not available while impersonating"),
  // Ours: an impersonation session ends no session of the user but itself, nor mints one (the session service's rule).
  YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING: e(S.PERMISSION_DENIED, 403, "You cannot revoke sessions while impersonating"),
  // The current client's admin update-user with an empty `data`.
  NO_DATA_TO_UPDATE: e(S.INVALID_ARGUMENT, 400, "No data to update"),

  // Mail sign-in (docs/http-api/mail-sign-in.md): better-auth 1.7's email-OTP codes and texts.
  OTP_EXPIRED: e(S.INVALID_ARGUMENT, 400, "OTP expired"),
  INVALID_OTP: e(S.INVALID_ARGUMENT, 400, "Invalid OTP"),
  TOO_MANY_ATTEMPTS: e(S.PERMISSION_DENIED, 403, "Too many attempts"),
  // better-auth 1.7's magic-link redirect code for a new address while sign-up by link is off.
  NEW_USER_SIGNUP_DISABLED: e(S.FAILED_PRECONDITION, 400, "new user signup disabled"),
  // Ours: the way is switched off (IDENTITY_MAGIC_LINK_ENABLED, IDENTITY_EMAIL_OTP_ENABLED).
  MAGIC_LINK_SIGN_IN_ISNT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Magic link sign-in isn't enabled"),
  EMAIL_OTP_ISNT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Email OTP isn't enabled"),

  // Username
  INVALID_USERNAME_OR_PASSWORD: e(S.UNAUTHENTICATED, 401, "invalid username or password"),
  USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER: e(S.ALREADY_EXISTS, 422, "username is already taken. please try another."),

  // Two-factor
  INVALID_TWO_FACTOR_COOKIE: e(S.UNAUTHENTICATED, 401, "invalid two factor cookie"),
  INVALID_TWO_FACTOR_AUTHENTICATION: e(S.UNAUTHENTICATED, 401, "invalid two factor authentication"),
  // The better-auth twoFactorClient's own messages for a two-factor call made in the wrong state.
  TOTP_NOT_ENABLED: e(S.FAILED_PRECONDITION, 400, "TOTP not enabled"),
  TOTP_IS_ALREADY_ENABLED: e(S.FAILED_PRECONDITION, 400, "TOTP is already enabled"),
  TWO_FACTOR_ISNT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Two factor isn't enabled"),
  BACKUP_CODES_ARENT_ENABLED: e(S.FAILED_PRECONDITION, 400, "Backup codes aren't enabled"),

  // Passkeys: better-auth 1.7's passkey plugin codes and texts (docs/http-api/passkeys.md).
  CHALLENGE_NOT_FOUND: e(S.INVALID_ARGUMENT, 400, "Challenge not found"),
  YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY: e(S.PERMISSION_DENIED, 401, "You are not allowed to register this passkey"),
  FAILED_TO_VERIFY_REGISTRATION: e(S.INVALID_ARGUMENT, 400, "Failed to verify registration"),
  PASSKEY_NOT_FOUND: e(S.NOT_FOUND, 404, "Passkey not found"),
  AUTHENTICATION_FAILED: e(S.UNAUTHENTICATED, 401, "Authentication failed"),
  PREVIOUSLY_REGISTERED: e(S.ALREADY_EXISTS, 400, "Previously registered"),
  // Ours: the last passkey of a user with no password and no linked account (docs/adr/0060-the-last-passkey.md).
  YOU_CANT_DELETE_YOUR_LAST_WAY_TO_SIGN_IN: e(S.FAILED_PRECONDITION, 400, "You can't delete your last way to sign in"),
  // Ours: an impersonation session adds no passkey (it would outlive the impersonation).
  SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING: e(S.PERMISSION_DENIED, 403, "Sign-in methods cannot be changed while impersonating"),

  // Single sign-on per organization (docs/http-api/sso.md): better-auth 1.7's sso plugin texts where it has one.
  SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS: e(S.ALREADY_EXISTS, 409, "SSO provider with this providerId already exists"),
  // Ours: the domain of another organization's provider (one domain routes to one provider).
  THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER: e(S.ALREADY_EXISTS, 409, "This domain is already used by another SSO provider"),
  // better-auth's text; our rule is the organization roles in SSO_MANAGER_ROLES (docs/adr/0067-the-sso-service.md).
  YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS: e(S.PERMISSION_DENIED, 403, "You must be an organization owner or admin to register SSO providers"),
  // The issuer's discovery document could not be read, or names other endpoints than an OpenID provider needs.
  INVALID_OIDC_CONFIGURATION: e(S.INVALID_ARGUMENT, 400, "Invalid OIDC configuration"),
  PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED: e(S.FAILED_PRECONDITION, 400, "Provider domain has not been verified"),
  NO_FIELDS_PROVIDED_FOR_UPDATE: e(S.INVALID_ARGUMENT, 400, "No fields provided for update"),

  // Verified domains (docs/sso.md#verified-domains, docs/adr/0071-verified-domains.md). The first three are
  // better-auth 1.7's sso plugin codes (CODES_APART_FROM_MESSAGE), the others ours.
  DOMAIN_VERIFIED: e(S.ALREADY_EXISTS, 409, "Domain has already been verified"),
  NO_PENDING_VERIFICATION: e(S.NOT_FOUND, 404, "No pending domain verification exists"),
  // fields.reason: absent (no TXT record at the name), mismatch (none holds the value), unavailable (DNS failed); fields.domain:
  // the domain looked up. Logged by the gateway as a warning, not an error (docs/adr/0073-domains-screen-and-its-guards.md).
  DOMAIN_VERIFICATION_FAILED: e(S.FAILED_PRECONDITION, 502, "Unable to verify domain ownership. Try again later"),
  INVALID_DOMAIN: e(S.INVALID_ARGUMENT, 400, "Invalid domain"),
  DOMAIN_IS_A_PUBLIC_SUFFIX: e(S.INVALID_ARGUMENT, 400, "Domain is a public suffix"),
  DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION: e(S.ALREADY_EXISTS, 409, "Domain is verified by another organization"),
  DOMAIN_NOT_FOUND: e(S.NOT_FOUND, 404, "Domain not found"),
  // A non-member, a member who is no owner or admin, and an organization that does not exist alike.
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS: e(S.PERMISSION_DENIED, 403, "You are not allowed to manage this organization's domains"),

  // API keys (docs/http-api/api-keys.md): @better-auth/api-key 1.7's codes and texts.
  KEY_NOT_FOUND: e(S.NOT_FOUND, 404, "API Key not found"),
  INVALID_API_KEY: e(S.UNAUTHENTICATED, 401, "Invalid API key."),
  RATE_LIMIT_EXCEEDED: e(S.RESOURCE_EXHAUSTED, 429, "Rate limit exceeded."),
  NO_VALUES_TO_UPDATE: e(S.INVALID_ARGUMENT, 400, "No values to update."),
  INVALID_NAME_LENGTH: e(S.INVALID_ARGUMENT, 400, "The name length is either too large or too small."),
  INVALID_PREFIX_LENGTH: e(S.INVALID_ARGUMENT, 400, "The prefix length is either too large or too small."),
  INVALID_METADATA_TYPE: e(S.INVALID_ARGUMENT, 400, "metadata must be an object or undefined"),
  EXPIRES_IN_IS_TOO_SMALL: e(S.INVALID_ARGUMENT, 400, "The expiresIn is smaller than the predefined minimum value."),
  EXPIRES_IN_IS_TOO_LARGE: e(S.INVALID_ARGUMENT, 400, "The expiresIn is larger than the predefined maximum value."),
  USER_NOT_MEMBER_OF_ORGANIZATION: e(S.PERMISSION_DENIED, 403, "You are not a member of the organization that owns this API key."),
  INSUFFICIENT_API_KEY_PERMISSIONS: e(S.PERMISSION_DENIED, 403, "You do not have permission to perform this action on organization API keys."),
  // Ours: a key's permissions name a resource or action outside the platform's list (contract/src/permissions.ts).
  INVALID_API_KEY_PERMISSIONS: e(S.INVALID_ARGUMENT, 400, "Invalid API key permissions"),

  // HTTP concerns the gateway answers itself (docs/http-api.md#errors).
  UNAUTHORIZED: e(S.UNAUTHENTICATED, 401, "Unauthorized"),
  INVALID_ORIGIN: e(S.PERMISSION_DENIED, 403, "Invalid origin"),
  INVALID_CALLBACKURL: e(S.PERMISSION_DENIED, 403, "Invalid callbackURL"),
  INVALID_REDIRECTURL: e(S.PERMISSION_DENIED, 403, "Invalid redirectURL"),
  INVALID_ERRORCALLBACKURL: e(S.PERMISSION_DENIED, 403, "Invalid errorCallbackURL"),
  INVALID_NEWUSERCALLBACKURL: e(S.PERMISSION_DENIED, 403, "Invalid newUserCallbackURL"),
  TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER: e(S.RESOURCE_EXHAUSTED, 429, "Too many requests. Please try again later."),
  VALIDATION_ERROR: e(S.INVALID_ARGUMENT, 400, "Validation error"),
  REQUEST_BODY_TOO_LARGE: e(S.INVALID_ARGUMENT, 400, "Request body too large"),
  NOT_FOUND: e(S.NOT_FOUND, 404, "Not found"),
  SERVICE_UNAVAILABLE: e(S.UNAVAILABLE, 503, "Service unavailable"),
  INTERNAL_SERVER_ERROR: e(S.INTERNAL, 500, "Internal server error"),

  // Social sign-in (docs/http-api.md#redirect-error-codes: a callback answers them as ?error=, spaces as underscores).
  ACCOUNT_NOT_LINKED: e(S.FAILED_PRECONDITION, 401, "account not linked"),
  UNABLE_TO_LINK_ACCOUNT: e(S.FAILED_PRECONDITION, 400, "unable to link account"),
  STATE_NOT_FOUND: e(S.INVALID_ARGUMENT, 400, "state not found"),
  NO_CODE: e(S.INVALID_ARGUMENT, 400, "no code"),
  OAUTH_PROVIDER_NOT_FOUND: e(S.NOT_FOUND, 404, "oauth provider not found"),
  PLEASE_RESTART_THE_PROCESS: e(S.INVALID_ARGUMENT, 400, "please restart the process"),
  UNABLE_TO_GET_USER_INFO: e(S.INTERNAL, 400, "unable to get user info"),
  EMAIL_NOT_FOUND: e(S.INVALID_ARGUMENT, 400, "email not found"),
  EMAIL_DOESNT_MATCH: e(S.INVALID_ARGUMENT, 400, "email doesn't match"),
  INVALID_CALLBACK_REQUEST: e(S.INVALID_ARGUMENT, 400, "invalid callback request"),
  UNABLE_TO_CREATE_USER: e(S.INTERNAL, 500, "unable to create user"),
  UNABLE_TO_CREATE_SESSION: e(S.INTERNAL, 500, "unable to create session"),

  // SAML single sign-on (docs/adr/0069-saml-service-provider.md): one public refusal for every reason a
  // response is not accepted, so a forger learns nothing about which check stopped it.
  INVALID_SAML_RESPONSE: e(S.UNAUTHENTICATED, 401, "Invalid SAML response"),
  INVALID_SAML_METADATA: e(S.INVALID_ARGUMENT, 400, "Invalid SAML metadata"),

  // SCIM tokens (docs/http-api/scim.md); the /scim/v2 routes answer SCIM's own error bodies instead.
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS: e(S.PERMISSION_DENIED, 403, "You are not allowed to manage SCIM tokens"),
  TOO_MANY_SCIM_TOKENS: e(S.RESOURCE_EXHAUSTED, 400, "Too many SCIM tokens"),
  SCIM_TOKEN_NOT_FOUND: e(S.NOT_FOUND, 404, "SCIM token not found"),

  // Internal API (docs/internal-api.md): answered to a service's callers only; a browser sees a generic 500.
  CALLER_NOT_IDENTIFIED: e(S.UNAUTHENTICATED, 500, "Caller not identified"),
  CALLER_NOT_ALLOWED: e(S.PERMISSION_DENIED, 500, "Caller not allowed"),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** Codes a better-auth client compares that its message does not give (codeOf): kept as the client names them. */
export const CODES_APART_FROM_MESSAGE: ReadonlySet<ErrorCode> = new Set([
  "BANNED_USER",
  // better-auth 1.7 names these team refusals apart from their texts.
  "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER",
  "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM",
  "TOO_MANY_ROLES",
  "INVALID_RESOURCE",
  "ROLE_NAME_IS_ALREADY_TAKEN",
  "ROLE_IS_ASSIGNED_TO_MEMBERS",
  // better-auth 1.7's sso plugin names these domain refusals apart from their texts.
  "DOMAIN_VERIFIED",
  "NO_PENDING_VERIFICATION",
  "DOMAIN_VERIFICATION_FAILED",
  // @better-auth/api-key 1.7 names these apart from their texts.
  "KEY_NOT_FOUND",
  "INVALID_NAME_LENGTH",
  "INVALID_PREFIX_LENGTH",
  "INVALID_METADATA_TYPE",
  "EXPIRES_IN_IS_TOO_SMALL",
  "EXPIRES_IN_IS_TOO_LARGE",
  "USER_NOT_MEMBER_OF_ORGANIZATION",
  "INSUFFICIENT_API_KEY_PERMISSIONS",
]);

/** Fields an error's JSON body carries beside code and message (BANNED_USER's `banExpires`: an ISO date, or null). */
export type ErrorFields = Readonly<Record<string, string | null>>;

/**
 * A catalogue error. `message` may be replaced for validation errors that name the field. `retryAfterMs`
 * is when the one refusing expects to have room again (identity's hashing queue at capacity): it travels
 * to the caller in the x-retry-after-ms trailer (rpc-server.ts) and reaches the browser as `Retry-After`.
 * `fields` travel in the x-error-fields trailer and end up in the JSON body beside code and message.
 */
export class AuthError extends Error {
  readonly code: ErrorCode;
  readonly http: number;
  readonly grpcStatus: number;
  readonly retryAfterMs?: number;
  readonly fields?: ErrorFields;

  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown; retryAfterMs?: number; fields?: ErrorFields }) {
    super(message ?? ERRORS[code].message, options);
    this.name = "AuthError";
    this.code = code;
    this.http = ERRORS[code].http;
    this.grpcStatus = ERRORS[code].status;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options?.fields !== undefined) this.fields = options.fields;
  }
}

/**
 * Builds an error without capturing a stack. For refusals at capacity only: under a retry storm they come
 * by the hundred a second, each is answered (a 503) and never logged with its stack, and capturing one was
 * about a tenth of the gateway's CPU then.
 */
export function withoutStack<T extends Error>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Codes about the caller of the internal API: a service's own misconfiguration, never a user's fault. */
export const INTERNAL_API_CODES: ReadonlySet<ErrorCode> = new Set(["CALLER_NOT_IDENTIFIED", "CALLER_NOT_ALLOWED"]);

/**
 * A catalogue error another service answered (rpc-client.ts decodes it). It is meant for the user only on
 * the hop from the service that raised it to its direct caller: a service that lets a PeerError escape its
 * handler answers INTERNAL_SERVER_ERROR (or SERVICE_UNAVAILABLE), logged with this error as the cause
 * (rpc-server.ts). The gateway, whose calls carry the user's own input, passes its peers' errors on.
 */
export class PeerError extends AuthError {
  /** The gRPC status the peer's call ended with (DEADLINE_EXCEEDED, UNAVAILABLE, ...). */
  readonly grpcCode: number;

  constructor(code: ErrorCode, grpcCode: number, message: string | undefined, cause: unknown, retryAfterMs?: number, fields?: ErrorFields) {
    super(code, message, { cause, retryAfterMs, fields });
    this.grpcCode = grpcCode;
  }
}

/** Whether a string is a catalogue code. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/**
 * The code a message gives: upper case, apostrophes dropped, every other run of non-alphanumeric characters
 * one underscore (`You can't unlink your last account` -> `YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT`).
 */
export function codeOf(message: string): string {
  return message
    .replace(/['’]/g, "")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/**
 * The redirect error codes (docs/http-api.md#redirect-error-codes) (`?error=` on a callback URL), per redirecting route: which catalogue
 * errors a route answers with a redirect, and the code it puts in the URL. Any other error is answered as JSON.
 */
export const REDIRECT_ERRORS = {
  /** GET /verify-email */
  verifyEmail: {
    TOKEN_EXPIRED: "token_expired",
    INVALID_TOKEN: "invalid_token",
    USER_NOT_FOUND: "user_not_found",
    // An email-change approval opened outside a session of the user it was issued to.
    UNAUTHORIZED: "unauthorized",
  },
  /** GET /delete-user/callback */
  deleteUserCallback: { INVALID_TOKEN: "invalid_token", UNAUTHORIZED: "unauthorized" },
  /** GET /magic-link/verify (better-auth 1.7's codes, as it writes them) */
  magicLinkVerify: {
    INVALID_TOKEN: "INVALID_TOKEN",
    NEW_USER_SIGNUP_DISABLED: "new_user_signup_disabled",
    BANNED_USER: "BANNED_USER",
    FAILED_TO_CREATE_USER: "failed_to_create_user",
    FAILED_TO_CREATE_SESSION: "failed_to_create_session",
  },
  /** GET /reset-password/:token (better-auth keeps this one upper case) */
  resetPasswordLanding: { INVALID_TOKEN: "INVALID_TOKEN" },
  /** GET and POST /callback/:id (social sign-in and /link-social); the oauth service picks the code. */
  socialCallback: {
    STATE_NOT_FOUND: "state_not_found",
    NO_CODE: "no_code",
    OAUTH_PROVIDER_NOT_FOUND: "oauth_provider_not_found",
    PROVIDER_NOT_FOUND: "oauth_provider_not_found",
    PLEASE_RESTART_THE_PROCESS: "please_restart_the_process",
    INVALID_CALLBACK_REQUEST: "invalid_callback_request",
    UNABLE_TO_GET_USER_INFO: "unable_to_get_user_info",
    FAILED_TO_GET_USER_INFO: "unable_to_get_user_info",
    EMAIL_NOT_FOUND: "email_not_found",
    USER_EMAIL_NOT_FOUND: "email_not_found",
    EMAIL_DOESNT_MATCH: "email_doesn't_match",
    ACCOUNT_NOT_LINKED: "account_not_linked",
    UNABLE_TO_LINK_ACCOUNT: "unable_to_link_account",
    SOCIAL_ACCOUNT_ALREADY_LINKED: "unable_to_link_account",
    UNABLE_TO_CREATE_USER: "unable_to_create_user",
    FAILED_TO_CREATE_USER: "unable_to_create_user",
    UNABLE_TO_CREATE_SESSION: "unable_to_create_session",
    FAILED_TO_CREATE_SESSION: "unable_to_create_session",
    INTERNAL_SERVER_ERROR: "internal_server_error",
    // Upper case, as better-auth 1.7 redirects it (its code as is).
    BANNED_USER: "BANNED_USER",
  },
} as const satisfies Record<string, Partial<Record<ErrorCode, string>>>;

/** The redirect code a route answers `error` with, or undefined when the error is not one it redirects. */
export function redirectErrorCode(route: keyof typeof REDIRECT_ERRORS, error: unknown): string | undefined {
  if (!(error instanceof AuthError)) return undefined;
  const table: Partial<Record<ErrorCode, string>> = REDIRECT_ERRORS[route];
  return table[error.code];
}
