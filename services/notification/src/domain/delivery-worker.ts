/**
 * The delivery worker: takes due messages from the outbox, sends them, records the outcome.
 *
 * Each message is leased before it is sent (one conditional UPDATE that only one worker can win), so two
 * replicas never send the same message at once. Success marks it delivered; a failure frees the lease and
 * schedules the next attempt with exponential backoff and jitter, until maxAttempts, or at once for a
 * recipient the server refuses for good. A worker that dies mid-send leaves its lease to expire, and the
 * message is sent again with the same Message-ID. Delivery is therefore at least once with a recognisable
 * resend: SMTP offers nothing stronger, since a server may accept a message whose reply never arrives.
 */
import { randomString } from "@auth-platform/runtime/random";
import type { OutboxRecord } from "../store/notification-store.js";
import { retryDelay } from "@auth-platform/runtime/backoff";
import { DeliveryFailure, type Registry } from "./ports.js";
import { authEvents } from "@auth-platform/runtime/metrics";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";

type Deps = Pick<Registry, "config" | "store" | "transport" | "log" | "now" | "random">;

/** Messages taken per pass, sent side by side. */
export const BATCH_SIZE = 10;
/**
 * How long a claimed message belongs to its worker. Longer than the transport's whole-send timeout (30 s),
 * so a lease never runs out under a send still in progress.
 */
export const LEASE_MS = 120_000;

/** The Message-ID of an outbox message: stable across attempts and replicas. */
export function messageIdOf(id: string, mailDomain: string): string {
  return `<${id}@${mailDomain}>`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  return (code ? `${code}: ` : "") + error.message.slice(0, 500);
}

/**
 * Once mail has left through SMTP (or failed for good) its bodies are erased from the outbox: they may hold
 * live reset links and sign-in codes, which should not outlive their use in a database. Only the development
 * outbox keeps them: its mailbox page reads them.
 */
const eraseOption = (deps: Pick<Deps, "transport">) => ({ eraseContent: deps.transport.kind !== "development-outbox" });

/** Records a delivery, trying a few times: a lost write here would mean a second send after the lease. */
async function recordDelivered(deps: Deps, message: OutboxRecord): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.store.markDelivered(message.id, deps.now(), eraseOption(deps));
      return;
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}

async function deliverOne(deps: Deps, message: OutboxRecord): Promise<void> {
  const { config, store, log } = deps;
  const token = randomString(32);
  const now = deps.now();
  if (!(await store.claim(message.id, message.attempts, token, now, new Date(now.getTime() + LEASE_MS)))) return;
  const attempts = message.attempts + 1;
  const fields = { messageId: message.id, template: message.template, attempts };
  try {
    await deps.transport.send({
      messageId: messageIdOf(message.id, config.mailDomain),
      to: message.recipient,
      subject: message.subject,
      text: message.text,
      html: message.html,
      links: message.links,
    });
  } catch (error) {
    const reason = describe(error);
    const permanent = error instanceof DeliveryFailure && error.permanent;
    if (permanent || attempts >= config.maxAttempts) {
      authEvents.mailDeliveryFailed("final");
      await store.markFailed(message.id, token, reason, eraseOption(deps));
      log.error("mail not delivered: giving up", { ...fields, permanent, error: reason });
      return;
    }
    const delay = retryDelay(attempts, { baseMs: config.retryBaseMs, maxMs: config.retryMaxMs }, deps.random);
    authEvents.mailDeliveryFailed("retry");
    await store.scheduleRetry(message.id, token, new Date(deps.now().getTime() + delay), reason);
    log.warn("mail delivery failed; will retry", { ...fields, retryInMs: delay, error: reason });
    return;
  }
  await recordDelivered(deps, message);
  log.info("mail delivered", fields);
}

/** One pass: every due message (up to a batch) claimed and sent. Returns how many were due. */
export async function deliverDue(deps: Deps): Promise<number> {
  const due = await deps.store.findDue(deps.now(), BATCH_SIZE);
  await handleEach(due, (message) => deliverOne(deps, message), deps.log, "mail delivery");
  return due.length;
}

export type DeliveryWorker = PollingWorker;

/** Starts the worker: a pass now, then one every pollIntervalMs, and one whenever woken. */
export function startDeliveryWorker(deps: Deps): DeliveryWorker {
  return startPollingWorker({ name: "outbox", pass: () => deliverDue(deps), batchSize: BATCH_SIZE, pollIntervalMs: deps.config.pollIntervalMs, log: deps.log });
}
