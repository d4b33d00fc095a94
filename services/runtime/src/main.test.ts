import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createLogger } from "./log.js";
import { closeWithin } from "./main.js";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

interface Heap {
  collected: boolean;
  /** Resident bytes of V8's young generation (new space) before and after. */
  youngBefore: number;
  youngAfter: number;
  /** Resident bytes of the whole V8 heap before and after. */
  heapBefore: number;
  heapAfter: number;
}

/**
 * A node process that does to its heap what start-up does (many objects that survive a few collections,
 * so V8 grows the young generation, and half of them garbage by the time the process idles), idles for a
 * moment, then calls collectStartupGarbage: resident sizes before and after.
 */
function runStartup(nodeFlags: string[]): Heap {
  const script = `
    import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
    import { collectStartupGarbage } from ${JSON.stringify(MAIN)};
    const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space").physical_space_size;
    const heap = () => getHeapStatistics().total_physical_size;
    let objects = [];
    for (let i = 0; i < 300000; i++) objects.push({ i, text: "object " + i });
    objects = objects.filter((_, i) => i % 2 === 0);
    setTimeout(() => {
      const [youngBefore, heapBefore] = [young(), heap()];
      const collected = collectStartupGarbage();
      console.log(JSON.stringify({ collected, youngBefore, youngAfter: young(), heapBefore, heapAfter: heap(), kept: objects.length }));
    }, 1000);
  `;
  const output = execFileSync(process.execPath, [...nodeFlags, "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(output.trim().split("\n").at(-1)!) as Heap;
}

describe("collectStartupGarbage", () => {
  it("gives the grown young generation back to the system (with --expose-gc, as NODE_FLAGS starts every server)", () => {
    const heap = runStartup(["--expose-gc"]);
    expect(heap.collected).toBe(true);
    expect(heap.youngBefore).toBeGreaterThan(8 * 1024 * 1024);
    // A plain full collection (flavor "regular") empties the young generation but keeps its pages resident.
    expect(heap.youngAfter).toBeLessThan(heap.youngBefore / 4);
    expect(heap.heapAfter).toBeLessThan(heap.heapBefore - heap.youngBefore / 2);
  }, 30_000);

  it("does nothing without --expose-gc", () => {
    const heap = runStartup([]);
    expect(heap.collected).toBe(false);
    // Nothing given back: the young generation keeps its size (allocation between the two readings may still
    // grow it by a page or so, which an exact comparison turned into a flaky failure under load).
    expect(heap.youngAfter).toBeGreaterThan(heap.youngBefore / 2);
  }, 30_000);
});

describe("closeWithin", () => {
  function service(close: () => Promise<void>, closing: () => string | undefined) {
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger("probe", "info", (line) => void lines.push(JSON.parse(line) as Record<string, unknown>));
    return { lines, service: { log, close, closing } };
  }

  it("resolves true when the service closes in time, and logs nothing", async () => {
    const { lines, service: running } = service(
      () => Promise.resolve(),
      () => undefined,
    );
    await expect(closeWithin(running, 1_000)).resolves.toBe(true);
    expect(lines).toEqual([]);
  });

  it("gives up after the limit and logs what the close was still waiting for", async () => {
    const { lines, service: running } = service(
      () => new Promise<void>(() => {}),
      () => "session's dependencies (stores, caches, clients)",
    );
    const started = performance.now();
    await expect(closeWithin(running, 100)).resolves.toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(lines).toEqual([
      expect.objectContaining({
        level: "error",
        service: "probe",
        msg: "shutdown did not finish in time",
        limitMs: 100,
        waitingFor: "session's dependencies (stores, caches, clients)",
      }),
    ]);
  });

  it("resolves false and logs the error when the close fails", async () => {
    const { lines, service: running } = service(
      () => Promise.reject(new Error("pool end failed")),
      () => undefined,
    );
    await expect(closeWithin(running, 1_000)).resolves.toBe(false);
    expect(lines).toEqual([expect.objectContaining({ level: "error", msg: "shutdown failed" })]);
    expect(JSON.stringify(lines[0])).toContain("pool end failed");
  });
});
