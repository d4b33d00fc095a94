/** The package's session cache: served only under a lease and before it is due, exact under events, bounded. */
import { describe, expect, it } from "vitest";
import { sessionCache } from "../src/session-cache.js";

function cache(maxEntries = 10) {
  let now = 0;
  const held = sessionCache<string>({ maxEntries, monotonic: () => now });
  return { held, advance: (ms: number) => (now += ms) };
}
const entry = (value: string, userId = "u1", lookup = `lookup-${value}`) => ({ value, userId, lookup, dueAt: 10_000 });

describe("the package's session cache", () => {
  it("keeps and serves nothing without a lease, and stops serving when the lease ends", () => {
    const { held, advance } = cache();
    const key = held.keyOf("token-a");
    held.fill(key, entry("a"), held.version());
    expect(held.size).toBe(0);
    held.leaseUntil(1_000);
    held.fill(key, entry("a"), held.version());
    expect(held.get(key, 0)).toBe("a");
    advance(1_000);
    expect(held.get(key, 0)).toBeUndefined();
  });

  it("keys by an HMAC of the token under the process's own key, never the token", () => {
    const { held } = cache();
    const key = held.keyOf("token-a");
    expect(key).not.toContain("token-a");
    expect(key).toBe(held.keyOf("token-a"));
    expect(sessionCache({ maxEntries: 1 }).keyOf("token-a")).not.toBe(key);
  });

  it("drops by lookup and by user, and serves nothing past the due time", () => {
    const { held } = cache();
    held.leaseUntil(1_000);
    const [a, b, c] = ["token-a", "token-b", "token-c"].map((t) => held.keyOf(t)) as [string, string, string];
    held.fill(a, entry("a"), held.version());
    held.fill(b, entry("b"), held.version());
    held.fill(c, entry("c", "u2"), held.version());
    expect(held.get(a, 10_000)).toBeUndefined();
    held.dropSessions(["lookup-a"]);
    expect(held.get(a, 0)).toBeUndefined();
    expect(held.get(b, 0)).toBe("b");
    held.dropUser("u1");
    expect(held.get(b, 0)).toBeUndefined();
    expect(held.get(c, 0)).toBe("c");
    expect(held.size).toBe(1);
  });

  it("does not keep a fill that an event or a clear overtook", () => {
    const { held } = cache();
    held.leaseUntil(1_000);
    const key = held.keyOf("token-a");
    const since = held.version();
    held.dropSessions(["lookup-other"]);
    held.fill(key, entry("a"), since);
    expect(held.get(key, 0)).toBeUndefined();
    const before = held.version();
    held.clear();
    held.leaseUntil(1_000);
    held.fill(key, entry("a"), before);
    expect(held.size).toBe(0);
  });

  it("holds at most maxEntries, the oldest fill going first, and clears everything with the lease", () => {
    const { held } = cache(2);
    held.leaseUntil(1_000);
    const keys = ["t1", "t2", "t3"].map((t) => held.keyOf(t));
    for (const [i, key] of keys.entries()) held.fill(key, entry(`v${i}`, `u${i}`), held.version());
    expect(held.size).toBe(2);
    expect(held.get(keys[0]!, 0)).toBeUndefined();
    expect(held.get(keys[2]!, 0)).toBe("v2");
    held.clear();
    expect(held.size).toBe(0);
    expect(held.holdsLease()).toBe(false);
  });
});
