/**
 * Everything under /organization (docs/http-api/organizations.md), as the better-auth organizationClient calls it (1.1 and the
 * current client; get-organization, list-members, list-user-invitations, get-active-member-role, leave and
 * check-slug are the current client's). Each route checks the shape, then makes one call to the organization service with the
 * caller read from the session; the service applies every rule.
 */
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import {
  acceptedInvitationSchema,
  fullOrganizationSchema,
  invitationDetailSchema,
  invitationSchema,
  memberListSchema,
  memberRoleSchema,
  memberSchema,
  organizationSchema,
  permissionSchema,
  rejectedInvitationSchema,
  removedMemberSchema,
  statusSchema,
  userInvitationSchema,
} from "../http/public-schemas.js";
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

export function organizationRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const organization = deps.clients.organization;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/create",
        tag: "Organizations",
        session: "required",
        summary: "Create an organization",
        body: createBody,
        response: fullOrganizationSchema,
        errors: ["ORGANIZATION_ALREADY_EXISTS", "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION", "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
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
        json(fullOrganizationResponse(full!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/update",
        tag: "Organizations",
        session: "required",
        summary: "Update an organization",
        body: updateBody,
        response: organizationSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "ORGANIZATION_ALREADY_EXISTS", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { data, organizationId } = body;
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
        json(organizationResponse(updated!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/delete",
        tag: "Organizations",
        session: "required",
        summary: "Delete an organization",
        body: organizationIdBody,
        response: organizationSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { organization: deleted } = await call(organization, organization.deleteOrganization, { caller, organizationId: body.organizationId });
        json(organizationResponse(deleted!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/get-full-organization",
        tag: "Organizations",
        session: "required",
        summary: "An organization with its members and pending invitations",
        query: fullOrganizationQuery,
        response: fullOrganizationSchema.nullable(),
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { organizationId, organizationSlug, membersLimit } = query;
        const { organization: full } = await call(organization, organization.getFullOrganization, { caller, organizationId, organizationSlug, membersLimit: membersLimit ?? 0 });
        json(full ? fullOrganizationResponse(full) : null);
      },
    ),
  );

  // The current client's organization without members and invitations.
  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/get-organization",
        tag: "Organizations",
        session: "required",
        summary: "An organization",
        query: targetQuery,
        response: organizationSchema.nullable(),
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { organizationId, organizationSlug } = query;
        const { organization: full } = await call(organization, organization.getFullOrganization, { caller, organizationId, organizationSlug, membersLimit: 0 });
        json(full ? organizationResponse(full.organization!) : null);
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/set-active",
        tag: "Organizations",
        session: "required",
        summary: "Set the session's active organization",
        body: setActiveBody,
        response: fullOrganizationSchema.nullable(),
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { organization: full } = await call(organization, organization.setActiveOrganization, {
          caller,
          organizationId: body.organizationId ?? undefined,
          organizationSlug: body.organizationSlug,
          unset: body.organizationId === null && !body.organizationSlug,
        });
        json(full ? fullOrganizationResponse(full) : null);
      },
    ),
  );

  routes.push(
    defineRoute(
      { method: "get", path: "/organization/list", tag: "Organizations", session: "required", summary: "The caller's organizations", response: z.array(organizationSchema) },
      async ({ req, session, json }) => {
        const caller = callerOf(req, session);
        const { organizations } = await call(organization, organization.listOrganizations, { userId: caller.userId });
        json(organizationListResponse(organizations));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/list-members",
        tag: "Organizations",
        session: "required",
        summary: "An organization's members",
        query: listMembersQuery,
        response: memberListSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "NO_ACTIVE_ORGANIZATION"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
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
        json(memberListResponse(page.members, page.total));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/get-active-member",
        tag: "Organizations",
        session: "required",
        summary: "The caller's membership",
        query: targetQuery,
        response: memberSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "NO_ACTIVE_ORGANIZATION", "MEMBER_NOT_FOUND"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { member } = await call(organization, organization.getActiveMember, { caller, ...query });
        json(memberResponse(member!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/get-active-member-role",
        tag: "Organizations",
        session: "required",
        summary: "The caller's role",
        query: activeRoleQuery,
        response: memberRoleSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "NO_ACTIVE_ORGANIZATION", "MEMBER_NOT_FOUND"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        // Another member's role is not served here: list-members shows it to members.
        if (query.userId && query.userId !== caller.userId) throw new AuthError("VALIDATION_ERROR", "Invalid userId: only the caller's own role is served");
        const { member } = await call(organization, organization.getActiveMember, { caller, organizationId: query.organizationId, organizationSlug: query.organizationSlug });
        json(memberRoleResponse(member!.role));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/invite-member",
        tag: "Organizations",
        session: "required",
        summary: "Invite someone by email",
        body: inviteBody,
        response: invitationSchema,
        errors: [
          "ORGANIZATION_NOT_FOUND",
          "MEMBER_NOT_FOUND",
          "INVALID_EMAIL",
          "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION",
          "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION",
          "ROLE_NOT_FOUND",
          "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
          "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
          "INVITATION_LIMIT_REACHED",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { invitation } = await call(organization, organization.inviteMember, {
          caller,
          email: body.email,
          role: body.role,
          organizationId: body.organizationId,
          resend: body.resend ?? false,
          language: req.facts.language,
        });
        json(invitationResponse(invitation!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/get-invitation",
        tag: "Organizations",
        session: "required",
        summary: "An invitation addressed to the caller",
        query: invitationQuery,
        response: invitationDetailSchema,
        errors: ["INVITATION_NOT_FOUND", "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const found = await call(organization, organization.getInvitation, { caller, invitationId: query.id });
        json(invitationDetailResponse(found));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/list-invitations",
        tag: "Organizations",
        session: "required",
        summary: "An organization's invitations",
        query: organizationQuery,
        response: z.array(invitationSchema),
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "NO_ACTIVE_ORGANIZATION"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { invitations } = await call(organization, organization.listInvitations, { caller, organizationId: query.organizationId });
        json(invitationListResponse(invitations));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/organization/list-user-invitations",
        tag: "Organizations",
        session: "required",
        summary: "Invitations addressed to the caller (none while the address is unverified)",
        response: z.array(userInvitationSchema),
      },
      async ({ req, session, json }) => {
        const caller = callerOf(req, session);
        const { invitations } = await call(organization, organization.listUserInvitations, { caller });
        json(userInvitationListResponse(invitations));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/accept-invitation",
        tag: "Organizations",
        session: "required",
        summary: "Accept an invitation",
        body: invitationIdBody,
        response: acceptedInvitationSchema,
        errors: [
          "INVITATION_NOT_FOUND",
          "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
          "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
          "INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const accepted = await call(organization, organization.acceptInvitation, { caller, invitationId: body.invitationId });
        json(acceptedInvitationResponse(accepted.invitation!, accepted.member!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/reject-invitation",
        tag: "Organizations",
        session: "required",
        summary: "Reject an invitation",
        body: invitationIdBody,
        response: rejectedInvitationSchema,
        errors: ["INVITATION_NOT_FOUND", "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { invitation } = await call(organization, organization.rejectInvitation, { caller, invitationId: body.invitationId });
        json(rejectedInvitationResponse(invitation!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/cancel-invitation",
        tag: "Organizations",
        session: "required",
        summary: "Cancel an invitation",
        body: invitationIdBody,
        response: invitationSchema,
        errors: ["INVITATION_NOT_FOUND", "MEMBER_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { invitation } = await call(organization, organization.cancelInvitation, { caller, invitationId: body.invitationId });
        json(invitationResponse(invitation!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/remove-member",
        tag: "Organizations",
        session: "required",
        summary: "Remove a member",
        body: removeBody,
        response: removedMemberSchema,
        errors: [
          "ORGANIZATION_NOT_FOUND",
          "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
          "NO_ACTIVE_ORGANIZATION",
          "MEMBER_NOT_FOUND",
          "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
          "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { member } = await call(organization, organization.removeMember, { caller, memberIdOrEmail: body.memberIdOrEmail, organizationId: body.organizationId });
        json(removedMemberResponse(member!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/update-member-role",
        tag: "Organizations",
        session: "required",
        summary: "Change a member's role",
        body: updateRoleBody,
        response: memberSchema,
        errors: [
          "ORGANIZATION_NOT_FOUND",
          "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
          "NO_ACTIVE_ORGANIZATION",
          "MEMBER_NOT_FOUND",
          "ROLE_NOT_FOUND",
          "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
          "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { member } = await call(organization, organization.updateMemberRole, { caller, memberId: body.memberId, role: body.role, organizationId: body.organizationId });
        json(memberResponse(member!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/leave",
        tag: "Organizations",
        session: "required",
        summary: "Leave an organization",
        body: organizationIdBody,
        response: memberSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "MEMBER_NOT_FOUND", "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { member } = await call(organization, organization.leaveOrganization, { caller, organizationId: body.organizationId });
        json(memberResponse(member!));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/check-slug",
        tag: "Organizations",
        session: "required",
        summary: "Whether a slug is free",
        body: slugBody,
        response: statusSchema,
        errors: ["ORGANIZATION_ALREADY_EXISTS"],
      },
      async ({ body, json }) => {
        await call(organization, organization.checkSlug, { slug: body.slug });
        json(slugAvailableResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/organization/has-permission",
        tag: "Organizations",
        session: "required",
        summary: "Whether the caller's role allows actions",
        body: permissionBody,
        response: permissionSchema,
        errors: ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "NO_ACTIVE_ORGANIZATION"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const asked = body.permissions ?? body.permission;
        if (!asked || !Object.keys(asked).length) throw new AuthError("VALIDATION_ERROR", "Invalid permissions: required");
        const permissions = Object.fromEntries(Object.entries(asked).map(([resource, list]) => [resource, { actions: list }]));
        const { success } = await call(organization, organization.hasPermission, { caller, organizationId: body.organizationId, permissions });
        json(permissionResponse(success));
      },
    ),
  );
  return routes;
}
