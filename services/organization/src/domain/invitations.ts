/**
 * Invitation use cases (docs/organizations.md#invitations): invite (and resend), read, list, accept, reject, cancel. Accepting,
 * rejecting and reading need a pending, unexpired invitation and the caller to be its recipient (session
 * email equals the invitation email, lower-cased). The mail, with a link to the web app's invitation page,
 * is written to the invitation_mail outbox in the invitation's transaction and handed to the notification
 * service by the invitation mail worker (invitation-mail-worker.ts), so an invite answered with success
 * always mails, even when notification is down at that moment.
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId } from "@auth-platform/runtime/random";
import type { InvitationRecord, MemberRecord, NewInvitationMail } from "../store/organization-store.js";
import { invitationMailKey } from "./invitation-mail-worker.js";
import { actorCheck, mayGrant, requireActor, requireMember, requireOrganization, requirePermission, targetId } from "./access.js";
import { scoped } from "./custom-roles.js";
import type { Caller, Registry } from "./ports.js";
import { requireLiveMember, withUsers } from "./members.js";
import { isKnownRole } from "./roles.js";
import { undoOnFailure } from "./undo.js";

type Deps = Pick<Registry, "config" | "store" | "users" | "sessions" | "invitationMails" | "log" | "now">;

export interface InviteInput {
  email: string;
  role: string;
  organizationId?: string;
  resend: boolean;
  /** The inviter's language (their request's): the invitation mail is written in it. */
  language?: Language;
}

/**
 * The rule for a member inviting with `role`, at invite time and again at accept time (for the inviter as
 * they are then): the invitation create permission (else `noPermission`), and a role they may give (else
 * `cannotGive`).
 */
function mayInvite(deps: Deps, role: string, noPermission: ErrorCode, cannotGive: ErrorCode) {
  return (member: MemberRecord) => {
    requirePermission(deps, member, "invitation", "create", noPermission);
    if (!mayGrant(deps, member, role)) throw new AuthError(cannotGive);
  };
}

