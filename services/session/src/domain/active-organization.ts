/**
 * The active organization of sessions (docs/organizations.md#the-active-organization). The store is changed first, then the cached copies are
 * dropped and the change published to the watchers (the gateways' own caches), so the next read (gateway or
 * service) loads the new value; all of it happens before the call answers
 * (during a Redis outage the drop is recorded as pending and the lease waited out: sessions.ts).
 * Only the organization service calls these: it has checked membership.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Registry } from "./ports.js";
import { dropCachedCopies } from "./sessions.js";

type Deps = Pick<Registry, "store" | "cache" | "tokens" | "lease" | "events" | "log">;

/** Sets (or with null clears) the active team of one session, and the team's organization as its active one. */
export async function setActiveTeam(deps: Deps, sessionId: string, team: { teamId: string; organizationId: string } | null): Promise<void> {
  const token = await deps.store.setActiveTeam(sessionId, team);
  if (token === null) throw new AuthError("SESSION_NOT_FOUND");
  await dropCachedCopies(deps, [token], { kind: "session-changed", lookups: [deps.tokens.lookup(token)] });
}

/** Clears a team as the active one of every session (of one user when given). */
export async function clearActiveTeam(deps: Deps, teamId: string, userId?: string): Promise<void> {
  const tokens = await deps.store.clearActiveTeam(teamId, userId);
  await dropCachedCopies(deps, tokens, { kind: "session-changed", lookups: tokens.map((token) => deps.tokens.lookup(token)) });
}

/** Sets (or with null clears) the active organization of the session with this token. */
export async function setActiveOrganization(deps: Deps, sessionId: string, organizationId: string | null): Promise<void> {
  const token = await deps.store.setActiveOrganization(sessionId, organizationId);
  if (token === null) throw new AuthError("SESSION_NOT_FOUND");
  await dropCachedCopies(deps, [token], { kind: "session-changed", lookups: [deps.tokens.lookup(token)] });
}

/** Clears an organization as the active one of every session (of one user when userId is given). */
export async function clearActiveOrganization(deps: Deps, organizationId: string, userId?: string): Promise<void> {
  const tokens = await deps.store.clearActiveOrganization(organizationId, userId);
  await dropCachedCopies(deps, tokens, { kind: "session-changed", lookups: tokens.map((token) => deps.tokens.lookup(token)) });
}
