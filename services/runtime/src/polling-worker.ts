/**
 * The loop every reliable-delivery queue of the platform runs (identity's mail requests and user-copy
 * outbox, notification's deliveries, organization's invitation mail, the gateway's security events, the
 * session service's cache lease with its pending flushes): a pass at start, one every poll interval, one
 * whenever woken, and passes back to back while a pass finds a full batch. What a pass does (find due rows,
 * lease, process, retry with backoff) belongs to the queue; the loop only decides when passes run.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isDatabaseUnreachable } from "./database-unreachable.js";
import type { Logger } from "./log.js";

/** What a pass resolves to when it failed and the queue has no table to hold the retry's time: wait that long. */
export interface RetryLater {
  retryInMs: number;
}

export interface PollingWorkerOptions {
  /** Named in the log line of a failed pass. */
  name: string;
  /**
   * One pass; resolves to how many rows it found due, or to RetryLater: no pass then runs before retryInMs,
   * polled or woken (the queue's own backoff).
   */
  pass: () => Promise<number | RetryLater>;
  /** A pass that found this many rows is followed at once by another. */
  batchSize: number;
  /** Omitted: no polling (a queue in process memory, each of whose items comes with a wake). */
  pollIntervalMs?: number;
  log: Logger;
}

export interface PollingWorker {
  /** Runs a pass in `afterMs` (0: now, or right after the pass in progress). */
  wake(afterMs?: number): void;
  /** Stops polling and waits for the pass in progress. */
  stop(): Promise<void>;
}

export function startPollingWorker(options: PollingWorkerOptions): PollingWorker {
  let stopped = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** Set while a pass's RetryLater runs: only its timer starts the next pass. */
  let retryInMs: number | undefined;

  const schedule = () => {
    const afterMs = retryInMs ?? options.pollIntervalMs;
    if (stopped || afterMs === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      retryInMs = undefined;
      run();
    }, afterMs);
    timer.unref();
  };

  function run(): void {
    if (stopped || retryInMs !== undefined) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      let full = false;
      do {
        again = false;
        try {
          const found = await options.pass();
          if (typeof found !== "number") {
            retryInMs = found.retryInMs;
            break;
          }
          full = found >= options.batchSize;
        } catch (error) {
          // The store is unreachable: the rows wait where they are; the next poll tries again.
          options.log.warn(`${options.name} unavailable; paused until the next poll`, { error });
          full = false;
        }
      } while (!stopped && (again || full));
    })().finally(() => {
      running = undefined;
      schedule();
    });
  }

  // A wake comes from inside an RPC; the pass must not run (and log) under that one call's request id.
  const outsideAnyRequest = AsyncLocalStorage.snapshot();
  run();
  return {
    wake(afterMs = 0) {
      if (stopped) return;
      if (afterMs <= 0) outsideAnyRequest(run);
      else setTimeout(() => outsideAnyRequest(run), afterMs).unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Handles every due row of a pass at once. A row whose handling failed (its retry or removal could not be
 * written) keeps its lease and is taken up again when the lease ends. A store out of reach is an outage the
 * service already reports, so a warning; anything else is a fault, logged as an error.
 */
export async function handleEach<T>(rows: readonly T[], handle: (row: T) => Promise<unknown>, log: Logger, queue: string): Promise<void> {
  const results = await Promise.allSettled(rows.map(handle));
  for (const result of results) {
    if (result.status === "fulfilled") continue;
    if (isDatabaseUnreachable(result.reason)) log.warn(`${queue} bookkeeping deferred: store unreachable`, { error: result.reason });
    else log.error(`${queue} bookkeeping failed`, { error: result.reason });
  }
}
