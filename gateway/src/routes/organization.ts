/**
 * Everything under /organization (docs/http-api/organizations.md), as the better-auth organizationClient calls it (1.1 and the
 * current client; get-organization, list-members, list-user-invitations, get-active-member-role, leave and
 * check-slug are the current client's). Each route checks the shape, then makes one call to the organization service with the
 * caller read from the session; the service applies every rule.
 */
import { type Request, Router } from "express";
import * as z from "zod";
import type { Caller } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { parseBody, parseQuery } from "../http/body.js";
import type { RouteDeps } from "./deps.js";
import {
  acceptedInvitationResponse,
  fullOrganizationResponse,
  invitationDetailResponse,
  invitationListResponse,
  invitationResponse,
  memberListResponse,
  memberResponse,
  memberRoleResponse,
  organizationListResponse,
  organizationResponse,
  permissionResponse,
  rejectedInvitationResponse,
  removedMemberResponse,
  slugAvailableResponse,
  userInvitationListResponse,
} from "./responses.js";

const id = z.string().min(1).max(64);
const text = z.string().max(255);
const metadata = z.record(z.string().max(64), z.string().max(1024));
/** The current client sends several roles as an array; they are kept comma-separated. */
const role = z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(64)).min(1).max(8)]).transform((r) => (Array.isArray(r) ? r.join(",") : r));

/** keepCurrentActiveOrganization (current client): the session's active organization stays as it is. */
export const createBody = z.object({
  name: text.min(1),
  slug: text.min(1),
  userId: id.optional(),
  logo: z.string().max(2048).optional(),
  metadata: metadata.optional(),
  keepCurrentActiveOrganization: z.boolean().optional(),
});
export const updateBody = z.object({
  data: z.object({ name: text.min(1).optional(), slug: text.min(1).optional(), logo: z.string().max(2048).nullish(), metadata: metadata.optional() }),
  organizationId: id.optional(),
});
export const organizationIdBody = z.object({ organizationId: id });
export const targetQuery = z.looseObject({ organizationId: id.optional(), organizationSlug: text.optional() });
export const setActiveBody = z.object({ organizationId: id.nullish(), organizationSlug: text.optional() });
export const fullOrganizationQuery = targetQuery.extend({ membersLimit: z.coerce.number().int().min(1).max(1000).optional() });
/** The current client's list-members options: sort by createdAt or role, filter role or userId (pages of 100 by default, at most 1,000). */
const filterValue = z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]);
export const listMembersQuery = z.looseObject({
  organizationId: id.optional(),
  organizationSlug: text.optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
  sortBy: z.enum(["createdAt", "role"]).optional(),
  sortDirection: z.enum(["asc", "desc"]).optional(),
  filterField: z.enum(["role", "userId"]).optional(),
  filterOperator: z.enum(["eq", "ne", "in", "not_in"]).optional(),
  filterValue: filterValue.optional(),
});
export const activeRoleQuery = z.looseObject({ organizationId: id.optional(), organizationSlug: text.optional(), userId: id.optional() });
export const inviteBody = z.object({ email: z.string().max(320), role, organizationId: id.optional(), resend: z.boolean().optional() });
export const invitationIdBody = z.object({ invitationId: id });
export const invitationQuery = z.looseObject({ id });
export const organizationQuery = z.looseObject({ organizationId: id.optional() });
export const removeBody = z.object({ memberIdOrEmail: z.string().min(1).max(320), organizationId: id.optional() });
export const updateRoleBody = z.object({ memberId: id, role, organizationId: id.optional() });
export const slugBody = z.object({ slug: text.min(1) });
const actions = z.record(z.string().max(64), z.array(z.string().max(64)).max(16));
/** `permission` (1.1) or `permissions` (current client). */
export const permissionBody = z.object({ organizationId: id.optional(), permission: actions.optional(), permissions: actions.optional() });

