/**
 * Security events (password and email changes, self-service session revocations, sign-in failure bursts)
 * reported to the admin service's audit log (AdminService/RecordEvent). The gateway reports them because it
 * is the one component that sees the actor's session, the client IP, the user agent and the outcome of each
 * (docs/decisions.md "Admin area"). A report never slows down or fails the user's action: it is queued in
 * memory (bounded) and delivered in the background, retried with backoff; the event id is chosen here, so a
 * retry is stored once. A full queue or a report out of attempts is dropped with a warning.
 */
import { createHash } from "node:crypto";
import type { Request } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import type { AdminServiceClient, AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { call } from "@auth-platform/proto/rpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { newId } from "@auth-platform/runtime/random";
import type { CurrentSession } from "./session.js";

export const QUEUE_LIMIT = 1_000;
const ATTEMPTS = 5;
const FIRST_RETRY_MS = 500;
const DEADLINE_MS = 3_000;

export interface SecurityEventReporter {
  /** Queues an event; returns at once and never throws. */
  report(event: Omit<AuditEvent, "id" | "at"> & { id?: string; at?: Date }): void;
  /** Runs an action of the signed-in user and reports it with its outcome; the action's result or error is the route's. */
  reported<T>(req: Request, current: CurrentSession, action: string, run: () => Promise<T>, details?: Record<string, unknown>): Promise<T>;
  /** Counts a failed sign-in; reports a burst once per window per account and per IP. */
  signInFailed(req: Request, identifier: string): void;
}

export function securityEventReporter(admin: AdminServiceClient, log: Logger, options: { burstThreshold?: number; burstWindowMs?: number; now?: () => number } = {}): SecurityEventReporter {
  const queue: { event: AuditEvent; attempt: number }[] = [];
  let draining = false;
  const burstThreshold = options.burstThreshold ?? 5;
  const burstWindowMs = options.burstWindowMs ?? 15 * 60_000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, { window: number; count: number }>();

  /** The one delivery loop (report() sets `draining` before starting it, so two never run). */
  async function drain(): Promise<void> {
    try {
      while (queue.length) {
        const item = queue[0]!;
        try {
          await call(admin, admin.recordEvent, { event: item.event }, { deadlineMs: DEADLINE_MS });
          queue.shift();
        } catch (error) {
          item.attempt += 1;
          // A refusal (bad event) will not succeed on a retry; an unreachable admin service may.
          if (item.attempt >= ATTEMPTS || (error instanceof AuthError && error.code === "VALIDATION_ERROR")) {
            queue.shift();
            log.warn("security event dropped", { action: item.event.action, error });
          } else {
            await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_MS * 2 ** (item.attempt - 1)).unref());
          }
        }
      }
    } finally {
      draining = false;
    }
  }

  const report: SecurityEventReporter["report"] = (event) => {
    if (queue.length >= QUEUE_LIMIT) {
      log.warn("security event dropped: queue full", { action: event.action });
      return;
    }
    queue.push({ event: { ...event, id: event.id ?? newId(), at: event.at ?? new Date(now()) }, attempt: 0 });
    // Delivered with its own deadline (no request context passed to call), never the request's.
    if (!draining) {
      draining = true;
      setImmediate(() => void drain());
    }
  };

  const clientOf = (req: Request) => ({ ipAddress: req.facts.ipAddress || undefined, userAgent: req.facts.userAgent || undefined });

  /** Counts one failure under key; true when this failure makes the window's count reach the threshold. */
  function countFailure(key: string, window: number): boolean {
    const entry = failures.get(key);
    const count = entry?.window === window ? entry.count + 1 : 1;
    failures.set(key, { window, count });
    if (failures.size > 10 * QUEUE_LIMIT) for (const [k, v] of failures) if (v.window !== window) failures.delete(k);
    return count === burstThreshold;
  }

  return {
    report,
    async reported(req, current, action, run, details = {}) {
      const base = { action, actorId: current.user.id, impersonatorId: current.session.impersonatedBy ?? undefined, targetId: current.user.id, ...clientOf(req) };
      try {
        const result = await run();
        report({ ...base, outcome: "success", details });
        return result;
      } catch (error) {
        const code = error instanceof AuthError ? error.code : "INTERNAL_SERVER_ERROR";
        report({ ...base, outcome: "failure", details: { ...details, error: code } });
        throw error;
      }
    },
    signInFailed(req, identifier) {
      const window = Math.floor(now() / burstWindowMs);
      const account = identifier.trim().toLowerCase();
      const ip = req.facts.ipAddress;
      const bursts: [string, Record<string, unknown>][] = [[`account:${account}`, { identifier: account }]];
      if (ip) bursts.push([`ip:${ip}`, {}]);
      for (const [key, details] of bursts) {
        if (!countFailure(key, window)) continue;
        // One id per key and window: replicas that each see a burst report the same event, stored once.
        const id = createHash("sha256").update(`${key}|${window}`).digest("hex").slice(0, 32);
        report({ id, action: "sign-in.failure-burst", outcome: "failure", ...clientOf(req), details: { ...details, scope: key.split(":")[0], failures: burstThreshold, windowSeconds: burstWindowMs / 1000 } });
      }
    },
  };
}
