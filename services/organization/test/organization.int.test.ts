/**
 * The organization service on its own (testing/service-harness.ts): its real gRPC server under mutual TLS,
 * its real store on a fresh database, and its invitation mail worker; identity, session and notification
 * are fake gRPC peers that answer with the test's users and record what they were asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetUsersResponse, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { NotificationServiceService, type SendEmailRequest, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { SessionServiceService, type SetActiveOrganizationRequest } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import { type FakePeer, fakePeer, harnessEnv, peerCodeOf, REFUSED, type ServiceUnderTest, startServiceUnderTest } from "../../../testing/service-harness.js";
import { organizationConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { start } from "../src/start.js";

/** The users identity knows, by id. */
const users = new Map<string, { id: string; name: string; email: string }>();
const mails: SendEmailRequest[] = [];
const activeSet: SetActiveOrganizationRequest[] = [];

let peers: FakePeer[] = [];
let service: ServiceUnderTest<Registry>;
let gateway: OrganizationServiceClient;

beforeAll(async () => {
  const env = await harnessEnv();
  const identity = await fakePeer(
    "identity",
    IdentityServiceService,
    {
      getUsers: (req: { ids: string[]; emails: string[] }) =>
        GetUsersResponse.fromPartial({
          users: [...users.values()].filter((u) => req.ids.includes(u.id) || req.emails.includes(u.email)).map((u) => ({ ...u, emailVerified: true })),
        }),
    },
    env,
  );
  const session = await fakePeer(
    "session",
    SessionServiceService,
    {
      setActiveOrganization: (req: SetActiveOrganizationRequest) => {
        activeSet.push(req);
        return {};
      },
      clearActiveOrganization: () => ({}),
    },
    env,
  );
  const notification = await fakePeer(
    "notification",
    NotificationServiceService,
    {
      sendEmail: (req: SendEmailRequest) => {
        mails.push(req);
        return { messageId: newId() };
      },
    },
    env,
  );
  peers = [identity, session, notification];
  service = await startServiceUnderTest({
    name: "organization",
    configure: organizationConfig,
    start,
    databaseVar: "ORGANIZATION_DATABASE_URL",
    env: {
      IDENTITY_SERVICE_URL: identity.url,
      SESSION_SERVICE_URL: session.url,
      NOTIFICATION_SERVICE_URL: notification.url,
      AUTH_APP_URL: "https://app.example.test",
    },
  });
  gateway = service.clientAs(OrganizationServiceClient, "gateway");
});
afterAll(async () => {
  await service?.stop();
  await Promise.all(peers.map((peer) => peer.close()));
});

/** A user identity knows, and the caller the gateway names for them. */
function aUser(name: string): Caller {
  const id = newId();
  const email = `${name}-${id}@example.com`.toLowerCase();
  users.set(id, { id, name, email });
  return { userId: id, email, sessionId: `session-${id}`, emailVerified: true };
}

async function anOrganization(owner: Caller) {
  const slug = `acme-${newId().toLowerCase()}`;
  const { organization } = await call(gateway, gateway.createOrganization, { caller: owner, userId: "", name: "Acme", slug, metadata: {}, keepActiveOrganization: false });
  return organization!;
}

const memberRoles = async (caller: Caller, organizationId: string) =>
  Object.fromEntries(
    (
      await call(gateway, gateway.listMembers, {
        caller,
        organizationId,
        limit: 0,
        offset: 0,
        sortBy: "",
        descending: false,
        filterField: "",
        filterOperator: "",
        filterValues: [],
      })
    ).members.map((m) => [m.userId, m.role]),
  );

describe(`the organization service on its own (${backendLabel()})`, () => {
  it("creates an organization with its creator as owner, and makes it the creator's active organization", async () => {
    const owner = aUser("Olivia");
    const full = await anOrganization(owner);
    expect(full.organization).toMatchObject({ name: "Acme" });
    expect(full.members).toEqual([expect.objectContaining({ userId: owner.userId, role: "owner" })]);
    expect(activeSet).toContainEqual(expect.objectContaining({ sessionId: owner.sessionId, organizationId: full.organization!.id }));
    expect(await service.deps.store.findMember(full.organization!.id, owner.userId)).toMatchObject({ role: "owner" });
  });

  it("invites by mail through notification, and the invitee who accepts becomes a member with the invited role", async () => {
    const owner = aUser("Olivia");
    const invitee = aUser("Ivan");
    const organizationId = (await anOrganization(owner)).organization!.id;
    const { invitation } = await call(gateway, gateway.inviteMember, { caller: owner, email: invitee.email, role: "admin", organizationId, resend: false });
    expect(invitation).toMatchObject({ email: invitee.email, role: "admin", status: "pending", inviterId: owner.userId });

    // The worker hands the mail to notification after the invitation is stored.
    const mail = await eventually(async () => {
      const found = mails.find((m) => m.to === invitee.email);
      if (!found) throw new Error("no invitation mail yet");
      return found;
    });
    expect(mail).toMatchObject({
      template: Template.TEMPLATE_ORGANIZATION_INVITATION,
      variables: expect.objectContaining({ url: `https://app.example.test/accept-invitation/${invitation!.id}`, inviter_name: "Olivia" }),
    });

    const accepted = await call(gateway, gateway.acceptInvitation, { caller: invitee, invitationId: invitation!.id });
    expect(accepted.invitation?.status).toBe("accepted");
    expect(accepted.member).toMatchObject({ userId: invitee.userId, role: "admin" });
    expect(await memberRoles(owner, organizationId)).toEqual({ [owner.userId]: "owner", [invitee.userId]: "admin" });
  });

  it("removes a deleted user's memberships when identity asks, and refuses that to anyone else", async () => {
    const owner = aUser("Olivia");
    const member = aUser("Mia");
    const organizationId = (await anOrganization(owner)).organization!.id;
    const { invitation } = await call(gateway, gateway.inviteMember, { caller: owner, email: member.email, role: "member", organizationId, resend: false });
    await call(gateway, gateway.acceptInvitation, { caller: member, invitationId: invitation!.id });

    expect(await peerCodeOf(call(gateway, gateway.removeUserMemberships, { userId: member.userId }))).toEqual(REFUSED);
    expect(await memberRoles(owner, organizationId)).toEqual({ [owner.userId]: "owner", [member.userId]: "member" });

    const identity = service.clientAs(OrganizationServiceClient, "identity");
    await call(identity, identity.removeUserMemberships, { userId: member.userId });
    expect(await memberRoles(owner, organizationId)).toEqual({ [owner.userId]: "owner" });
  });

  it("answers our users' services which role a member has, and refuses them everything the gateway does", async () => {
    const owner = aUser("Olivia");
    const organizationId = (await anOrganization(owner)).organization!.id;
    const ours = service.clientAs(OrganizationServiceClient, "internal-client");
    expect((await call(ours, ours.getMembership, { userId: owner.userId, organizationId })).member).toMatchObject({ userId: owner.userId, role: "owner" });
    expect(await peerCodeOf(call(ours, ours.inviteMember, { caller: owner, email: "x@example.com", role: "member", organizationId, resend: false }))).toEqual(REFUSED);
    expect(await peerCodeOf(call(gateway, gateway.getMembership, { userId: owner.userId, organizationId }))).toEqual(REFUSED);
  });
});