export async function inviteMember(unscoped: Deps, caller: Caller, input: InviteInput): Promise<InvitationRecord> {
  // better-auth's answers: none named or active is "Organization not found"; a non-member, and an
  // organization that does not exist (membership is read first), "Member not found" (docs/adr/0050-organization-refusals-of-non-members.md).
  const organizationId = targetId(caller, input.organizationId, "ORGANIZATION_NOT_FOUND");
  const deps = await scoped(unscoped, organizationId);
  const email = input.email.toLowerCase();
  const inviterWith = (role: string) =>
    actorCheck(caller, mayInvite(deps, role, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION", "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE"), "MEMBER_NOT_FOUND");
  const inviter = inviterWith(input.role);
  const actor = await requireActor(deps, organizationId, inviter);
  const organization = await requireOrganization(deps, organizationId);
  if (!isKnownRole(deps.roles, input.role)) throw new AuthError("ROLE_NOT_FOUND");

  // One identity call: the inviter's name for the mail, and whether the address already has a member.
  const users = await deps.users.getUsers([caller.userId], [email]);
  const invitee = users.find((u) => u.email === email);
  if (invitee && (await deps.store.findMember(organizationId, invitee.id))) throw new AuthError("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");

  const now = deps.now();
  const expiresAt = new Date(now.getTime() + deps.config.invitationExpiresInSeconds * 1000);
  const inviterName = users.find((u) => u.id === caller.userId)?.name;
  // Written in the invitation's transaction: both are stored or neither, and the worker mails it.
  const mailOf = (invitation: InvitationRecord): NewInvitationMail => ({
    id: newId(),
    invitationId: invitation.id,
    recipient: email,
    variables: {
      url: `${deps.config.appUrl}/accept-invitation/${invitation.id}`,
      organization_name: organization.name,
      role: invitation.role,
      ...(inviterName ? { inviter_name: inviterName } : {}),
    },
    idempotencyKey: invitationMailKey(invitation),
    language: input.language ?? null,
    nextAttemptAt: now,
    createdAt: now,
  });
  const pending = await deps.store.findPendingInvitation(organizationId, email);
  let invitation: InvitationRecord;
  if (pending && pending.expiresAt > now) {
    if (!input.resend) throw new AuthError("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
    // A resend renews the invitation with the role it has, not the one asked: the re-sender must be allowed
    // to give that role, or an admin could keep an owner's invitation alive.
    // The re-sender becomes its inviter (the mail names them): accepting checks the inviter's role then.
    const resender = inviterWith(pending.role);
    resender.check(actor);
    invitation = { ...pending, expiresAt, inviterId: caller.userId };
    if (!(await deps.store.answerInvitation(pending.id, "pending", { expiresAt, inviterId: caller.userId, actor: resender, mail: mailOf(invitation) })))
      throw new AuthError("INVITATION_NOT_FOUND");
  } else {
    invitation = { id: newId(), organizationId, email, role: input.role, status: "pending", inviterId: caller.userId, expiresAt, createdAt: now };
    // The store refuses a second pending invitation of the address, and one past the organization's limit,
    // under the organization's lock (concurrent invites).
    await deps.store.createInvitation(invitation, inviter, deps.config.invitationLimit, mailOf(invitation));
  }
  // Committed: a healthy system mails at once; otherwise the worker retries until notification answers.
  deps.invitationMails.wake();
  return invitation;
}

/** The invitation, pending and unexpired, addressed to the caller. */
async function requireOwnInvitation(deps: Deps, caller: Caller, id: string): Promise<InvitationRecord> {
  const invitation = await deps.store.findInvitation(id);
  if (invitation?.status !== "pending" || invitation.expiresAt <= deps.now()) throw new AuthError("INVITATION_NOT_FOUND");
  if (invitation.email !== caller.email.toLowerCase()) throw new AuthError("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
  return invitation;
}

export async function getInvitation(deps: Deps, caller: Caller, id: string) {
  const invitation = await requireOwnInvitation(deps, caller, id);
  const organization = await deps.store.findOrganization(invitation.organizationId);
  if (!organization) throw new AuthError("INVITATION_NOT_FOUND");
  const [inviter] = await deps.users.getUsers([invitation.inviterId], []);
  return { invitation, organizationName: organization.name, organizationSlug: organization.slug, inviterEmail: inviter?.email ?? "" };
}

export async function listInvitations(deps: Deps, caller: Caller, organizationId?: string): Promise<InvitationRecord[]> {
  const id = targetId(caller, organizationId);
  await requireMember(deps, id, caller.userId);
  return deps.store.listInvitations(id);
}

export interface UserInvitation extends InvitationRecord {
  organizationName: string;
}

/**
 * The pending, unexpired invitations addressed to the caller, each with its organization's name (read in one
 * store call; an invitation whose organization was deleted meanwhile is left out, as it can no longer be
 * accepted). Only for a verified address: an unverified user may set their address to anyone's (change-email
 * applies at once), and the list would hand them the ids of invitations mailed to that inbox. The mailed link
 * still works for its holder: having the id proves the mailbox.
 */
export async function listUserInvitations(deps: Deps, caller: Caller): Promise<UserInvitation[]> {
  if (!caller.emailVerified) return [];
  const now = deps.now();
  const pending = (await deps.store.listPendingInvitationsTo(caller.email.toLowerCase())).filter((i) => i.expiresAt > now);
  if (!pending.length) return [];
  const names = new Map((await deps.store.findOrganizations(pending.map((i) => i.organizationId))).map((o) => [o.id, o.name]));
  return pending.flatMap((invitation) => {
    const organizationName = names.get(invitation.organizationId);
    return organizationName === undefined ? [] : [{ ...invitation, organizationName }];
  });
}

/** Makes the caller a member with the invited role (once, even when two accepts race) and the organization active. */
export async function acceptInvitation(unscoped: Deps, caller: Caller, id: string): Promise<{ invitation: InvitationRecord; member: MemberRecord }> {
  const invitation = await requireOwnInvitation(unscoped, caller, id);
  const deps = await scoped(unscoped, invitation.organizationId);
  // An invitation gives what its inviter could give: one who left, or was demoted since (an admin made a
  // member), no longer hands out the role. Checked now, and again by the store under the organization's
  // lock, where a concurrent demotion or removal of the inviter is decided.
  const inviter = actorCheck(
    { userId: invitation.inviterId },
    mayInvite(deps, invitation.role, "INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE", "INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE"),
    "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
  );
  await requireActor(deps, invitation.organizationId, inviter);
  const member: MemberRecord = { id: newId(), organizationId: invitation.organizationId, userId: caller.userId, role: invitation.role, createdAt: deps.now() };
  // Read before the write: with identity down the call fails (503) with the invitation still pending.
  await requireLiveMember(deps, (await withUsers(deps, [member]))[0]!);
  if (!(await deps.store.acceptInvitation(id, member, inviter))) throw new AuthError("INVITATION_NOT_FOUND");
  // What follows calls identity and the session service; if either fails, the invitation is pending again
  // and the member gone, so the recipient's retry works.
  await undoOnFailure(
    deps,
    "accept invitation",
    () => deps.store.reopenInvitation(id, member.id),
    async () => {
      // Read again after the write: a deletion of the user that ran meanwhile is seen (requireLiveMember).
      await requireLiveMember(deps, (await withUsers(deps, [member]))[0]!);
      await deps.sessions.setActiveOrganization(caller.sessionId, invitation.organizationId);
    },
  );
  return { invitation: { ...invitation, status: "accepted" }, member };
}

export async function rejectInvitation(deps: Deps, caller: Caller, id: string): Promise<InvitationRecord> {
  const invitation = await requireOwnInvitation(deps, caller, id);
  if (!(await deps.store.answerInvitation(id, "rejected"))) throw new AuthError("INVITATION_NOT_FOUND");
  return { ...invitation, status: "rejected" };
}

/** A member whose role may cancel invitations withdraws a pending one. */
export async function cancelInvitation(unscoped: Deps, caller: Caller, id: string): Promise<InvitationRecord> {
  const invitation = await unscoped.store.findInvitation(id);
  if (!invitation) throw new AuthError("INVITATION_NOT_FOUND");
  const deps = await scoped(unscoped, invitation.organizationId);
  const canceler = actorCheck(caller, (member) => requirePermission(deps, member, "invitation", "cancel", "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION"), "MEMBER_NOT_FOUND");
  await requireActor(deps, invitation.organizationId, canceler);
  if (!(await deps.store.answerInvitation(id, "canceled", { actor: canceler }))) throw new AuthError("INVITATION_NOT_FOUND");
  return { ...invitation, status: "canceled" };
}
