/**
 * WatchUserEvents under the internal-client certificate, against the platform: a ban, an unban, a role
 * change, a profile update and a deletion made through the gateway each reach the watcher as a user id and
 * a kind, nothing more (docs/adr/0078-internal-services-watch-revocations.md); a workload outside the row is
 * refused.
 */
import * as grpc from "@grpc/grpc-js";
import { SessionServiceClient, UserEventKind, type WatchUserEventsResponse } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { afterAll, describe, expect, it } from "vitest";
import { aUser, anAdmin, PASSWORD } from "../../../gateway/test/admin-fixtures.js";
import { backendLabel } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import { usePlatform } from "../../../testing/use-platform.js";

const platform = usePlatform();
const clients: grpc.Client[] = [];
afterAll(() => {
  for (const c of clients) c.close();
});
const sessionClient = (workload: "internal-client" | "notification") => {
  const client = createGrpcClient(SessionServiceClient, platform.sessionAddress, { tls: platform.grpcTls(workload), serverName: "session" });
  clients.push(client);
  return client;
};

describe(`WatchUserEvents (${backendLabel()})`, () => {
  it("tells an internal watcher who was banned, unbanned, given a role, updated and deleted, and nothing else", async () => {
    const stream = sessionClient("internal-client").watchUserEvents({ watcherId: "user-events-test" });
    const events: WatchUserEventsResponse[] = [];
    stream.on("data", (event: WatchUserEventsResponse) => events.push(event));
    stream.on("error", () => undefined);
    await new Promise<void>((resolve) => stream.once("metadata", () => resolve()));

    const admin = await anAdmin(platform);
    const user = await aUser(platform, "Watched");
    const kinds = () => events.filter((e) => e.userId === user.id).map((e) => e.kind);
    const expectLast = (kind: UserEventKind) => eventually(async () => expect(kinds().at(-1)).toBe(kind));

    expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
    // A ban is applied with the sessions it ends, before the ban answers.
    expect(kinds()).toContain(UserEventKind.USER_EVENT_KIND_BANNED);
    expect((await admin.c.post("/admin/unban-user", { userId: user.id })).status).toBe(200);
    await expectLast(UserEventKind.USER_EVENT_KIND_UNBANNED);
    expect((await admin.c.post("/admin/set-role", { userId: user.id, role: "admin" })).status).toBe(200);
    await expectLast(UserEventKind.USER_EVENT_KIND_ROLE_CHANGED);

    const signedIn = platform.client();
    expect((await signedIn.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    expect((await signedIn.post("/update-user", { name: "Renamed" })).status).toBe(200);
    await expectLast(UserEventKind.USER_EVENT_KIND_UPDATED);
    expect((await admin.c.post("/admin/remove-user", { userId: user.id })).status).toBe(200);
    await expectLast(UserEventKind.USER_EVENT_KIND_DELETED);

    // Who and what only: no field of the user, no token, no lookup.
    for (const event of events) expect(Object.keys(event).sort()).toEqual(["kind", "occurredAt", "userId"]);
    expect(kinds().indexOf(UserEventKind.USER_EVENT_KIND_BANNED)).toBeLessThan(kinds().indexOf(UserEventKind.USER_EVENT_KIND_UNBANNED));
    stream.cancel();
  });

  it("refuses a workload outside its row", async () => {
    const stream = sessionClient("notification").watchUserEvents({ watcherId: "x" });
    const status = await new Promise<grpc.StatusObject>((resolve) => {
      stream.on("error", () => undefined);
      stream.on("status", resolve);
    });
    expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
  });
});
