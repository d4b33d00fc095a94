/** When the polling worker runs passes: polled, woken, back to back, held off by a pass's own retry, or never polled. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "./log.js";
import { type RetryLater, startPollingWorker } from "./polling-worker.js";

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
