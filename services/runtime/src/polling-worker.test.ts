/**
 * When the polling worker runs passes (polled, woken, back to back, held off by a pass's own retry, or never
 * polled), and how a pass's rows whose bookkeeping failed are reported.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "./log.js";
import { handleEach, type RetryLater, startPollingWorker } from "./polling-worker.js";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A worker whose passes resolve, in turn, to `answers` (then 0), counting them. */
function counted(answers: Array<number | RetryLater>, pollIntervalMs?: number) {
  const passes = { count: 0 };
  const worker = startPollingWorker({
    name: "test",
    pass: async () => {
      passes.count++;
      return answers.shift() ?? 0;
    },
    batchSize: 10,
    pollIntervalMs,
    log: silent,
  });
  return { passes, worker };
}

describe("startPollingWorker", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("runs a pass at start, one every poll interval, one when woken, and another at once after a full batch", async () => {
    const { passes, worker } = counted([0, 10, 0], 1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(passes.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes.count).toBe(3);
    worker.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes.count).toBe(4);
    await worker.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes.count).toBe(4);
  });

  it("after a pass resolving to RetryLater, no pass runs before its time, polled or woken", async () => {
    const { passes, worker } = counted([{ retryInMs: 5_000 }], 1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(passes.count).toBe(1);
    worker.wake();
    worker.wake(100);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(passes.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes.count).toBe(2);
    // Back to polling.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes.count).toBe(3);
    await worker.stop();
  });

  it("without a poll interval, runs passes at start, when woken and after a retry's time only", async () => {
    const { passes, worker } = counted([0, { retryInMs: 500 }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes.count).toBe(1);
    worker.wake();
    await vi.advanceTimersByTimeAsync(499);
    expect(passes.count).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes.count).toBe(3);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes.count).toBe(3);
    await worker.stop();
  });
});

describe("handleEach", () => {
  it("handles every row even when some fail; a store out of reach is a warning, any other failure an error", async () => {
    const lines: string[] = [];
    const log: Logger = { ...silent, warn: (msg) => void lines.push(`warn ${msg}`), error: (msg) => void lines.push(`error ${msg}`) };
    const handled: number[] = [];
    const unreachable = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    await handleEach(
      [1, 2, 3],
      async (row) => {
        handled.push(row);
        if (row === 1) throw unreachable;
        if (row === 2) throw new Error("column does not exist");
      },
      log,
      "test event",
    );
    expect(handled).toEqual([1, 2, 3]);
    expect(lines).toEqual(["warn test event bookkeeping deferred: store unreachable", "error test event bookkeeping failed"]);
  });
});
