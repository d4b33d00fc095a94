import { describe, expect, it } from "vitest";
import type { SessionEvent } from "./session-events.js";
import { sessionRelay } from "./session-relay.js";

const silent = { info() {}, warn() {} };
const revoked: SessionEvent = { kind: "sessions-revoked", lookups: ["l1", "l2"] };

/** A relay whose Redis takes its registration but refuses every publication; waits (not the renewal timer) end at once. */
function relayWithRedisRefusingPublications(recordUnpublished?: (event: SessionEvent) => Promise<void>) {
  const local: SessionEvent[] = [];
  const waits: number[] = [];
  const relay = sessionRelay({
    hub: { publish: async (event) => void local.push(event), endAll() {}, leasesEndBy: () => 0 },
    broadcast: {
      listen(_onMessage, onSubscribed) {
        onSubscribed(true);
      },
      publish: async () => {
        throw new Error("Connection is closed.");
      },
      members: async () => [],
      register: async () => {},
      unregister: async () => {},
    },
    leaseMs: 2_000,
    recordUnpublished,
    schedule(ms, fn) {
      waits.push(ms);
      // The renewal timer (a quarter lease, 500 ms) never fires: it would loop.
      if (ms > 500) queueMicrotask(fn);
      return () => {};
    },
    log: silent,
  });
  return { relay, local, waits };
}

describe("session relay", () => {
  it("an event Redis refuses is told to this replica's watchers, recorded as pending, and the replicas' registration waited out", async () => {
    const recorded: SessionEvent[] = [];
    const { relay, local, waits } = relayWithRedisRefusingPublications(async (event) => void recorded.push(event));
    await relay.start(0);
    await relay.publish(revoked);
    expect(local).toEqual([revoked]);
    // Replicas that still hear Redis never heard it: the store's pending forgets reach them at the next flush.
    expect(recorded).toEqual([revoked]);
    // 1.5 leases and the clock margin.
    expect(waits).toContain(3_050);
  });

  it("a store that cannot record it either does not shorten the wait nor fail the change", async () => {
    const { relay, waits } = relayWithRedisRefusingPublications(async () => {
      throw new Error("database unreachable");
    });
    await relay.start(0);
    await expect(relay.publish(revoked)).resolves.toBeUndefined();
    expect(waits).toContain(3_050);
  });
});
