/**
 * Sign-in and linking with an identity provider's profile (docs/http-api/social.md#linking-rules). The oauth service
 * has verified the provider's answer; identity decides whose account it is:
 *   - the account with that provider and provider account id: its user (tokens renewed);
 *   - else a user with that email: linked only when that user's own address is verified (never into an
 *     unverified local account: whoever registered it first may not own the address) and the provider is
 *     trusted or vouches for the address, and implicit linking is not disabled; otherwise ACCOUNT_NOT_LINKED;
 *   - else a new user with the account, a registration.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { AccountRecord, AccountTokensPatch, UserRecord } from "../store/identity-store.js";
import type { ClientInfo, Registry } from "./ports.js";
import type { ProviderTokenVault } from "./provider-token-vault.js";
import { completeSignIn, type SignInOutcome } from "./complete-sign-in.js";
import { banHolds } from "./bans.js";
import { normaliseEmail, providerImage } from "./validation.js";
import { newUser } from "./new-user.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "log"> & { providerTokens: ProviderTokenVault };

export interface ProviderProfile {
  providerId: string;
  accountId: string;
  email: string;
  emailVerified: boolean;
  name: string;
  image?: string;
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  accessTokenExpiresAt?: Date;
  refreshTokenExpiresAt?: Date;
  scopes: string[];
}

export interface ProviderSignInInput {
  profile: ProviderProfile;
  trusted: boolean;
  disableImplicitLinking: boolean;
  client: ClientInfo;
  /** The token of the browser's trusted-device cookie, if it has one. */
  trustedDevice?: string;
  /** An organization's single sign-on provider (the sso service): the session's method is "sso". */
  sso?: boolean;
  /** The organization the sign-in makes the user a member of before a session opens (single sign-on). */
  joinOrganization?: { organizationId: string; role: string };
}

/** The profile's tokens sealed for one account row. */
export function sealedTokens(vault: ProviderTokenVault, accountRowId: string, profile: ProviderProfile): AccountTokensPatch {
  const seal = (token: string | undefined) => (token ? vault.seal(token, accountRowId) : null);
  return {
    accessToken: seal(profile.accessToken),
    refreshToken: seal(profile.refreshToken),
    idToken: seal(profile.idToken),
    accessTokenExpiresAt: profile.accessTokenExpiresAt ?? null,
    refreshTokenExpiresAt: profile.refreshTokenExpiresAt ?? null,
    scope: profile.scopes.length ? profile.scopes.join(",") : null,
  };
}

function newAccount(deps: Pick<Deps, "now" | "providerTokens">, userId: string, profile: ProviderProfile): AccountRecord {
  const id = newId();
  const now = deps.now();
  return {
    id,
    accountId: profile.accountId,
    providerId: profile.providerId,
    userId,
    password: null,
    createdAt: now,
    updatedAt: now,
    ...sealedTokens(deps.providerTokens, id, profile),
  };
}

function profileEmail(profile: ProviderProfile): string {
  try {
    return normaliseEmail(profile.email);
  } catch {
    throw new AuthError("USER_EMAIL_NOT_FOUND");
  }
}

