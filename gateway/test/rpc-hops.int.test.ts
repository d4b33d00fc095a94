/**
 * How many RPCs a request costs, counted on the servers' side of every hop (grpc_server_handled_total of
 * each service): each hop is latency a user waits for and a failure point. The counts are the design's:
 * a change that adds a hop to these paths has to change this test and say why. The gateway's own reading
 * of the caller's session is left out (a Redis read with the shared cache, a GetSession without it), and
 * so are security events and webhook events (published after the answer, off the path).
 */
import { describe, expect, it } from "vitest";
import { type Samples, sample, scrapeMetrics } from "../../testing/metrics.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin, aUser, PASSWORD } from "./admin-fixtures.js";
import { organizationOf, person } from "./organization-fixtures.js";

const platform = usePlatform({ env: { METRICS_PORT: "0" } });

const SERVICES = ["identity", "session", "organization", "admin", "oauth", "notification"] as const;

const GET_SESSION = { grpc_service: "auth.session.v1.SessionService", grpc_method: "GetSession", grpc_code: "OK" };

/** RPCs handled per method, every service, less the gateway's GetSession calls and the security events. */
async function handled(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const gateway = await scrapeMetrics(platform.gateway.metricsPort);
  counts.set("session.GetSession", -(gateway.get(sample("grpc_client_handled_total", GET_SESSION)) ?? 0));
  for (const name of SERVICES) {
    const samples: Samples = await scrapeMetrics(platform.services[name].metricsPort);
    for (const [key, value] of samples) {
      const match = /^grpc_server_handled_total\{(.*)\}$/.exec(key);
      if (!match || !match[1]!.includes(`grpc_service="auth.${name}.`)) continue;
      const method = /grpc_method="([^"]+)"/.exec(match[1]!)![1]!;
      if (method === "RecordEvent" || method === "PublishEvents") continue;
      const service = /grpc_service="([^"]+)"/.exec(match[1]!)![1]!;
      const rpc = `${service.split(".")[1]}.${method}`;
      counts.set(rpc, (counts.get(rpc) ?? 0) + value);
    }
  }
  return counts;
}

/** The RPCs `act` made, by method. */
async function hopsOf(act: () => Promise<void>): Promise<Record<string, number>> {
  const before = await handled();
  await act();
  const after = await handled();
  const made: Record<string, number> = {};
  for (const [rpc, n] of after) if (n - (before.get(rpc) ?? 0) !== 0) made[rpc] = n - (before.get(rpc) ?? 0);
  return made;
}

const total = (hops: Record<string, number>) => Object.values(hops).reduce((a, b) => a + b, 0);

describe("RPC hops per request", () => {
  it("sign-in", async () => {
    const { email } = await aUser(platform);
    const hops = await hopsOf(async () => {
      expect((await platform.client().post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
    });
    expect(hops).toEqual({ "identity.SignInEmail": 1, "session.CreateSession": 1 });
  });

  it("accept-invitation", async () => {
    const owner = await person(platform, "Owner");
    const guest = await person(platform, "Guest");
    const org = await organizationOf(owner);
    const invited = await owner.c.post("/organization/invite-member", { email: guest.email, role: "member", organizationId: org.id });
    expect(invited.status).toBe(200);
    // The invitation's mail goes out after the invite answered: not the accept's hop.
    await platform.mailSettled();
    const hops = await hopsOf(async () => {
      expect((await guest.c.post("/organization/accept-invitation", { invitationId: invited.body.id })).status).toBe(200);
    });
    // identity is read before the write and again after it (a deletion of the user meanwhile is seen).
    expect(hops).toEqual({ "organization.AcceptInvitation": 1, "identity.GetUsers": 2, "session.SetActiveOrganization": 1 });
  });

  it("ban-user, of a user and of an admin", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const userHops = await hopsOf(async () => {
      expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
    });
    // The admin service trusts the caller the gateway asserts: no GetSession of its own.
    expect(userHops).toEqual({ "admin.BanUser": 1, "identity.GetUser": 1, "identity.BanUser": 1, "session.RevokeUserSessions": 1 });
    expect(total(userHops)).toBe(4);
    const other = await anAdmin(platform);
    const adminHops = await hopsOf(async () => {
      expect((await admin.c.post("/admin/ban-user", { userId: other.id })).status).toBe(200);
    });
    // Banning an admin reads the calling admin afresh too (the last-admin rule).
    expect(adminHops).toEqual({ "admin.BanUser": 1, "identity.GetUser": 2, "identity.BanUser": 1, "session.RevokeUserSessions": 1 });
  });
});
