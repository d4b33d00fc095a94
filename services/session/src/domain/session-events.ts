/**
 * The live watchers of what happens to sessions and users on this replica (WatchSessionEvents), and the
 * publication of each change to them (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md).
 *
 * A change publishes its event after its store write; for every watcher that acknowledges and holds a lease
 * (as this side counts it: when its ping n arrived, plus leaseMs), publish() resolves once that watcher has
 * acked the event, or its lease has run out. A watcher that did not ack in time is dropped: its stream ends,
 * so it reconnects and starts empty. Leases answering later pings need no wait: they travel behind the event
 * on the same ordered stream, so a watcher that holds one has applied it, and one the event never reached
 * trusts nothing past the lease counted here at publication (its own count starts when it sent that ping,
 * never later).
 *
 * A stream that breaks (or that this side ends) does not end what its watcher trusts: it may not know yet.
 * Until that watcher's lease ends, every publication waits for it as for a silent one (it can no longer
 * ack). A watcher that says it holds nothing (it half-closes its stream, or opens a new one under the same
 * id, having cleared its memory first) is forgotten at once.
 */

export type SessionEvent = { kind: "sessions-revoked"; lookups: string[] } | { kind: "session-changed"; lookups: string[] } | { kind: "user-changed"; userId: string };

/** The stream side of one watcher (rpc/session-server.ts writes these to its gRPC stream). */
export interface WatcherSink {
  event(seq: number, event: SessionEvent): void;
  lease(n: number, leaseMs: number): void;
  /** Ends the stream (the watcher must reconnect and start empty). */
  end(reason: string): void;
}

/** What the stream tells the hub of one watcher. */
export interface Watch {
  ack(seq: number): void;
  ping(n: number): void;
  /** The stream broke or was cancelled: nothing more is sent; a lease it holds is still waited out. */
  close(): void;
  /** The watcher ended its stream having cleared what it held: forgotten, never waited for again. */
  release(): void;
}

export interface SessionEventHub {
  /** Sends the event to every watcher; resolves once each acknowledging watcher has applied it or lost its lease. */
  publish(event: SessionEvent): Promise<void>;
  watch(watcher: { id: string; acknowledges: boolean }, sink: WatcherSink): Watch;
  /** Ends every stream (a shutdown, or the relay missed events): each watcher reconnects and starts empty. */
  endAll(reason: string): void;
  /** When the last lease granted so far ends, as this side counts it. */
  leasesEndBy(): number;
}

export interface SessionEventHubDeps {
  /** How long a lease lasts; 0 grants none (nothing a watcher holds is trusted). */
  leaseMs: number;
  /** Whether a lease may be granted now (session-relay.ts: only while this replica's registration holds); always by default. */
  mayGrant?: () => boolean;
  /** A monotonic clock (ms); performance.now by default. */
  now?: () => number;
  /** Calls `fn` after `ms`; returns its cancellation. setTimeout by default. */
  schedule?: (ms: number, fn: () => void) => () => void;
  log: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void };
}

interface LiveWatcher {
  id: string;
  acknowledges: boolean;
  sink: WatcherSink;
  acked: number;
  /** When its lease ends, as this side counts it (receipt of its last ping + leaseMs). */
  leaseEnd: number;
  /** Publications waiting for its ack of seq. */
  waiting: Array<{ seq: number; done: () => void }>;
}

const defaultSchedule = (ms: number, fn: () => void) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

export function sessionEventHub(deps: SessionEventHubDeps): SessionEventHub {
  const now = deps.now ?? (() => performance.now());
  const schedule = deps.schedule ?? defaultSchedule;
  const watchers = new Set<LiveWatcher>();
  /** Watchers whose stream is gone while their lease may still be trusted on their side. */
  const lapsing = new Set<LiveWatcher>();
  let seq = 0;
  let leasesEndBy = Number.NEGATIVE_INFINITY;

  const retire = (watcher: LiveWatcher) => {
    if (!watchers.delete(watcher)) return false;
    const left = watcher.leaseEnd - now();
    if (watcher.acknowledges && left > 0) {
      lapsing.add(watcher);
      schedule(left, () => lapsing.delete(watcher));
    }
    return true;
  };

  const drop = (watcher: LiveWatcher, reason: string) => {
    if (retire(watcher)) watcher.sink.end(reason);
  };

  /**
   * Resolves once the watcher acked seq, or once its lease as counted at publication has run out (then
   * dropping it if it is still connected). A stream that ends meanwhile changes nothing: the watcher may not
   * know yet (a partition) and trusts what it holds until that lease ends.
   */
  const acked = (watcher: LiveWatcher, event: number, leaseEnd: number): Promise<void> =>
    new Promise((resolve) => {
      let cancel = () => {};
      watcher.waiting.push({
        seq: event,
        done: () => {
          cancel();
          resolve();
        },
      });
      cancel = schedule(Math.max(0, leaseEnd - now()), () => {
        resolve();
        if (watcher.acked >= event || !watchers.has(watcher)) return;
        deps.log.warn("session event watcher did not acknowledge within its lease: dropped", { watcher: watcher.id, seq: event });
        drop(watcher, "no acknowledgement within the lease");
      });
    });

  return {
    publish(event) {
      seq += 1;
      const at = now();
      const waits: Promise<void>[] = [];
      for (const watcher of watchers) {
        watcher.sink.event(seq, event);
        if (watcher.acknowledges && watcher.leaseEnd > at && watcher.acked < seq) waits.push(acked(watcher, seq, watcher.leaseEnd));
      }
      for (const watcher of lapsing) {
        if (watcher.leaseEnd > at) waits.push(new Promise((resolve) => schedule(watcher.leaseEnd - at, resolve)));
      }
      return Promise.all(waits).then(() => undefined);
    },
    watch({ id, acknowledges }, sink) {
      // The same watcher again: it cleared what it held before opening this stream.
      for (const gone of lapsing) if (gone.id === id) lapsing.delete(gone);
      const watcher: LiveWatcher = { id, acknowledges, sink, acked: seq, leaseEnd: Number.NEGATIVE_INFINITY, waiting: [] };
      watchers.add(watcher);
      return {
        ack(upTo) {
          if (upTo <= watcher.acked) return;
          watcher.acked = upTo;
          const left: LiveWatcher["waiting"] = [];
          for (const waiter of watcher.waiting) {
            if (waiter.seq <= upTo) waiter.done();
            else left.push(waiter);
          }
          watcher.waiting = left;
        },
        ping(n) {
          if (!watchers.has(watcher)) return;
          // Only a watcher that acknowledges may hold a lease: the others are never waited for.
          const leaseMs = acknowledges && (deps.mayGrant?.() ?? true) ? deps.leaseMs : 0;
          // Recorded before the answer leaves, so this side never counts a lease shorter than the watcher's.
          if (leaseMs > 0) {
            watcher.leaseEnd = Math.max(watcher.leaseEnd, now() + leaseMs);
            leasesEndBy = Math.max(leasesEndBy, watcher.leaseEnd);
          }
          sink.lease(n, leaseMs);
        },
        close() {
          retire(watcher);
        },
        release() {
          watchers.delete(watcher);
          lapsing.delete(watcher);
        },
      };
    },
    endAll(reason) {
      for (const watcher of [...watchers]) drop(watcher, reason);
    },
    leasesEndBy: () => leasesEndBy,
  };
}