export function organizationRoutes(deps: RouteDeps): Router {
  const router = Router();
  const organization = deps.clients.organization;

  /** The signed-in caller the organization service acts for, or 401. */
  const callerOf = async (req: Request): Promise<Caller> => {
    const { session, user } = await deps.sessions.require(req);
    return {
      userId: user.id,
      email: user.email,
      emailVerified: user.emailVerified,
      sessionToken: session.token,
      activeOrganizationId: session.activeOrganizationId ?? undefined,
    };
  };

  router.post("/organization/create", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, createBody);
    // A browser creates for its own user only: naming another user is for server-side gRPC callers.
    if (body.userId && body.userId !== caller.userId) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION");
    const { organization: full } = await call(organization, organization.createOrganization, {
      caller,
      userId: "",
      name: body.name,
      slug: body.slug,
      logo: body.logo,
      metadata: body.metadata ?? {},
      keepActiveOrganization: body.keepCurrentActiveOrganization ?? false,
    });
    res.json(fullOrganizationResponse(full!));
  });

  router.post("/organization/update", async (req, res) => {
    const caller = await callerOf(req);
    const { data, organizationId } = parseBody(req, updateBody);
    const { organization: updated } = await call(organization, organization.updateOrganization, {
      caller,
      organizationId,
      name: data.name,
      slug: data.slug,
      // null clears the logo (an empty string to the service).
      logo: data.logo === null ? "" : data.logo,
      metadata: data.metadata ?? {},
      setMetadata: data.metadata !== undefined,
    });
    res.json(organizationResponse(updated!));
  });

  router.post("/organization/delete", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, organizationIdBody);
    const { organization: deleted } = await call(organization, organization.deleteOrganization, { caller, organizationId: body.organizationId });
    res.json(organizationResponse(deleted!));
  });

  router.get("/organization/get-full-organization", async (req, res) => {
    const caller = await callerOf(req);
    const { organizationId, organizationSlug, membersLimit } = parseQuery(req, fullOrganizationQuery);
    const { organization: full } = await call(organization, organization.getFullOrganization, { caller, organizationId, organizationSlug, membersLimit: membersLimit ?? 0 });
    res.json(full ? fullOrganizationResponse(full) : null);
  });

  // The current client's organization without members and invitations.
  router.get("/organization/get-organization", async (req, res) => {
    const caller = await callerOf(req);
    const { organizationId, organizationSlug } = parseQuery(req, targetQuery);
    const { organization: full } = await call(organization, organization.getFullOrganization, { caller, organizationId, organizationSlug, membersLimit: 0 });
    res.json(full ? organizationResponse(full.organization!) : null);
  });

  router.post("/organization/set-active", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, setActiveBody);
    const { organization: full } = await call(organization, organization.setActiveOrganization, {
      caller,
      organizationId: body.organizationId ?? undefined,
      organizationSlug: body.organizationSlug,
      unset: body.organizationId === null && !body.organizationSlug,
    });
    res.json(full ? fullOrganizationResponse(full) : null);
  });

  router.get("/organization/list", async (req, res) => {
    const caller = await callerOf(req);
    const { organizations } = await call(organization, organization.listOrganizations, { userId: caller.userId });
    res.json(organizationListResponse(organizations));
  });

  router.get("/organization/list-members", async (req, res) => {
    const caller = await callerOf(req);
    const query = parseQuery(req, listMembersQuery);
    const page = await call(organization, organization.listMembers, {
      caller,
      organizationId: query.organizationId,
      organizationSlug: query.organizationSlug,
      limit: query.limit ?? 0,
      offset: query.offset ?? 0,
      sortBy: query.sortBy ?? "",
      descending: query.sortDirection === "desc",
      filterField: query.filterField ?? "",
      filterOperator: query.filterOperator ?? "",
      filterValues: query.filterValue === undefined ? [] : [query.filterValue].flat(),
    });
    res.json(memberListResponse(page.members, page.total));
  });

  router.get("/organization/get-active-member", async (req, res) => {
    const caller = await callerOf(req);
    const query = parseQuery(req, targetQuery);
    const { member } = await call(organization, organization.getActiveMember, { caller, ...query });
    res.json(memberResponse(member!));
  });

  router.get("/organization/get-active-member-role", async (req, res) => {
    const caller = await callerOf(req);
    const query = parseQuery(req, activeRoleQuery);
    // Another member's role is not served here: list-members shows it to members.
    if (query.userId && query.userId !== caller.userId) throw new AuthError("VALIDATION_ERROR", "Invalid userId: only the caller's own role is served");
    const { member } = await call(organization, organization.getActiveMember, { caller, organizationId: query.organizationId, organizationSlug: query.organizationSlug });
    res.json(memberRoleResponse(member!.role));
  });

  router.post("/organization/invite-member", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, inviteBody);
    const { invitation } = await call(organization, organization.inviteMember, {
      caller,
      email: body.email,
      role: body.role,
      organizationId: body.organizationId,
      resend: body.resend ?? false,
    });
    res.json(invitationResponse(invitation!));
  });

  router.get("/organization/get-invitation", async (req, res) => {
    const caller = await callerOf(req);
    const query = parseQuery(req, invitationQuery);
    const found = await call(organization, organization.getInvitation, { caller, invitationId: query.id });
    res.json(invitationDetailResponse(found));
  });

  router.get("/organization/list-invitations", async (req, res) => {
    const caller = await callerOf(req);
    const query = parseQuery(req, organizationQuery);
    const { invitations } = await call(organization, organization.listInvitations, { caller, organizationId: query.organizationId });
    res.json(invitationListResponse(invitations));
  });

  router.get("/organization/list-user-invitations", async (req, res) => {
    const caller = await callerOf(req);
    const { invitations } = await call(organization, organization.listUserInvitations, { caller });
    res.json(userInvitationListResponse(invitations));
  });

  router.post("/organization/accept-invitation", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, invitationIdBody);
    const accepted = await call(organization, organization.acceptInvitation, { caller, invitationId: body.invitationId });
    res.json(acceptedInvitationResponse(accepted.invitation!, accepted.member!));
  });

  router.post("/organization/reject-invitation", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, invitationIdBody);
    const { invitation } = await call(organization, organization.rejectInvitation, { caller, invitationId: body.invitationId });
    res.json(rejectedInvitationResponse(invitation!));
  });

  router.post("/organization/cancel-invitation", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, invitationIdBody);
    const { invitation } = await call(organization, organization.cancelInvitation, { caller, invitationId: body.invitationId });
    res.json(invitationResponse(invitation!));
  });

  router.post("/organization/remove-member", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, removeBody);
    const { member } = await call(organization, organization.removeMember, { caller, memberIdOrEmail: body.memberIdOrEmail, organizationId: body.organizationId });
    res.json(removedMemberResponse(member!));
  });

  router.post("/organization/update-member-role", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, updateRoleBody);
    const { member } = await call(organization, organization.updateMemberRole, { caller, memberId: body.memberId, role: body.role, organizationId: body.organizationId });
    res.json(memberResponse(member!));
  });

  router.post("/organization/leave", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, organizationIdBody);
    const { member } = await call(organization, organization.leaveOrganization, { caller, organizationId: body.organizationId });
    res.json(memberResponse(member!));
  });

  router.post("/organization/check-slug", async (req, res) => {
    await callerOf(req);
    const body = parseBody(req, slugBody);
    await call(organization, organization.checkSlug, { slug: body.slug });
    res.json(slugAvailableResponse());
  });

  router.post("/organization/has-permission", async (req, res) => {
    const caller = await callerOf(req);
    const body = parseBody(req, permissionBody);
    const asked = body.permissions ?? body.permission;
    if (!asked || !Object.keys(asked).length) throw new AuthError("VALIDATION_ERROR", "Invalid permissions: required");
    const permissions = Object.fromEntries(Object.entries(asked).map(([resource, list]) => [resource, { actions: list }]));
    const { success } = await call(organization, organization.hasPermission, { caller, organizationId: body.organizationId, permissions });
    res.json(permissionResponse(success));
  });
  return router;
}
