import { describe, expect, it } from "vitest";
import { accuracyOf, bestThreshold, categoricalAccuracy, heldOutAccuracy, median } from "./separation.js";

/** A deterministic pseudo-random stream (mulberry32), so the figures below are exact. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("bestThreshold", () => {
  it("separates disjoint samples perfectly, in either direction", () => {
    expect(bestThreshold([10, 11, 12], [1, 2, 3])).toMatchObject({ accuracy: 1, aAbove: true, threshold: 3 });
    expect(bestThreshold([1, 2, 3], [10, 11, 12])).toMatchObject({ accuracy: 1, aAbove: false, threshold: 3 });
  });

  it("scores an overlap by balanced accuracy, and identical samples at 50%", () => {
    // A = {1, 5, 6}, B = {2, 3, 4}: "A above 4" gets 2 of A and all of B.
    expect(bestThreshold([1, 5, 6], [2, 3, 4])).toMatchObject({ accuracy: (2 / 3 + 1) / 2, threshold: 4, aAbove: true });
    expect(bestThreshold([5, 5, 5], [5, 5, 5]).accuracy).toBe(0.5);
  });

  it("never splits equal values", () => {
    // Any threshold puts both 2s on the same side.
    expect(bestThreshold([2, 9], [2, 1]).accuracy).toBe(0.75);
  });

  it("agrees with accuracyOf on the rule it returns", () => {
    const next = random(7);
    const a = Array.from({ length: 50 }, () => next() * 10 + 1);
    const b = Array.from({ length: 80 }, () => next() * 10);
    const rule = bestThreshold(a, b);
    expect(accuracyOf(rule, a, b)).toBeCloseTo(rule.accuracy, 12);
  });
});

describe("heldOutAccuracy", () => {
  it("stays near 50% for one distribution, where the in-sample figure is inflated", () => {
    const next = random(42);
    const draw = () => Array.from({ length: 400 }, () => next());
    const a = draw();
    const b = draw();
    expect(bestThreshold(a, b).accuracy).toBeGreaterThan(0.52);
    expect(Math.abs(heldOutAccuracy(a, b) - 0.5)).toBeLessThan(0.04);
  });

  it("finds a real shift", () => {
    const next = random(3);
    const a = Array.from({ length: 400 }, () => next() + 0.5);
    const b = Array.from({ length: 400 }, () => next());
    expect(heldOutAccuracy(a, b)).toBeGreaterThan(0.7);
  });
});

describe("categoricalAccuracy and median", () => {
  it("is 100% when the status always differs, 50% when it never does", () => {
    expect(categoricalAccuracy([422, 422], [200, 200, 200])).toBe(1);
    expect(categoricalAccuracy([200, 200], [200, 200])).toBe(0.5);
    expect(categoricalAccuracy([401, 401, 403, 401], [401, 401, 401, 401])).toBe(0.625);
  });

  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
