/**
 * The organization service's webhook events end to end (docs/adr/0077-signed-webhooks.md): organization,
 * member and invitation changes made through the HTTP API reach a real receiver verifying each delivery with
 * the `standardwebhooks` package (teams, their places and invitation resends included), once each, with their public fields (never an invitation's id, which its
 * link carries); changes made while the notification service is stopped are delivered once after its restart.
 */
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { type RunningNotification, startNotification } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { join, organizationOf, person } from "./organization-fixtures.js";
import { type Received, startReceiver } from "./webhook-receiver.js";

const ORGANIZATION_EVENT_TYPES = [
  "organization.created",
  "organization.updated",
  "organization.deleted",
  "member.added",
  "member.updated",
  "member.removed",
  "invitation.created",
  "invitation.accepted",
  "invitation.rejected",
  "invitation.canceled",
  "invitation.resent",
  "team.created",
  "team.updated",
  "team.deleted",
  "team_member.added",
  "team_member.removed",
];

const receiver = await startReceiver();
let restarted: RunningNotification | undefined;

/** The organization a delivery's data is about. */
function organizationOfEvent(data: any): string | undefined {
  return data.organization?.id ?? data.member?.organizationId ?? data.invitation?.organizationId ?? data.team?.organizationId ?? data.teamMember?.organizationId;
}

