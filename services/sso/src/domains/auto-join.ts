/**
 * Auto-join as identity asks for it (its user event outbox, docs/adr/0074-user-event-outbox.md): a user whose
 * address became verified joins the organization that verified the address's domain, when that domain's
 * auto-join is on (ADR 0071). Called again for the same event (identity retries until an answer lands), it
 * changes nothing: AddMember keeps an existing member's role.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { autoJoinOf, type DomainDeps } from "./domain-claims.js";

export interface AutoJoinDeps extends Pick<DomainDeps, "domains"> {
  /** organization's AddMember (idempotent: an existing member keeps their role). */
  addMember(organizationId: string, userId: string, role: string): Promise<void>;
}

export interface VerifiedAddress {
  userId: string;
  email: string;
  /** When identity marked the address verified. */
  verifiedAt: Date;
}

/** Joins the user by the address's verified domain; answers what was applied, or undefined when none applies. */
export async function applyDomainAutoJoin(deps: AutoJoinDeps, address: VerifiedAddress): Promise<{ organizationId: string; role: string } | undefined> {
  if (!address.userId) throw new AuthError("VALIDATION_ERROR");
  const join = await autoJoinOf(deps, { id: address.userId, email: address.email, emailVerified: true, verifiedAt: address.verifiedAt });
  if (!join) return undefined;
  await deps.addMember(join.organizationId, address.userId, join.role);
  return join;
}
