/**
 * The organization event outbox's worker (docs/adr/0077-signed-webhooks.md): the store writes each webhook
 * event (organization.*, member.*, invitation.*) in the transaction of the change it records; the writing
 * request only wakes this worker (wakingStore), so no answer waits on the notification service. Each event is
 * leased (one conditional UPDATE), published with PublishEvents under its own id, which notification stores
 * once, and removed; a failure frees it for another attempt after a backoff growing to once a minute, forever.
 * An organization.deleted event also carries identity's effect: the organization's API keys are deleted
 * before the event is published (docs/adr/0075-api-keys.md), so a receiver hearing of the deletion can count
 * on its keys being gone, and the deletion's transaction is the one place that effect is recorded.
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { OrganizationEventRecord, OrganizationStore } from "../store/organization-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "webhooks" | "apiKeys" | "now" | "log">;

export const BATCH_SIZE = 20;
/** Longer than one publication takes (one RPC under its deadline). */
export const LEASE_MS = 60_000;
export const POLL_INTERVAL_MS = 1_000;
/** Retries back off to once a minute and never stop: an event is never dropped. */
export const BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** From this many failed attempts on, each failure is logged as an error: someone should look. */
const ALERT_AFTER_ATTEMPTS = 10;

/** The store's writes that record events: each wakes the worker once it committed. */
const WRITES = [
  "createOrganization",
  "updateOrganization",
  "deleteOrganization",
  "addMember",
  "updateMemberRole",
  "deleteMember",
  "removeUser",
  "createInvitation",
  "answerInvitation",
  "acceptInvitation",
  "reopenInvitation",
  "createTeam",
  "renameTeam",
  "deleteTeam",
  "addTeamMember",
  "removeTeamMember",
] as const satisfies ReadonlyArray<keyof OrganizationStore>;

/** The store as the domain sees it: a write that may have queued events kicks the worker, without waiting for it. */
export function wakingStore(store: OrganizationStore, worker: Pick<PollingWorker, "wake">): OrganizationStore {
  const wrapped: OrganizationStore = { ...store };
  for (const name of WRITES) {
    const write = store[name] as (...args: unknown[]) => Promise<unknown>;
    (wrapped as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const result = await write(...args);
      worker.wake();
      return result;
    };
  }
  return wrapped;
}

async function publish(deps: Deps, event: OrganizationEventRecord): Promise<void> {
  const now = deps.now();
  if (!(await deps.store.claimOrganizationEvent(event.id, event.attempts, now, new Date(now.getTime() + LEASE_MS)))) return;
  const attempts = event.attempts + 1;
  try {
    if (event.type === "organization.deleted") await deps.apiKeys.deleteOrganizationKeys(event.organizationId);
    await deps.webhooks.publish({ id: event.id, type: event.type, occurredAt: event.occurredAt, payloadJson: event.payload });
  } catch (error) {
    const delay = retryDelay(attempts, BACKOFF);
    await deps.store.retryOrganizationEvent(event.id, attempts, new Date(deps.now().getTime() + delay));
    // The payload (an invitee's address) is not logged: the event id and type say which it is.
    const fields = { eventId: event.id, type: event.type, organizationId: event.organizationId, attempts, retryInMs: delay, error };
    if (attempts >= ALERT_AFTER_ATTEMPTS) deps.log.error("organization event still unpublished", fields);
    else deps.log.warn("organization event not published; will retry", fields);
    return;
  }
  await deps.store.deleteOrganizationEvent(event.id);
}

/** One pass: every due event (up to a batch) leased and published. Returns how many were due. */
export async function publishDueOrganizationEvents(deps: Deps): Promise<number> {
  const due = await deps.store.findDueOrganizationEvents(deps.now(), BATCH_SIZE);
  await handleEach(due, (event) => publish(deps, event), deps.log, "organization event");
  return due.length;
}

/** The worker: a pass now, then one every pollIntervalMs, and one whenever a write wakes it. */
export function startOrganizationEventWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "organization events", pass: () => publishDueOrganizationEvents(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
