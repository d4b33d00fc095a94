/** The threadpool where scrypt runs gets a lower CPU priority; the event loop keeps its own (Linux). */
import { getPriority } from "node:os";
import { describe, expect, it } from "vitest";
import { HASHING_NICE, lowerHashingPriority, threadpoolThreads } from "./hashing-priority.js";

describe.runIf(process.platform === "linux")("lowerHashingPriority", () => {
  it("sets every libuv threadpool thread to HASHING_NICE (or leaves a lower priority) and leaves the event loop's thread alone", async () => {
    const before = getPriority(process.pid);
    const lowered = await lowerHashingPriority();
    expect(lowered.length).toBeGreaterThan(0);
    expect(lowered.sort()).toEqual(threadpoolThreads().sort());
    // Never raised: a process already below HASHING_NICE (run under `nice -n 19`) keeps its own.
    for (const tid of lowered) expect(getPriority(tid)).toBe(Math.max(before, HASHING_NICE));
    // process.pid is the main thread's id: the event loop.
    expect(getPriority(process.pid)).toBe(before);
    expect(lowered).not.toContain(process.pid);
  });
});
