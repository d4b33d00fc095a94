/**
 * The /Users use cases of one organization's SCIM connection (docs/adr/0070-scim-provisioning.md). The
 * attributes are kept here; the effects elsewhere (membership, deactivation, which ends sessions) follow
 * from the row's wanted state and are delivered at once and, when that fails, by the delivery worker.
 */
import { checkIfMatch } from "./etag.js";
import { conflict, notFound, ScimError } from "./errors.js";
import { parseFilter } from "./filter.js";
import { listResponse, type Page } from "./pagination.js";
import { applyUserPatch, parsePatchBody } from "./patch.js";
import type { ScimApplied, ScimDeps, ScimUserRow } from "./ports.js";
import { displayNameOf, parseUserBody, type ScimUserAttributes, toUserResource } from "./user.js";

export const USER_FILTER_ATTRIBUTES = ["userName", "externalId", "id"] as const;

const wanted = (row: ScimUserRow): ScimApplied => (row.deleted ? "gone" : row.active ? "member" : "inactive");
const resourceOf = (row: ScimUserRow, baseUrl: string) => toUserResource({ ...row, id: row.userId }, baseUrl);

/**
 * Brings the other services to the row's wanted state; idempotent, so a retry after a partial failure
 * repeats what landed. Every provisioned user is one the organization owns (createUser creates them, or
 * links them only through a domain the organization verified), so `active: false` deactivates the user,
 * which ends every session of theirs at once; a DELETE ends the membership alone.
 */
export async function deliver(deps: ScimDeps, row: ScimUserRow): Promise<void> {
  const state = wanted(row);
  if (state === row.applied) return;
  if (state === "member") {
    if (row.applied === "inactive") await deps.peers.reactivateUser(row.userId);
    await deps.peers.addMember(row.organizationId, row.userId);
  } else {
    await deps.peers.removeMember(row.organizationId, row.userId);
    if (state === "inactive") await deps.peers.deactivateUser(row.userId);
  }
  await deps.store.markApplied(row.organizationId, row.userId, row.revision, state);
}

/** Delivers now; a failure is left to the worker (the change is kept, and answered as done). */
async function deliverSoon(deps: ScimDeps, row: ScimUserRow): Promise<void> {
  try {
    await deliver(deps, row);
  } catch {
    deps.wakeDelivery?.();
  }
}

/** One pass of the delivery worker: every row whose effects have not landed. */
export async function deliverPending(deps: ScimDeps, limit: number): Promise<number> {
  const rows = await deps.store.listUndelivered(limit);
  for (const row of rows) await deliver(deps, row);
  return rows.length;
}

function requireExisting(row: ScimUserRow | undefined): ScimUserRow {
  if (!row) throw notFound("User");
  return row;
}

export async function createUser(deps: ScimDeps, organizationId: string, body: unknown, baseUrl: string) {
  const attributes = parseUserBody(body);
  // Checked before identity creates anyone, so a refused request leaves no platform user behind.
  if ((await deps.store.listUsers(organizationId, { attribute: "userName", value: attributes.userName }, 0, 0)).total > 0) throw conflict("A user with this userName exists");
  if (attributes.externalId !== undefined && (await deps.store.listUsers(organizationId, { attribute: "externalId", value: attributes.externalId }, 0, 0)).total > 0) {
    throw conflict("A user with this externalId exists");
  }
  let user = await deps.peers.findUserByEmail(attributes.email);
  if (user) {
    // Linking a person who signed up on their own needs the organization to own their address.
    if (!(await deps.peers.ownsDomainOf(organizationId, attributes.email))) throw conflict("A user with this email exists outside the organization's verified domains");
  } else {
    user = await deps.peers.createUser({ email: attributes.email, name: displayNameOf(attributes) });
  }
  const now = deps.now();
  const row = await deps.store.putNewUser({ ...attributes, organizationId, userId: user.id, createdAt: now, updatedAt: now, revision: 1, deleted: false, applied: null });
  if (!row) throw conflict("A user with this userName, externalId or email exists");
  await deliverSoon(deps, row);
  return resourceOf(row, baseUrl);
}

export async function getUser(deps: ScimDeps, organizationId: string, userId: string, baseUrl: string) {
  return resourceOf(requireExisting(await deps.store.getUser(organizationId, userId)), baseUrl);
}

export async function listUsers(deps: ScimDeps, organizationId: string, query: { filter?: string }, page: Page, baseUrl: string) {
  const filter = parseFilter(query.filter, USER_FILTER_ATTRIBUTES);
  if (page.count === 0) {
    const { total } = await deps.store.listUsers(organizationId, filter, 0, 0);
    return listResponse(page, total, []);
  }
  const { rows, total } = await deps.store.listUsers(organizationId, filter, page.startIndex - 1, page.count);
  return listResponse(
    page,
    total,
    rows.map((row) => resourceOf(row, baseUrl)),
  );
}

async function write(deps: ScimDeps, current: ScimUserRow, next: ScimUserAttributes, baseUrl: string) {
  const row: ScimUserRow = { ...current, ...next, updatedAt: deps.now(), revision: current.revision + 1 };
  const outcome = await deps.store.updateUser(row, current.revision);
  if (outcome === "conflict") throw conflict("A user with this userName or externalId exists");
  if (outcome === "changed") throw new ScimError(409, "The user changed during this request; retry it");
  await deliverSoon(deps, row);
  return resourceOf(row, baseUrl);
}

export async function replaceUser(deps: ScimDeps, organizationId: string, userId: string, body: unknown, ifMatch: string | undefined, baseUrl: string) {
  const current = requireExisting(await deps.store.getUser(organizationId, userId));
  checkIfMatch(ifMatch, current.revision);
  return write(deps, current, parseUserBody(body), baseUrl);
}

export async function patchUser(deps: ScimDeps, organizationId: string, userId: string, body: unknown, ifMatch: string | undefined, baseUrl: string) {
  const operations = parsePatchBody(body);
  const current = requireExisting(await deps.store.getUser(organizationId, userId));
  checkIfMatch(ifMatch, current.revision);
  return write(deps, current, applyUserPatch(current, operations), baseUrl);
}

/** Deletes the SCIM user: the membership goes; the platform user stays (a person may belong elsewhere). */
export async function deleteUser(deps: ScimDeps, organizationId: string, userId: string, ifMatch: string | undefined): Promise<void> {
  const current = requireExisting(await deps.store.getUser(organizationId, userId));
  checkIfMatch(ifMatch, current.revision);
  const row: ScimUserRow = { ...current, deleted: true, updatedAt: deps.now(), revision: current.revision + 1 };
  const outcome = await deps.store.updateUser(row, current.revision);
  if (outcome !== "updated") throw new ScimError(409, "The user changed during this request; retry it");
  // Leaving the organization takes the user out of its teams (the organization service's rule); the groups follow.
  await deps.store.removeFromGroups(organizationId, userId);
  await deliverSoon(deps, row);
}
