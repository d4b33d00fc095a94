/**
 * RecordEvent, the one edge by which other services report security events to the audit log: idempotent by
 * the reporter's event id, validated, refused to a caller outside its row, and readable by admins.
 */
import { describe, expect, it } from "vitest";
import { AdminServiceClient } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { call } from "@auth-platform/proto/rpc-client";
import { newId } from "@auth-platform/runtime/random";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { usePlatform } from "../../../testing/use-platform.js";
import { anAdmin } from "../../../gateway/test/admin-fixtures.js";

const platform = usePlatform();
const clientAs = (workload: "gateway" | "identity" | "session" | "internal-client") =>
  createGrpcClient(AdminServiceClient, platform.env.ADMIN_SERVICE_URL!, { tls: platform.grpcTls(workload), serverName: "admin" });

describe("RecordEvent", () => {
  it("stores a reported event once however often it is retried, and admins read it", async () => {
    const gateway = clientAs("gateway");
    const userId = newId();
    const event = {
      id: newId(),
      action: "password.change",
      actorId: userId,
      targetId: userId,
      at: new Date(),
      ipAddress: "198.51.100.4",
      userAgent: "reporter",
      outcome: "success",
      details: { revokedOtherSessions: true },
    };
    await call(gateway, gateway.recordEvent, { event });
    await call(gateway, gateway.recordEvent, { event: { ...event, outcome: "failure" } });
    const admin = await anAdmin(platform);
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${userId}`);
    expect(log.body.total).toBe(1);
    expect(log.body.events[0]).toMatchObject({ id: event.id, action: "password.change", outcome: "success", ipAddress: "198.51.100.4", details: { revokedOtherSessions: true } });
    await expect(call(gateway, gateway.recordEvent, { event: { ...event, id: newId(), outcome: "maybe" } })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    gateway.close();
  });

  it.each(["identity", "session", "internal-client"] as const)("is refused to %s, a workload outside its row", async (workload) => {
    const outsider = clientAs(workload);
    await expect(call(outsider, outsider.recordEvent, { event: { id: newId(), action: "x", outcome: "success" } })).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
    outsider.close();
  });
});
