/**
 * Verified domains: an organization claims a domain, publishes the TXT record of its claim, and the claim
 * is verified when the record is found (docs/adr/0071-verified-domains.md). A domain is verified by one
 * organization at most: the store refuses a second (its unique verified name), which also settles two
 * verifications racing. An unverified claim expires; claiming again then draws a new token.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { type ChallengeRecord, challengeRecord, newChallengeToken } from "./challenge.js";
import { emailDomain, normaliseDomain } from "./domain-name.js";
import { checkChallenge, type TxtResolver } from "./txt-resolver.js";

export interface DomainRecord {
  id: string;
  organizationId: string;
  /** Canonical (normaliseDomain). */
  domain: string;
  /** The claim's challenge token: published in DNS by design, so stored as is. */
  token: string;
  createdAt: Date;
  /** When an unverified claim stops being verifiable; meaningless once verified. */
  expiresAt: Date;
  verifiedAt: Date | null;
  /** The role a new user with a verified address of the domain joins with; null: no auto-join. */
  autoJoinRole: string | null;
  /** When auto-join was turned on: only users created from then on join (ADR 0071). */
  autoJoinSince: Date | null;
}

/** The domain store port (services/sso/src/store: SQL and memory, one contract suite). */
export interface DomainStore {
  findDomain(id: string): Promise<DomainRecord | undefined>;
  findDomainClaim(organizationId: string, domain: string): Promise<DomainRecord | undefined>;
  /** The claim that verified `domain`, whichever organization made it. */
  findVerifiedDomain(domain: string): Promise<DomainRecord | undefined>;
  listDomains(organizationId: string): Promise<DomainRecord[]>;
  /** Stores a new claim; false when the organization already has a claim of the domain (a race). */
  insertDomain(record: DomainRecord): Promise<boolean>;
  /** A fresh token and expiry for an unverified claim. */
  renewDomainClaim(id: string, token: string, createdAt: Date, expiresAt: Date): Promise<void>;
  /** Marks the claim verified; false when another claim of the same domain is verified already. */
  markDomainVerified(id: string, at: Date): Promise<boolean>;
  setDomainAutoJoin(id: string, role: string | null, since: Date | null): Promise<void>;
  deleteDomain(id: string): Promise<void>;
}

export interface DomainDeps {
  domains: DomainStore;
  resolver: TxtResolver;
  now: () => Date;
  newId: () => string;
  /** How long an unverified claim stays verifiable (SSO_DOMAIN_CLAIM_TTL_HOURS). */
  claimTtlMs: number;
}

export type DomainStatus = "pending" | "verified" | "expired";

export interface DomainView {
  id: string;
  organizationId: string;
  domain: string;
  status: DomainStatus;
  /** The TXT record to publish. */
  record: ChallengeRecord;
  createdAt: Date;
  expiresAt: Date;
  verifiedAt: Date | null;
  autoJoinRole: string | null;
}

/** Roles a domain may let new users join with: never owner (ADR 0071). */
export const AUTO_JOIN_ROLES = ["member", "admin"] as const;

export function statusOf(record: DomainRecord, now: Date): DomainStatus {
  if (record.verifiedAt) return "verified";
  return record.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}

export function domainView(record: DomainRecord, now: Date): DomainView {
  return {
    id: record.id,
    organizationId: record.organizationId,
    domain: record.domain,
    status: statusOf(record, now),
    record: challengeRecord(record.domain, record.token),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    verifiedAt: record.verifiedAt,
    autoJoinRole: record.autoJoinRole,
  };
}

/** The canonical form of a domain to claim, or the catalogue's refusal. */
export function claimableDomain(input: string): string {
  const result = normaliseDomain(input);
  if (result.ok) return result.domain;
  throw new AuthError(result.refusal === "public-suffix" ? "DOMAIN_IS_A_PUBLIC_SUFFIX" : "INVALID_DOMAIN");
}

/**
 * Claims `domain` for the organization: its pending claim as it is, an expired one with a new token, or a
 * new claim. Refused when the domain is verified (by this organization: DOMAIN_VERIFIED; another:
 * DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION). The caller has been checked as an owner or admin.
 */