/** Finds or creates the user of a provider profile; isNewUser marks a registration. */
export async function userForProvider(deps: Deps, input: ProviderSignInInput, retried = false): Promise<{ user: UserRecord; isNewUser: boolean }> {
  const { store } = deps;
  const { profile } = input;
  const email = profileEmail(profile);
  const account = await store.findAccountByProvider(profile.providerId, profile.accountId);
  if (account) {
    let user = await store.findUserById(account.userId);
    if (!user) {
      // Linked while its user was being deleted (no foreign key stops it): the account, with the deleted
      // user's provider tokens, goes, and the profile signs in as one no user holds yet.
      await store.deleteAccount(account.id);
      if (!retried) return userForProvider(deps, input, true);
      throw new AuthError("FAILED_TO_CREATE_SESSION");
    }
    await store.updateAccountTokens(account.id, sealedTokens(deps.providerTokens, account.id, profile));
    // The provider now vouches for the address the user holds: it is verified.
    if (profile.emailVerified && !user.emailVerified && user.email === email) user = (await store.updateUser(user.id, { emailVerified: true })) ?? user;
    return { user, isNewUser: false };
  }
  try {
    const existing = await store.findUserByEmail(email);
    if (existing) {
      const vouched = input.trusted || profile.emailVerified;
      if (input.disableImplicitLinking || !vouched || !existing.emailVerified) throw new AuthError("ACCOUNT_NOT_LINKED");
      await store.createAccount(newAccount(deps, existing.id, profile));
      return { user: existing, isNewUser: false };
    }
    const user = newUser(deps.now(), {
      name: profile.name || email.split("@")[0]!,
      email,
      emailVerified: profile.emailVerified,
      image: providerImage(profile.image),
      role: deps.config.defaultRole,
    });
    await store.createUserWithAccount(user, newAccount(deps, user.id, profile));
    return { user, isNewUser: true };
  } catch (error) {
    // Two callbacks of one new provider user raced: the loser finds what the winner created.
    const raced = error instanceof AuthError && (error.code === "USER_ALREADY_EXISTS" || error.code === "SOCIAL_ACCOUNT_ALREADY_LINKED");
    if (raced && !retried) return userForProvider(deps, input, true);
    if (error instanceof AuthError && error.code === "ACCOUNT_NOT_LINKED") throw error;
    if (error instanceof AuthError && raced) throw new AuthError("FAILED_TO_CREATE_USER");
    throw error;
  }
}

export type ProviderSignInOutcome = SignInOutcome & { isNewUser: boolean };

export async function signInWithProvider(deps: Deps, input: ProviderSignInInput): Promise<ProviderSignInOutcome> {
  const { user, isNewUser } = await userForProvider(deps, input);
  // The membership first: when it cannot be made the sign-in fails with no session left behind. A banned
  // user joins nothing (completeSignIn refuses them next).
  if (input.joinOrganization && !banHolds(user, deps.now())) await deps.organizations.addMember(input.joinOrganization.organizationId, user.id, input.joinOrganization.role);
  // Bans, then two-factor (a challenge, or a trusted device) as for every sign-in; a banned user: the
  // callback answers BANNED_USER, as better-auth 1.7 does.
  const outcome = await completeSignIn(deps, user, {
    method: input.sso ? "sso" : `social:${input.profile.providerId}`,
    rememberMe: true,
    client: input.client,
    trustedDevice: input.trustedDevice,
    refusal: "FAILED_TO_CREATE_SESSION",
  });
  return { ...outcome, isNewUser };
}

/**
 * Refuses, when /link-social starts, the link linkProviderAccount would refuse at the callback whatever the
 * provider answers: a second account of a provider the user already has.
 */
export async function checkProviderLink(deps: Pick<Deps, "store">, userId: string, providerId: string): Promise<void> {
  if (await deps.store.findAccount(userId, providerId)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
}

/**
 * Links a provider account to a signed-in user (/link-social): refused when that provider account belongs
 * to another user, or when the user already has an account of this provider. Relinking the same provider
 * account renews its tokens.
 */
export async function linkProviderAccount(deps: Pick<Deps, "store" | "now" | "providerTokens">, userId: string, profile: ProviderProfile): Promise<AccountRecord> {
  const { store } = deps;
  if (!(await store.findUserById(userId))) throw new AuthError("USER_NOT_FOUND");
  const linked = await store.findAccountByProvider(profile.providerId, profile.accountId);
  if (linked) {
    if (linked.userId !== userId) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
    await store.updateAccountTokens(linked.id, sealedTokens(deps.providerTokens, linked.id, profile));
    return (await store.findAccountByProvider(profile.providerId, profile.accountId)) ?? linked;
  }
  if (await store.findAccount(userId, profile.providerId)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
  const account = newAccount(deps, userId, profile);
  await store.createAccount(account);
  return account;
}
