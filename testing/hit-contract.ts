/**
 * The contract of a fixed-window counter's `hit(key, windowMs)` (KeyValue.hit in services/runtime/src/key-value.ts),
 * shared by every store that counts rate-limit hits: memory and Redis (key-value.test.ts) and PostgreSQL
 * (gateway/src/http/rate-limit-database.test.ts). Call it inside a describe whose hooks open the store.
 */
import { expect, it } from "vitest";
import { LOWER_ALPHANUMERIC, randomString } from "@auth-platform/runtime/random";

export interface HitSubject {
  counters: { hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> };
  /** Lets `ms` pass for the store (a fake clock moved, or its Redis TTLs shortened). */
  advance(ms: number): Promise<void>;
}

/** `subject` is read inside each test, once the describe's hooks have opened the store. */
export function hitContract(subject: () => HitSubject, windowMs = 10_000): void {
  const key = (label: string) => `${label}:${randomString(10, LOWER_ALPHANUMERIC)}`;

  it("counts hits within one window: the first hit starts it and sets the time left", async () => {
    const { counters, advance } = subject();
    const k = key("hits");
    const first = await counters.hit(k, windowMs);
    expect(first.count).toBe(1);
    expect(first.resetMs).toBeGreaterThan(windowMs - 100);
    expect(first.resetMs).toBeLessThanOrEqual(windowMs);
    expect((await counters.hit(k, windowMs)).count).toBe(2);
    await advance(100);
    const third = await counters.hit(k, windowMs);
    expect(third.count).toBe(3);
    // Later hits do not push the window back.
    expect(third.resetMs).toBeLessThanOrEqual(windowMs - 100);
    expect(third.resetMs).toBeGreaterThan(0);
    expect((await counters.hit(key("other-hits"), windowMs)).count).toBe(1);
  });

  it("restarts the count once the window has passed", async () => {
    const { counters, advance } = subject();
    const k = key("window");
    for (let i = 1; i <= 3; i++) expect((await counters.hit(k, windowMs)).count).toBe(i);
    await advance(windowMs + 100);
    const restarted = await counters.hit(k, windowMs);
    expect(restarted.count).toBe(1);
    expect(restarted.resetMs).toBeGreaterThan(windowMs - 100);
    expect((await counters.hit(k, windowMs)).count).toBe(2);
  });

  it("counts concurrent hits exactly", async () => {
    const { counters } = subject();
    const k = key("burst");
    const results = await Promise.all(Array.from({ length: 25 }, () => counters.hit(k, 60_000)));
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });
}
