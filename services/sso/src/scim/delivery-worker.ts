/**
 * The SCIM outbox's worker (ADR 0045, 0070): a provisioned user's row holds the wanted state and the one
 * last delivered; a request delivers at once, and this worker retries what did not land (a peer down).
 */
import type { Logger } from "@auth-platform/runtime/log";
import { type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { ScimDeps } from "./ports.js";
import { deliverPending } from "./users.js";

const BATCH_SIZE = 100;
const POLL_INTERVAL_MS = 5_000;

export function startScimDeliveryWorker(deps: ScimDeps, log: Logger, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "scim delivery", pass: () => deliverPending(deps, BATCH_SIZE), batchSize: BATCH_SIZE, pollIntervalMs, log });
}
