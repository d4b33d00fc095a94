/**
 * The /Groups use cases: a SCIM group is a team of the organization (docs/adr/0070-scim-provisioning.md).
 * The team service is called first and the row written after, so a failed call leaves the row as it was;
 * the IdP's retry repeats the calls, which are idempotent, and the row catches up.
 */
import { checkIfMatch } from "./etag.js";
import { badRequest, conflict, notFound, ScimError } from "./errors.js";
import { parseFilter } from "./filter.js";
import { parseGroupBody, type ScimGroupAttributes, toGroupResource } from "./group.js";
import { listResponse, type Page } from "./pagination.js";
import { applyGroupPatch, parsePatchBody } from "./patch.js";
import type { ScimDeps, ScimGroupRow } from "./ports.js";

export const GROUP_FILTER_ATTRIBUTES = ["displayName", "externalId", "id"] as const;

const resourceOf = (row: ScimGroupRow, baseUrl: string, members = true) => toGroupResource({ ...row, id: row.teamId }, baseUrl, { members });

function requireExisting(row: ScimGroupRow | undefined): ScimGroupRow {
  if (!row) throw notFound("Group");
  return row;
}

/** Members must be provisioned users of this organization: another organization's ids are unknown here. */
async function requireMembers(deps: ScimDeps, organizationId: string, members: string[]): Promise<void> {
  for (const userId of members) {
    if (!(await deps.store.getUser(organizationId, userId))) throw badRequest("invalidValue", `No user ${userId} is provisioned in this organization`);
  }
}

async function syncMembers(deps: ScimDeps, organizationId: string, teamId: string, before: string[], after: string[]): Promise<void> {
  const kept = new Set(after);
  const had = new Set(before);
  for (const userId of after) if (!had.has(userId)) await deps.peers.addTeamMember(organizationId, teamId, userId);
  for (const userId of before) if (!kept.has(userId)) await deps.peers.removeTeamMember(organizationId, teamId, userId);
}

export async function createGroup(deps: ScimDeps, organizationId: string, body: unknown, baseUrl: string) {
  const attributes = parseGroupBody(body);
  const taken = await deps.store.listGroups(organizationId, { attribute: "displayName", value: attributes.displayName }, 0, 0);
  if (taken.total > 0) throw conflict("A group with this displayName exists");
  await requireMembers(deps, organizationId, attributes.members);
  const team = await deps.peers.createTeam(organizationId, attributes.displayName);
  const now = deps.now();
  const row: ScimGroupRow = { ...attributes, organizationId, teamId: team.id, createdAt: now, updatedAt: now, revision: 1 };
  if (!(await deps.store.insertGroup(row))) {
    await deps.peers.removeTeam(organizationId, team.id);
    throw conflict("A group with this displayName or externalId exists");
  }
  await syncMembers(deps, organizationId, team.id, [], row.members);
  return resourceOf(row, baseUrl);
}

export async function getGroup(deps: ScimDeps, organizationId: string, teamId: string, baseUrl: string, members = true) {
  return resourceOf(requireExisting(await deps.store.getGroup(organizationId, teamId)), baseUrl, members);
}

export async function listGroups(deps: ScimDeps, organizationId: string, query: { filter?: string }, page: Page, baseUrl: string, members = true) {
  const filter = parseFilter(query.filter, GROUP_FILTER_ATTRIBUTES);
  const { rows, total } = await deps.store.listGroups(organizationId, filter, page.startIndex - 1, page.count);
  return listResponse(
    page,
    total,
    rows.map((row) => resourceOf(row, baseUrl, members)),
  );
}

async function write(deps: ScimDeps, current: ScimGroupRow, next: ScimGroupAttributes, baseUrl: string) {
  await requireMembers(
    deps,
    current.organizationId,
    next.members.filter((id) => !current.members.includes(id)),
  );
  if (next.displayName !== current.displayName) {
    const taken = await deps.store.listGroups(current.organizationId, { attribute: "displayName", value: next.displayName }, 0, 1);
    if (taken.rows.some((row) => row.teamId !== current.teamId)) throw conflict("A group with this displayName exists");
    await deps.peers.renameTeam(current.organizationId, current.teamId, next.displayName);
  }
  await syncMembers(deps, current.organizationId, current.teamId, current.members, next.members);
  const row: ScimGroupRow = { ...current, ...next, updatedAt: deps.now(), revision: current.revision + 1 };
  const outcome = await deps.store.updateGroup(row, current.revision);
  if (outcome === "conflict") throw conflict("A group with this displayName or externalId exists");
  if (outcome === "changed") throw new ScimError(409, "The group changed during this request; retry it");
  return resourceOf(row, baseUrl);
}

export async function replaceGroup(deps: ScimDeps, organizationId: string, teamId: string, body: unknown, ifMatch: string | undefined, baseUrl: string) {
  const current = requireExisting(await deps.store.getGroup(organizationId, teamId));
  checkIfMatch(ifMatch, current.revision);
  return write(deps, current, parseGroupBody(body), baseUrl);
}

export async function patchGroup(deps: ScimDeps, organizationId: string, teamId: string, body: unknown, ifMatch: string | undefined, baseUrl: string) {
  const operations = parsePatchBody(body);
  const current = requireExisting(await deps.store.getGroup(organizationId, teamId));
  checkIfMatch(ifMatch, current.revision);
  return write(deps, current, applyGroupPatch({ ...current, id: current.teamId }, operations), baseUrl);
}

export async function deleteGroup(deps: ScimDeps, organizationId: string, teamId: string, ifMatch: string | undefined): Promise<void> {
  const current = requireExisting(await deps.store.getGroup(organizationId, teamId));
  checkIfMatch(ifMatch, current.revision);
  await deps.peers.removeTeam(organizationId, teamId);
  await deps.store.deleteGroup(organizationId, teamId);
}
