import { describe, expect, it } from "vitest";
import { retryDelay } from "./backoff.js";

const policy = { baseMs: 1_000, maxMs: 60_000 };

describe("retryDelay", () => {
  it("doubles with each attempt, between half and all of the nominal delay", () => {
    expect(retryDelay(1, policy, () => 0)).toBe(500);
    expect(retryDelay(1, policy, () => 0.999999)).toBe(1_000);
    expect(retryDelay(2, policy, () => 0)).toBe(1_000);
    expect(retryDelay(3, policy, () => 0)).toBe(2_000);
    expect(retryDelay(4, policy, () => 0.5)).toBe(6_000);
  });

  it("never exceeds the cap, however many attempts", () => {
    for (const attempts of [7, 8, 20, 100, 10_000]) {
      expect(retryDelay(attempts, policy, () => 0.999999)).toBeLessThanOrEqual(60_000);
      expect(retryDelay(attempts, policy, () => 0)).toBe(30_000);
    }
  });

  it("spreads retries out (jitter)", () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelay(5, policy)));
    expect(delays.size).toBeGreaterThan(10);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(8_000);
      expect(delay).toBeLessThanOrEqual(16_000);
    }
  });

  it("treats a zero or negative count as the first attempt", () => {
    expect(retryDelay(0, policy, () => 0)).toBe(500);
  });
});