describe(`organization webhook events (${backendLabel()})`, () => {
  const notificationEnv = { NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" };
  const platform = usePlatform({ serviceEnv: { notification: notificationEnv } });
  let admin: WebhookServiceClient;
  const created: string[] = [];
  beforeAll(() => {
    admin = createGrpcClient(WebhookServiceClient, platform.env.NOTIFICATION_SERVICE_URL!, { tls: platform.grpcTls("admin"), serverName: "notification" });
  });
  afterEach(async () => {
    for (const id of created.splice(0)) await call(admin, admin.deleteWebhookEndpoint, { id }).catch(() => undefined);
  });
  afterAll(async () => {
    admin?.close();
    await restarted?.close();
    await receiver.close();
  });

  async function endpointAt(path: string) {
    const { endpoint, secret } = await call(admin, admin.createWebhookEndpoint, { url: `${receiver.origin}${path}`, eventTypes: ORGANIZATION_EVENT_TYPES, description: path });
    created.push(endpoint!.id);
    receiver.secrets.set(path, secret);
    return endpoint!.id;
  }

  /** The verified deliveries to `path` about the organization, as [type, data]. */
  const about = (path: string, organizationId: string) =>
    receiver.received
      .filter((r): r is Received & { verified: Exclude<Received["verified"], Error> } => r.path === path && !(r.verified instanceof Error))
      .filter((r) => organizationOfEvent(r.verified.data) === organizationId)
      .map((r) => [r.verified.type, r.verified.data] as const);

  const pendingEvents = async (organizationId: string) =>
    (await platform.services.organization.deps.store.findDueOrganizationEvents(new Date(Date.now() + 86_400_000), 10_000)).filter((e) => e.organizationId === organizationId);

  it("each organization, member and invitation change reaches the endpoint once, signed, with its public fields", async () => {
    await endpointAt("/orgs");
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const bob = await person(platform, "Bob");
    const org = await organizationOf(ada);
    const owner = org.members[0];
    expect((await ada.c.post("/organization/update", { data: { name: "Renamed" }, organizationId: org.id })).status).toBe(200);
    const member = await join(ada, grace, org.id, "member");
    expect((await ada.c.post("/organization/update-member-role", { memberId: member.id, role: "admin", organizationId: org.id })).status).toBe(200);
    expect((await ada.c.post("/organization/remove-member", { memberIdOrEmail: member.id, organizationId: org.id })).status).toBe(200);
    const rejected = (await ada.c.post("/organization/invite-member", { email: bob.email, role: "member", organizationId: org.id })).body;
    expect((await bob.c.post("/organization/reject-invitation", { invitationId: rejected.id })).status).toBe(200);
    const canceled = (await ada.c.post("/organization/invite-member", { email: bob.email, role: "admin", organizationId: org.id })).body;
    expect((await ada.c.post("/organization/invite-member", { email: bob.email, role: "admin", organizationId: org.id, resend: true })).status).toBe(200);
    expect((await ada.c.post("/organization/cancel-invitation", { invitationId: canceled.id })).status).toBe(200);
    const team = (await ada.c.post("/organization/create-team", { name: "Engines", organizationId: org.id })).body;
    expect((await ada.c.post("/organization/update-team", { teamId: team.id, data: { name: "Gears", organizationId: org.id } })).status).toBe(200);
    expect((await ada.c.post("/organization/add-team-member", { teamId: team.id, userId: ada.user.id })).status).toBe(200);
    expect((await ada.c.post("/organization/remove-team-member", { teamId: team.id, userId: ada.user.id })).status).toBe(200);
    expect((await ada.c.post("/organization/remove-team", { teamId: team.id, organizationId: org.id })).status).toBe(200);
    expect((await ada.c.post("/organization/delete", { organizationId: org.id })).status).toBe(200);

    const organization = { id: org.id, name: org.name, slug: org.slug };
    const renamed = { ...organization, name: "Renamed" };
    const asMember = (m: { id: string; userId: string; role: string }, role = m.role) => ({ id: m.id, organizationId: org.id, userId: m.userId, role });
    const invitationTo = (email: string, role: string, status: string) => ({ organizationId: org.id, email, role, status, inviterId: ada.user.id, expiresAt: expect.any(String) });
    const expected = [
      ["organization.created", { organization }],
      ["member.added", { member: asMember(owner) }],
      ["organization.updated", { organization: renamed }],
      ["invitation.created", { invitation: invitationTo(grace.email, "member", "pending") }],
      ["invitation.accepted", { invitation: invitationTo(grace.email, "member", "accepted"), member: asMember(member) }],
      ["member.added", { member: asMember(member) }],
      ["member.updated", { member: asMember(member, "admin"), previousRole: "member" }],
      ["member.removed", { member: asMember(member, "admin") }],
      ["invitation.created", { invitation: invitationTo(bob.email, "member", "pending") }],
      ["invitation.rejected", { invitation: invitationTo(bob.email, "member", "rejected") }],
      ["invitation.created", { invitation: invitationTo(bob.email, "admin", "pending") }],
      ["invitation.resent", { invitation: invitationTo(bob.email, "admin", "pending") }],
      ["invitation.canceled", { invitation: invitationTo(bob.email, "admin", "canceled") }],
      ["team.created", { team: { id: team.id, organizationId: org.id, name: "Engines" } }],
      ["team.updated", { team: { id: team.id, organizationId: org.id, name: "Gears" } }],
      ["team_member.added", { teamMember: { teamId: team.id, organizationId: org.id, userId: ada.user.id } }],
      ["team_member.removed", { teamMember: { teamId: team.id, organizationId: org.id, userId: ada.user.id } }],
      ["team.deleted", { team: { id: team.id, organizationId: org.id, name: "Gears" } }],
      // The deletion removes each member, then the organization.
      ["member.removed", { member: asMember(owner) }],
      ["organization.deleted", { organization: renamed }],
    ];
    // Each once: as many deliveries as changes, every one matched (they may arrive in any order).
    await eventually(async () => expect(about("/orgs", org.id)).toHaveLength(expected.length));
    expect(about("/orgs", org.id)).toEqual(expect.arrayContaining(expected));
    const bodies = receiver.received.filter((r) => r.path === "/orgs").map((r) => r.body);
    for (const id of [rejected.id, canceled.id]) expect(bodies.join("\n")).not.toContain(id);
    // The outbox is emptied once notification took each event.
    await eventually(async () => expect(await pendingEvents(org.id)).toEqual([]));
  });

  it("partition: changes made while the notification service is down are each delivered once after it is back", async () => {
    const endpointId = await endpointAt("/outage");
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    await platform.services.notification.close();
    const org = await organizationOf(ada);
    const member = await join(ada, grace, org.id, "member");
    // organization holds every event; none could be published.
    await eventually(async () =>
      expect((await pendingEvents(org.id)).map((e) => e.type).sort()).toEqual([
        "invitation.accepted",
        "invitation.created",
        "member.added",
        "member.added",
        "organization.created",
      ]),
    );
    expect(about("/outage", org.id)).toEqual([]);
    restarted = await startNotification({ ...platform.env, ...notificationEnv });
    // The worker's retries backed off while notification was down: let them come due.
    platform.clock.advance(120_000);
    await eventually(async () =>
      expect(
        about("/outage", org.id)
          .map(([type]) => type)
          .sort(),
      ).toEqual(["invitation.accepted", "invitation.created", "member.added", "member.added", "organization.created"]),
    );
    expect(about("/outage", org.id)).toContainEqual(["member.added", { member: { id: member.id, organizationId: org.id, userId: grace.user.id, role: "member" } }]);
    await eventually(async () => expect(await pendingEvents(org.id)).toEqual([]));
    await eventually(async () =>
      expect((await call(admin, admin.listWebhookDeliveries, { endpointId, limit: 50 })).deliveries.map((d) => `${d.status} ${d.attempts}`)).toEqual(Array(5).fill("delivered 1")),
    );
  });
});