export async function claimDomain(deps: DomainDeps, organizationId: string, input: string): Promise<DomainView> {
  const domain = claimableDomain(input);
  await refuseVerified(deps, organizationId, domain);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + deps.claimTtlMs);
  const existing = await deps.domains.findDomainClaim(organizationId, domain);
  if (existing) {
    if (statusOf(existing, now) !== "expired") return domainView(existing, now);
    await deps.domains.renewDomainClaim(existing.id, newChallengeToken(), now, expiresAt);
  } else {
    const record: DomainRecord = {
      id: deps.newId(),
      organizationId,
      domain,
      token: newChallengeToken(),
      createdAt: now,
      expiresAt,
      verifiedAt: null,
      autoJoinRole: null,
      autoJoinSince: null,
    };
    // Two claims racing: the one stored first is the claim, both callers are answered with it.
    if (await deps.domains.insertDomain(record)) return domainView(record, now);
  }
  const stored = await deps.domains.findDomainClaim(organizationId, domain);
  if (!stored) throw new AuthError("DOMAIN_NOT_FOUND");
  return domainView(stored, now);
}

async function refuseVerified(deps: DomainDeps, organizationId: string, domain: string): Promise<void> {
  const verified = await deps.domains.findVerifiedDomain(domain);
  if (!verified) return;
  throw new AuthError(verified.organizationId === organizationId ? "DOMAIN_VERIFIED" : "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
}

/** The organization's claim `id`; another organization's claim is not found either (no enumeration). */
export async function ownClaim(deps: Pick<DomainDeps, "domains">, organizationId: string, id: string): Promise<DomainRecord> {
  const record = await deps.domains.findDomain(id);
  if (!record || record.organizationId !== organizationId) throw new AuthError("DOMAIN_NOT_FOUND");
  return record;
}

/**
 * Looks the claim's TXT record up and marks the claim verified when it is published. Refused for a claim
 * verified already, an expired one (NO_PENDING_VERIFICATION), a domain another organization verified, and
 * a record not found (DOMAIN_VERIFICATION_FAILED, with the reason in fields.reason and the domain in fields.domain).
 */
export async function verifyDomainClaim(deps: DomainDeps, record: DomainRecord): Promise<DomainView> {
  const now = deps.now();
  const status = statusOf(record, now);
  if (status === "verified") throw new AuthError("DOMAIN_VERIFIED");
  if (status === "expired") throw new AuthError("NO_PENDING_VERIFICATION");
  await refuseVerified(deps, record.organizationId, record.domain);
  const check = await checkChallenge(deps.resolver, challengeRecord(record.domain, record.token));
  // The domain goes with the reason: the gateway logs both (a warning: the admin's DNS, not our fault).
  if (check !== "verified") throw new AuthError("DOMAIN_VERIFICATION_FAILED", undefined, { fields: { reason: check, domain: record.domain } });
  const verifiedAt = deps.now();
  if (!(await deps.domains.markDomainVerified(record.id, verifiedAt))) throw new AuthError("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
  return domainView({ ...record, verifiedAt }, verifiedAt);
}

/** Turns auto-join on with a role (from now on: users created later join), or off with null. */
export async function setAutoJoin(deps: DomainDeps, record: DomainRecord, role: string | null): Promise<DomainView> {
  if (role !== null && !(AUTO_JOIN_ROLES as readonly string[]).includes(role)) throw new AuthError("VALIDATION_ERROR", "Invalid auto-join role");
  const now = deps.now();
  // Changing the role of an enabled auto-join keeps its start: the same users stay eligible.
  const since = role === null ? null : (record.autoJoinSince ?? now);
  await deps.domains.setDomainAutoJoin(record.id, role, since);
  return domainView({ ...record, autoJoinRole: role, autoJoinSince: since }, now);
}

/** The verified domain of an email address, or undefined: what routes a sign-in (never a pending claim). */
export async function verifiedDomainOfEmail(deps: Pick<DomainDeps, "domains">, email: string): Promise<DomainRecord | undefined> {
  const domain = emailDomain(email);
  return domain === undefined ? undefined : deps.domains.findVerifiedDomain(domain);
}

export interface JoiningUser {
  id: string;
  email: string;
  emailVerified: boolean;
  /** When the address became verified (for a user created with a verified address, its creation). */
  verifiedAt: Date;
}

/**
 * The organization and role a user joins through a verified domain, or undefined. Only a verified address
 * counts (an unverified sign-up with someone else's address joins nothing), and only one verified once
 * auto-join was on: turning it on does not sweep in the domain's existing users, while a user who proves an
 * address of the domain later (a sign-up verified afterwards, an email change) joins (ADR 0071, 0074).
 */
export async function autoJoinOf(deps: Pick<DomainDeps, "domains">, user: JoiningUser): Promise<{ organizationId: string; role: string } | undefined> {
  if (!user.emailVerified) return undefined;
  const record = await verifiedDomainOfEmail(deps, user.email);
  if (!record?.autoJoinRole || !record.autoJoinSince || !record.verifiedAt) return undefined;
  if (user.verifiedAt.getTime() < record.autoJoinSince.getTime()) return undefined;
  return { organizationId: record.organizationId, role: record.autoJoinRole };
}
