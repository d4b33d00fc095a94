/** The security event reporter: never in the way of the user's action, retries, bounded, bursts once per window. */
import type { Request } from "express";
import { describe, expect, it } from "vitest";
import type { AdminServiceClient, AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { createLogger } from "@auth-platform/runtime/log";
import { eventually } from "../../../testing/eventually.js";
import { QUEUE_LIMIT, securityEventReporter } from "./security-events.js";
import type { CurrentSession } from "./session.js";

type Answer = (event: AuditEvent) => Error | null | "never";

/** A stand-in admin client whose RecordEvent answers as `answer` says (an Error with a gRPC code fails it). */
function fakeAdmin(answer: Answer) {
  const received: AuditEvent[] = [];
  const client = {
    recordEvent(request: { event: AuditEvent }, _metadata: unknown, _options: unknown, callback: (error: Error | null, response?: object) => void) {
      received.push(request.event);
      const outcome = answer(request.event);
      if (outcome !== "never") setImmediate(() => callback(outcome, outcome ? undefined : {}));
    },
  } as unknown as AdminServiceClient;
  return { client, received };
}

const lines: string[] = [];
const log = createLogger("gateway", "warn", (line) => void lines.push(line));
const req = { facts: { ipAddress: "203.0.113.9", userAgent: "ua" } } as unknown as Request;
const current = { user: { id: "u1" }, session: { impersonatedBy: "admin-1" } } as unknown as CurrentSession;
const unavailable = () => Object.assign(new Error("unavailable"), { code: 14, details: "unavailable", metadata: { get: () => [] } });
const until = (check: () => boolean) =>
  eventually(async () => {
    if (!check()) throw new Error(`not yet: ${check}`);
  });

describe("securityEventReporter", () => {
  it("flush (on stop) waits until the queued events are delivered, retries included", async () => {
    let calls = 0;
    const admin = fakeAdmin(() => (++calls < 3 ? unavailable() : null));
    const events = securityEventReporter(admin.client, log, { firstRetryMs: 1 });
    expect(await events.flush(1)).toBe(true);
    events.report({ action: "first", outcome: "success" });
    events.report({ action: "second", outcome: "success" });
    expect(await events.flush(2_000)).toBe(true);
    expect(admin.received.map((e) => e.action)).toEqual(["first", "first", "first", "second"]);
  });

  it("flush gives up after its time and says how many events were lost", async () => {
    const admin = fakeAdmin(() => unavailable());
    const events = securityEventReporter(admin.client, log, { firstRetryMs: 1 });
    lines.length = 0;
    events.report({ action: "first", outcome: "success" });
    events.report({ action: "second", outcome: "success" });
    const started = Date.now();
    expect(await events.flush(100)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(lines.some((line) => line.includes("security events not delivered before stopping") && line.includes('"lost":2'))).toBe(true);
  });

  it("answers the action's result at once, even when the admin service never answers", async () => {
    const admin = fakeAdmin(() => "never");
    const events = securityEventReporter(admin.client, log);
    const started = Date.now();
    await expect(events.reported(req, current, "user.change-email", async () => 42)).resolves.toBe(42);
    await expect(events.reported(req, current, "user.change-email", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(Date.now() - started).toBeLessThan(100);
  });

  it("retries an unreachable admin service and delivers the same event id", async () => {
    let calls = 0;
    const admin = fakeAdmin(() => (++calls < 3 ? unavailable() : null));
    const events = securityEventReporter(admin.client, log);
    await events.reported(req, current, "session.revoke-own", async () => undefined);
    await until(() => calls >= 3);
    expect(admin.received).toHaveLength(3);
    expect(new Set(admin.received.map((e) => e.id)).size).toBe(1);
    expect(admin.received[0]).toMatchObject({
      action: "session.revoke-own",
      actorId: "u1",
      targetId: "u1",
      impersonatorId: "admin-1",
      ipAddress: "203.0.113.9",
      userAgent: "ua",
      outcome: "success",
    });
  });

  it("keeps retrying, in order, for as long as the admin service is unreachable; drops only what it refuses", async () => {
    let down = true;
    const admin = fakeAdmin((event) =>
      down
        ? unavailable()
        : event.action === "bad"
          ? Object.assign(new Error("bad"), { code: 3, details: "bad", metadata: { get: (key: string) => (key === "x-error-code" ? ["VALIDATION_ERROR"] : []) } })
          : null,
    );
    const events = securityEventReporter(admin.client, log, { firstRetryMs: 1 });
    events.report({ action: "first", outcome: "success" });
    events.report({ action: "bad", outcome: "success" });
    events.report({ action: "second", outcome: "success" });
    await until(() => admin.received.length >= 8);
    expect(new Set(admin.received.map((e) => e.action))).toEqual(new Set(["first"]));
    down = false;
    await until(() => admin.received.at(-1)?.action === "second");
    // "first" until it got through, then "bad" once (refused, dropped), then "second".
    expect(admin.received.slice(-3).map((e) => e.action)).toEqual(["first", "bad", "second"]);
  });

  it("reports each wrong two-factor code with its user, and a burst per user and per IP", async () => {
    const admin = fakeAdmin(() => null);
    const events = securityEventReporter(admin.client, log, { burstThreshold: 3, burstWindowMs: 60_000, now: () => 5_000_000 });
    for (let i = 0; i < 3; i++) events.twoFactorFailed(req, "u2", { method: "totp", error: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    await until(() => admin.received.length >= 5);
    const verify = admin.received.filter((e) => e.action === "two-factor.verify");
    expect(verify).toHaveLength(3);
    expect(verify[0]).toMatchObject({ targetId: "u2", outcome: "failure", ipAddress: "203.0.113.9", details: { method: "totp", signedIn: false } });
    expect(verify[0]!.actorId).toBeUndefined();
    const bursts = admin.received.filter((e) => e.action === "two-factor.failure-burst");
    expect(bursts.map((e) => [e.details?.scope, e.targetId])).toEqual([
      ["account", "u2"],
      ["ip", undefined],
    ]);
    events.twoFactorFailed(req, "u1", { method: "otp", error: "INVALID_TWO_FACTOR_AUTHENTICATION" }, current);
    await until(() => admin.received.length >= 6);
    expect(admin.received[5]).toMatchObject({ action: "two-factor.verify", actorId: "u1", impersonatorId: "admin-1", targetId: "u1", details: { signedIn: true } });
  });

  it("drops reports past the queue limit instead of growing", async () => {
    const admin = fakeAdmin(() => "never");
    const events = securityEventReporter(admin.client, log);
    lines.length = 0;
    for (let i = 0; i < QUEUE_LIMIT + 3; i++) events.report({ action: "x", outcome: "success" });
    expect(lines.filter((line) => line.includes("queue full"))).toHaveLength(3);
  });

  it("reports a burst once per window per account and per IP, with a stable id", async () => {
    let now = 1_000_000;
    const admin = fakeAdmin(() => null);
    const bursts: unknown[] = [];
    const events = securityEventReporter(admin.client, log, { burstThreshold: 3, burstWindowMs: 60_000, now: () => now, onSignInBurst: (burst) => bursts.push(burst) });
    const other = { facts: { ipAddress: "198.51.100.4", userAgent: "ua" } } as unknown as Request;
    events.signInFailed(other, "grace@example.com");
    for (let i = 0; i < 6; i++) events.signInFailed(req, "Grace@Example.com");
    await until(() => admin.received.length >= 2);
    expect(admin.received.map((e) => e.details?.scope).sort()).toEqual(["account", "ip"]);
    expect(admin.received.find((e) => e.details?.scope === "account")).toMatchObject({
      action: "sign-in.failure-burst",
      details: { identifier: "grace@example.com", failures: 3, windowSeconds: 60, ipAddresses: ["198.51.100.4", "203.0.113.9"] },
    });
    const firstIds = admin.received.map((e) => e.id);
    // The account's burst, not the IP's, goes on to identity (the webhook), under the audit event's id.
    expect(bursts).toEqual([
      {
        eventId: admin.received.find((e) => e.details?.scope === "account")!.id,
        identifier: "grace@example.com",
        failures: 3,
        windowSeconds: 60,
        ipAddresses: ["198.51.100.4", "203.0.113.9"],
        at: new Date(now),
      },
    ]);
    now += 60_000;
    for (let i = 0; i < 3; i++) events.signInFailed(req, "grace@example.com");
    await until(() => admin.received.length >= 4);
    expect(admin.received).toHaveLength(4);
    expect(admin.received.slice(2).map((e) => e.id)).not.toContain(firstIds[0]);
  });
});
