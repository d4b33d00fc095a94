import { describe, expect, it } from "vitest";
import { type HeldSession, sessionMemory } from "./session-memory.js";

const NOW = Date.UTC(2031, 0, 1);
const DUE = NOW + 60_000;

function held(id: string, userId: string, role = "user"): HeldSession {
  return {
    session: { id, token: `token-${id}`, userId, expiresAt: new Date(DUE + 1).toISOString() } as HeldSession["session"],
    user: { id: userId, role } as HeldSession["user"],
  };
}

/** A memory on a monotonic clock the test sets, leased until 1,000. */
function leased(maxEntries = 10) {
  const clock = { at: 0 };
  const memory = sessionMemory({ maxEntries, monotonic: () => clock.at });
  memory.leaseUntil(1_000);
  return { memory, clock };
}

describe("the gateway's session memory", () => {
  it("serves a filled session with its token put back, until it is due", () => {
    const { memory } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    const found = memory.get("l1", "token-s1", NOW);
    expect(found?.session).toEqual({ id: "s1", token: "token-s1", userId: "u1", expiresAt: new Date(DUE + 1).toISOString() });
    expect(Object.keys(found!.session)[1]).toBe("token");
    expect(memory.get("l1", "token-s1", DUE)).toBeUndefined();
  });

  it("keeps no token: the entry holds the session without it", () => {
    const { memory } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    expect(JSON.stringify(memory.get("l1", "other", NOW))).not.toContain("token-s1");
  });

  it("answers get-session's JSON with the request's token in place: what get() gives, serialised", () => {
    const answerOf = (found: HeldSession) => JSON.stringify({ session: found.session, user: found.user });
    const { memory, clock } = leased();
    // A name holding the token's text: only the token's own field is where the request's token goes.
    const filled = held("s1", "u1");
    filled.user = { ...filled.user, name: "token-s1" };
    memory.fill("l1", filled, DUE, memory.version());
    expect(memory.answer("l1", "token-s1", NOW)).toBe(answerOf(memory.get("l1", "token-s1", NOW)!));
    expect(JSON.parse(memory.answer("l1", "token-s1", NOW)!).session.token).toBe("token-s1");
    expect(memory.answer("l1", "token-s1", DUE)).toBeUndefined();
    expect(memory.answer("l2", "token-s1", NOW)).toBeUndefined();
    clock.at = 1_000;
    expect(memory.answer("l1", "token-s1", NOW)).toBeUndefined();
  });

  it("keeps no token in the serialised answer either", () => {
    const { memory } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    expect(memory.answer("l1", "other", NOW)).not.toContain("token-s1");
    expect(JSON.parse(memory.answer("l1", "other", NOW)!).session.token).toBe("other");
  });

  it("serves nothing once the lease has ended, and keeps no fill without a lease", () => {
    const { memory, clock } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    clock.at = 1_000;
    expect(memory.get("l1", "token-s1", NOW)).toBeUndefined();
    memory.fill("l2", held("s2", "u2"), DUE, memory.version());
    memory.leaseUntil(2_000);
    expect(memory.get("l2", "token-s2", NOW)).toBeUndefined();
    expect(memory.get("l1", "token-s1", NOW)).toBeDefined();
  });

  it("a fill that began before an event is not kept (the copy it read may predate the change)", () => {
    const { memory } = leased();
    const since = memory.version();
    memory.dropSessions(["unrelated"]);
    memory.fill("l1", held("s1", "u1"), DUE, since);
    expect(memory.get("l1", "token-s1", NOW)).toBeUndefined();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    expect(memory.get("l1", "token-s1", NOW)).toBeDefined();
  });

  it("a user change drops every session of that user, and only theirs", () => {
    const { memory } = leased();
    memory.fill("a1", held("s1", "ua"), DUE, memory.version());
    memory.fill("a2", held("s2", "ua"), DUE, memory.version());
    memory.fill("b1", held("s3", "ub"), DUE, memory.version());
    memory.dropUser("ua");
    expect(memory.get("a1", "token-s1", NOW)).toBeUndefined();
    expect(memory.get("a2", "token-s2", NOW)).toBeUndefined();
    expect(memory.get("b1", "token-s3", NOW)).toBeDefined();
    expect(memory.size).toBe(1);
  });

  it("a revoked session is dropped", () => {
    const { memory } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    memory.dropSessions(["l1"]);
    expect(memory.get("l1", "token-s1", NOW)).toBeUndefined();
  });

  it("holds at most maxEntries, dropping the oldest fill, and the user index follows", () => {
    const { memory } = leased(2);
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    memory.fill("l2", held("s2", "u2"), DUE, memory.version());
    memory.fill("l3", held("s3", "u3"), DUE, memory.version());
    expect(memory.size).toBe(2);
    expect(memory.get("l1", "token-s1", NOW)).toBeUndefined();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    memory.dropUser("u2");
    expect(memory.size).toBe(2);
  });

  it("a clear (the stream lost or opened again) drops everything and the lease", () => {
    const { memory } = leased();
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    const since = memory.version();
    memory.clear();
    expect(memory.size).toBe(0);
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    expect(memory.size).toBe(0);
    memory.leaseUntil(1_000);
    memory.fill("l1", held("s1", "u1"), DUE, since);
    expect(memory.size).toBe(0);
  });

  it("size 0 keeps nothing", () => {
    const { memory } = leased(0);
    memory.fill("l1", held("s1", "u1"), DUE, memory.version());
    expect(memory.size).toBe(0);
  });
});
