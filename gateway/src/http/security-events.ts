/**
 * Security events (password and email changes, self-service session revocations, sign-in, two-factor and
 * social sign-in failures, failure bursts) reported to the admin service's audit log
 * (AdminService/RecordEvent). The gateway reports them because it is the one component that sees the
 * actor's session, the client IP, the user agent and the outcome of each (docs/adr/0032-security-events-reported-by-gateway.md).
 * A report never slows down or fails the user's action: it is queued in memory (bounded) and delivered in
 * the background in order, retried with backoff for as long as the admin service is unreachable; the event
 * id is chosen here, so a retry is stored once. Only a full queue drops a report (with a warning), and an
 * event the admin service refuses as invalid. A stopping gateway waits (bounded) for the queue to empty.
 * Without Redis a crash loses what the queue holds; with Redis the queue is a stream in Redis
 * (security-events-redis.ts) and another replica delivers what a crashed one left (docs/adr/0033-security-events-in-a-redis-stream.md).
 */
import { createHash } from "node:crypto";
import type { Request } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import type { AdminServiceClient, AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import type { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { call } from "@auth-platform/proto/rpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { type RetryLater, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import { newId } from "@auth-platform/runtime/random";
import type { CurrentSession } from "./session.js";

export const QUEUE_LIMIT = 1_000;
/** The client IPs a burst names at most: enough to tell one source from a spread, bounded in memory. */
export const BURST_IPS_LIMIT = 20;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;
const DEADLINE_MS = 3_000;

/** The catalogue code of a refusal, as the audit record's details.error. */
export const errorCodeOf = (error: unknown): string => (error instanceof AuthError ? error.code : "INTERNAL_SERVER_ERROR");

export interface SecurityEventReporter {
  /** Queues an event; returns at once and never throws. */
  report(event: Omit<AuditEvent, "id" | "at"> & { id?: string; at?: Date }): void;
  /** Runs an action of the signed-in user and reports it with its outcome; the action's result or error is the route's. */
  reported<T>(req: Request, current: CurrentSession, action: string, run: () => Promise<T>, details?: Record<string, unknown>): Promise<T>;
  /** Counts a failed sign-in; reports a burst once per window per account and per IP. */
  signInFailed(req: Request, identifier: string): void;
  /**
   * Reports a wrong two-factor code for a user (signed in, or answering a sign-in challenge), and a burst
   * once per window per user and per IP.
   */
  twoFactorFailed(req: Request, userId: string, details: { method: string; error: string }, current?: CurrentSession): void;
  /** Reports a failed social sign-in (or account link, when signed in): the provider and the error answered. */
  socialSignInFailed(req: Request, details: { provider: string; error: string }, current?: CurrentSession | null): void;
  /** A single sign-on that did not sign anyone in (a refused assertion, a state this browser was not given). */
  ssoSignInFailed(req: Request, details: { provider: string; error: string }): void;
  /** Waits until every queued event is delivered, at most timeoutMs; false (and a warning) if some were not. */
  flush(timeoutMs: number): Promise<boolean>;
  /** Releases the queue's connections (Redis); after flush, when the gateway stops. */
  close(): Promise<void>;
}

/** A sign-in failure burst of one account (the email or username typed), as reported to the audit log. */
export interface SignInBurst {
  eventId: string;
  identifier: string;
  failures: number;
  windowSeconds: number;
  ipAddresses: string[];
  at: Date;
}

/**
 * Hands an account's sign-in failure burst to identity, which turns it into the webhook event
 * user.sign_in_failed_burst when it names a user (its outbox retries the publication). In the background:
 * the client's answer is already given, and identity just answered the failure, so it is reachable; a
 * failed call is logged and the burst stays in the audit log only.
 */
export function signInBurstsToIdentity(identity: IdentityServiceClient, log: Logger): (burst: SignInBurst) => void {
  return (burst) => {
    call(identity, identity.recordSignInFailureBurst, burst, { deadlineMs: DEADLINE_MS }).catch((error: unknown) => {
      log.warn("sign-in failure burst not handed to identity", { eventId: burst.eventId, error });
    });
  };
}

/** Where reported events wait until the admin service has stored them: process memory, or Redis (security-events-redis.ts). */
export interface EventQueue {
  /** Takes an event to deliver; returns at once and never throws. */
  push(event: AuditEvent): void;
  /** On stop: waits (at most timeoutMs) until nothing this process holds would be lost; false (and a warning) if some would. */
  flush(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Sends one event to the admin service: resolves once stored, or once refused as invalid (dropped with a
 * warning: a retry would be refused too); rejects while the admin service cannot store it (retry later).
 * Delivered with its own deadline (no request context passed to call), never the request's.
 */
export async function recordEvent(admin: AdminServiceClient, log: Logger, event: AuditEvent): Promise<void> {
  try {
    await call(admin, admin.recordEvent, { event }, { deadlineMs: DEADLINE_MS });
  } catch (error) {
    if (!(error instanceof AuthError && error.code === "VALIDATION_ERROR")) throw error;
    log.warn("security event dropped", { action: event.action, error });
  }
}

/** The wait before the attempt after `attempt` failed ones: doubling from firstRetryMs, at most MAX_RETRY_MS. */
export const retryDelay = (attempt: number, firstRetryMs = FIRST_RETRY_MS) => Math.min(MAX_RETRY_MS, firstRetryMs * 2 ** (attempt - 1));

/** The queue in process memory (bounded, QUEUE_LIMIT), drained in order by one worker, each event retried until stored. */
export function memoryEventQueue(admin: AdminServiceClient, log: Logger, options: { firstRetryMs?: number } = {}): EventQueue {
  const queue: { event: AuditEvent; attempt: number }[] = [];
  const firstRetryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
  /** flush() calls waiting for the queue to empty. */
  const emptied: Array<() => void> = [];

  /** Delivers the queue in order until it is empty, or until an event fails: then the worker waits to retry it. */
  async function pass(): Promise<number | RetryLater> {
    while (queue.length) {
      const item = queue[0]!;
      try {
        await recordEvent(admin, log, item.event);
        queue.shift();
      } catch (error) {
        // An unreachable admin service will take the event once back.
        item.attempt += 1;
        if (item.attempt === 1) log.warn("security event not delivered yet; retrying", { action: item.event.action, queued: queue.length, error });
        return { retryInMs: retryDelay(item.attempt, firstRetryMs) };
      }
    }
    for (const resolve of emptied.splice(0)) resolve();
    // A pass ends with the queue empty (or retrying): never followed at once by another.
    return 0;
  }
  const worker = startPollingWorker({ name: "security events", pass, batchSize: 1, log });

  return {
    push(event) {
      if (queue.length >= QUEUE_LIMIT) {
        log.warn("security event dropped: queue full", { action: event.action });
        return;
      }
      queue.push({ event, attempt: 0 });
      // Delivered after the reporting request's turn, never in it. A queue already holding events has a pass
      // running or a retry waiting, which takes this one too.
      if (queue.length === 1) setImmediate(() => worker.wake());
    },
    flush: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (!queue.length) return resolve(true);
        const timer = setTimeout(() => {
          emptied.splice(emptied.indexOf(delivered), 1);
          log.warn("security events not delivered before stopping", { lost: queue.length });
          resolve(false);
        }, timeoutMs);
        const delivered = () => {
          clearTimeout(timer);
          resolve(true);
        };
        emptied.push(delivered);
      }),
    close: async () => undefined,
  };
}

export function securityEventReporter(
  admin: AdminServiceClient,
  log: Logger,
  options: {
    burstThreshold?: number;
    burstWindowMs?: number;
    now?: () => number;
    firstRetryMs?: number;
    queue?: EventQueue;
    /** Told of each account's sign-in failure burst, once per window (signInBurstsToIdentity). */
    onSignInBurst?: (burst: SignInBurst) => void;
  } = {},
): SecurityEventReporter {
  const queue = options.queue ?? memoryEventQueue(admin, log, options);
  const burstThreshold = options.burstThreshold ?? 5;
  const burstWindowMs = options.burstWindowMs ?? 15 * 60_000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, { window: number; count: number; ips: Set<string> }>();

  const report: SecurityEventReporter["report"] = (event) => {
    queue.push({ ...event, id: event.id ?? newId(), at: event.at ?? new Date(now()) });
  };

  const clientOf = (req: Request) => ({ ipAddress: req.facts.ipAddress || undefined, userAgent: req.facts.userAgent || undefined });

  /**
   * Counts one failure under key, with the client IP it came from; answers the IPs seen in the window when this
   * failure makes its count reach the threshold, else null.
   */
  function countFailure(key: string, window: number, ip: string | undefined): string[] | null {
    const entry = failures.get(key);
    const current = entry?.window === window ? entry : { window, count: 0, ips: new Set<string>() };
    current.count++;
    if (ip && current.ips.size < BURST_IPS_LIMIT) current.ips.add(ip);
    failures.set(key, current);
    if (failures.size > 10 * QUEUE_LIMIT) for (const [k, v] of failures) if (v.window !== window) failures.delete(k);
    return current.count === burstThreshold ? [...current.ips] : null;
  }

  /**
   * Counts a failure of `action` for the account (and the client IP); on reaching the threshold, reports the
   * burst once per window. One id per key and window: replicas that each see a burst report the same event,
   * stored once.
   */
  function burst(req: Request, action: string, account: [key: string, details: Record<string, unknown>], targetId?: string): void {
    const window = Math.floor(now() / burstWindowMs);
    const ip = req.facts.ipAddress;
    const bursts: [string, Record<string, unknown>, string | undefined][] = [[`${action}|account:${account[0]}`, account[1], targetId]];
    if (ip) bursts.push([`${action}|ip:${ip}`, {}, undefined]);
    for (const [key, details, target] of bursts) {
      const ipAddresses = countFailure(key, window, ip);
      if (!ipAddresses) continue;
      const id = createHash("sha256").update(`${key}|${window}`).digest("hex").slice(0, 32);
      const scope = key.slice(key.indexOf("|") + 1).split(":")[0];
      const windowSeconds = burstWindowMs / 1000;
      report({ id, action, targetId: target, outcome: "failure", ...clientOf(req), details: { ...details, scope, failures: burstThreshold, windowSeconds, ipAddresses } });
      if (action === "sign-in.failure-burst" && scope === "account")
        options.onSignInBurst?.({ eventId: id, identifier: account[0], failures: burstThreshold, windowSeconds, ipAddresses, at: new Date(now()) });
    }
  }

  return {
    report,
    flush: (timeoutMs) => queue.flush(timeoutMs),
    close: () => queue.close(),
    async reported(req, current, action, run, details = {}) {
      const base = { action, actorId: current.user.id, impersonatorId: current.session.impersonatedBy ?? undefined, targetId: current.user.id, ...clientOf(req) };
      try {
        const result = await run();
        report({ ...base, outcome: "success", details });
        return result;
      } catch (error) {
        report({ ...base, outcome: "failure", details: { ...details, error: errorCodeOf(error) } });
        throw error;
      }
    },
    signInFailed(req, identifier) {
      const account = identifier.trim().toLowerCase();
      burst(req, "sign-in.failure-burst", [account, { identifier: account }]);
    },
    twoFactorFailed(req, userId, details, current) {
      const actor = current ? { actorId: current.user.id, impersonatorId: current.session.impersonatedBy ?? undefined } : {};
      report({ action: "two-factor.verify", ...actor, targetId: userId || undefined, outcome: "failure", ...clientOf(req), details: { ...details, signedIn: Boolean(current) } });
      if (userId) burst(req, "two-factor.failure-burst", [userId, {}], userId);
    },
    socialSignInFailed(req, details, current) {
      const actor = current ? { actorId: current.user.id, impersonatorId: current.session.impersonatedBy ?? undefined, targetId: current.user.id } : {};
      report({ action: "sign-in.social", ...actor, outcome: "failure", ...clientOf(req), details });
    },
    ssoSignInFailed(req, details) {
      report({ action: "sign-in.sso", outcome: "failure", ...clientOf(req), details });
    },
  };
}
