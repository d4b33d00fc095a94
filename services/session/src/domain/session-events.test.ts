import { describe, expect, it } from "vitest";
import { type SessionEvent, sessionEventHub, type WatcherSink } from "./session-events.js";

/** A monotonic clock the test moves, firing the hub's timers as it passes them. */
function manualClock() {
  let at = 1_000;
  const timers: Array<{ due: number; fn: () => void; live: boolean }> = [];
  return {
    now: () => at,
    schedule(ms: number, fn: () => void) {
      const timer = { due: at + ms, fn, live: true };
      timers.push(timer);
      return () => {
        timer.live = false;
      };
    },
    async advance(ms: number) {
      at += ms;
      for (const timer of timers.filter((t) => t.live && t.due <= at)) {
        timer.live = false;
        timer.fn();
      }
      await Promise.resolve();
    },
  };
}

const silent = { info() {}, warn() {} };

function recordingSink() {
  const seen: Array<{ seq: number; event: SessionEvent }> = [];
  const leases: Array<{ n: number; leaseMs: number }> = [];
  let ended: string | undefined;
  const sink: WatcherSink = {
    event: (seq, event) => seen.push({ seq, event }),
    lease: (n, leaseMs) => leases.push({ n, leaseMs }),
    end: (reason) => {
      ended = reason;
    },
  };
  return { sink, seen, leases, ended: () => ended };
}

/** Whether the promise has settled after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const revoked: SessionEvent = { kind: "sessions-revoked", lookups: ["l1"] };

describe("session event hub", () => {
  it("a publication waits for the ack of every leased watcher, and no longer", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const a = recordingSink();
    const b = recordingSink();
    const watchA = hub.watch({ id: "a", acknowledges: true }, a.sink);
    const watchB = hub.watch({ id: "b", acknowledges: true }, b.sink);
    watchA.ping(1);
    watchB.ping(1);
    expect(a.leases).toEqual([{ n: 1, leaseMs: 2_000 }]);

    const published = hub.publish(revoked);
    expect(a.seen).toEqual([{ seq: 1, event: revoked }]);
    expect(b.seen).toEqual([{ seq: 1, event: revoked }]);
    watchA.ack(1);
    expect(await settled(published)).toBe(false);
    watchB.ack(1);
    expect(await settled(published)).toBe(true);
    expect(a.ended()).toBeUndefined();
  });

  it("a watcher without a lease, or that does not acknowledge, is sent the event but not waited for", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const fresh = recordingSink();
    const observer = recordingSink();
    hub.watch({ id: "fresh", acknowledges: true }, fresh.sink);
    const watchObserver = hub.watch({ id: "observer", acknowledges: false }, observer.sink);
    watchObserver.ping(1);
    // An observer holds no lease: it is never waited for, so it may trust nothing.
    expect(observer.leases).toEqual([{ n: 1, leaseMs: 0 }]);
    expect(await settled(hub.publish(revoked))).toBe(true);
    expect(fresh.seen).toHaveLength(1);
    expect(observer.seen).toHaveLength(1);
  });

  it("a watcher that does not ack within its lease, counted from the ping's receipt, is dropped and the wait ends", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const slow = recordingSink();
    const watch = hub.watch({ id: "slow", acknowledges: true }, slow.sink);
    watch.ping(1); // received at 1,000: the lease as counted here ends at 3,000
    await clock.advance(500);
    const published = hub.publish(revoked);
    // A ping answered after the event travels behind it: it does not stretch this wait.
    watch.ping(2);
    await clock.advance(1_499);
    expect(await settled(published)).toBe(false);
    await clock.advance(1);
    expect(await settled(published)).toBe(true);
    expect(slow.ended()).toBe("no acknowledgement within the lease");
    // Dropped: the next change does not reach it, but waits out the lease its second ping was granted
    // (until 3,500): it may not have seen its stream end yet.
    const next = hub.publish(revoked);
    expect(slow.seen).toHaveLength(1);
    await clock.advance(499);
    expect(await settled(next)).toBe(false);
    await clock.advance(1);
    expect(await settled(next)).toBe(true);
  });

  it("a stream that ends does not shorten the wait: its watcher may not know yet and trusts its lease", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const cut = recordingSink();
    const watch = hub.watch({ id: "cut", acknowledges: true }, cut.sink);
    watch.ping(1);
    const published = hub.publish(revoked);
    watch.close();
    await clock.advance(1_999);
    expect(await settled(published)).toBe(false);
    await clock.advance(1);
    expect(await settled(published)).toBe(true);
  });

  it("a stream gone before a publication is still waited for until its lease ends: its watcher may not know yet", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const cut = hub.watch({ id: "cut", acknowledges: true }, recordingSink().sink);
    const ended = recordingSink();
    hub.watch({ id: "ended", acknowledges: true }, ended.sink).ping(1);
    cut.ping(1);
    await clock.advance(500);
    cut.close();
    hub.endAll("the relay lost its subscription");
    expect(ended.ended()).toBe("the relay lost its subscription");
    const published = hub.publish(revoked);
    await clock.advance(1_499);
    expect(await settled(published)).toBe(false);
    await clock.advance(1);
    expect(await settled(published)).toBe(true);
    // Their leases over, nothing is waited for.
    expect(await settled(hub.publish(revoked))).toBe(true);
  });

  it("a watcher that says it holds nothing is not waited for: a half-close, or a new stream under its id", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const leaving = hub.watch({ id: "leaving", acknowledges: true }, recordingSink().sink);
    leaving.ping(1);
    leaving.release();
    expect(await settled(hub.publish(revoked))).toBe(true);

    const reconnecting = hub.watch({ id: "gateway-1", acknowledges: true }, recordingSink().sink);
    reconnecting.ping(1);
    reconnecting.close();
    expect(await settled(hub.publish(revoked))).toBe(false);
    const again = recordingSink();
    hub.watch({ id: "gateway-1", acknowledges: true }, again.sink);
    expect(await settled(hub.publish(revoked))).toBe(true);
    // Another watcher's new stream releases nothing.
    const other = hub.watch({ id: "gateway-2", acknowledges: true }, recordingSink().sink);
    other.ping(1);
    other.close();
    hub.watch({ id: "gateway-3", acknowledges: true }, recordingSink().sink);
    expect(await settled(hub.publish(revoked))).toBe(false);
  });

  it("an ack covers every event up to its number", async () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 2_000, now: clock.now, schedule: clock.schedule, log: silent });
    const sink = recordingSink();
    const watch = hub.watch({ id: "w", acknowledges: true }, sink.sink);
    watch.ping(1);
    const first = hub.publish(revoked);
    const second = hub.publish({ kind: "user-changed", userId: "u1" });
    watch.ack(2);
    expect(await settled(Promise.all([first, second]))).toBe(true);
    expect(sink.seen.map((s) => s.seq)).toEqual([1, 2]);
  });

  it("grants no lease when configured with none (several replicas behind Redis)", () => {
    const clock = manualClock();
    const hub = sessionEventHub({ leaseMs: 0, now: clock.now, schedule: clock.schedule, log: silent });
    const sink = recordingSink();
    hub.watch({ id: "w", acknowledges: true }, sink.sink).ping(7);
    expect(sink.leases).toEqual([{ n: 7, leaseMs: 0 }]);
  });
});
