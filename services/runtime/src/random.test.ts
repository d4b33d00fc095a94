import { describe, expect, it } from "vitest";
import { LOWER_ALPHANUMERIC, newId, randomString } from "./random.js";

describe("randomString", () => {
  it("has the requested length and only alphabet characters", () => {
    for (const length of [1, 24, 32, 128]) {
      const value = randomString(length, LOWER_ALPHANUMERIC);
      expect(value).toHaveLength(length);
      expect(value).toMatch(/^[0-9a-z]+$/);
    }
  });

  it("gives 32-character alphanumeric ids that do not repeat", () => {
    const ids = new Set(Array.from({ length: 2000 }, newId));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it("uses every character of the alphabet about equally (no modulo bias)", () => {
    const counts = new Map<string, number>();
    for (const c of randomString(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(count).toBeGreaterThan(800);
  });

  it("refuses an alphabet it cannot draw from", () => {
    expect(() => randomString(4, "a")).toThrow(RangeError);
  });
});
