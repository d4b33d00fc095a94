/**
 * The caller's short memory of a peer at capacity, and how a call waits on it (rpc-client.ts), on a fake
 * clock; and how a peer's catalogue error, its body fields included, is read back.
 */
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthError } from "./errors.js";
import { call, CapacityMemory, fromServiceError, HOLD_MAX_MS, holdFor, PACING_GAP_MAX_MS, PACING_GAP_MIN_MS, PACING_HALVES_EVERY_MS } from "./rpc-client.js";
import { catalogueStatus, ERROR_CODE_KEY, ERROR_FIELDS_KEY, RETRY_AFTER_KEY } from "./rpc-server.js";

const SIGN_IN = "/auth.identity.v1.IdentityService/SignInEmail";
const SIGN_UP = "/auth.identity.v1.IdentityService/SignUpEmail";

describe("CapacityMemory", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("after a refusal, lets that method's calls go one per hint (at most PACING_GAP_MAX_MS), and only that method's", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", "took", Date.now());
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    // A call with no opening is told the peer's own hint.
    memory.answered(SIGN_IN, "10.0.0.1:50051", 80, Date.now());
    expect(memory.admit(SIGN_IN)).toBe(80);
    expect(memory.admit(SIGN_UP)).toBeUndefined();
    // An answer to a call sent before the refusal (queued there until now) says nothing of room now.
    memory.answered(SIGN_IN, "10.0.0.1:50051", "took", Date.now() - 1);
    vi.advanceTimersByTime(79);
    expect(memory.admit(SIGN_IN)).toBe(80);
    vi.advanceTimersByTime(1);
    // The opening goes to one call; the next waits for the one after it, a hint later.
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(80);
    vi.advanceTimersByTime(100);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(80);
    // A long hint (a database out of reach) is followed for a small part only: the peer is asked again
    // soon, and a call refused meanwhile is told the hint whole.
    memory.answered(SIGN_IN, "10.0.0.1:50051", 5_000, Date.now());
    expect(memory.admit(SIGN_IN)).toBe(5_000);
    vi.advanceTimersByTime(PACING_GAP_MAX_MS - 1);
    expect(memory.admit(SIGN_IN)).toBe(5_000);
    vi.advanceTimersByTime(1);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(5_000);
  });

  it("stops pacing a peer once it takes a call sent after its last refusal", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", 5_000, Date.now());
    vi.advanceTimersByTime(PACING_GAP_MAX_MS);
    const sentAt = Date.now();
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(5_000);
    // Another refusal (one that may come before the work that needs room), or nothing heard, says nothing of room.
    vi.advanceTimersByTime(5);
    memory.answered(SIGN_IN, "10.0.0.1:50051", undefined, sentAt);
    expect(memory.admit(SIGN_IN)).toBe(5_000);
    // Served: every call goes again.
    memory.answered(SIGN_IN, "10.0.0.1:50051", "took", sentAt);
    for (let i = 0; i < 5; i++) expect(memory.admit(SIGN_IN)).toBeUndefined();
  });

  it("halves a peer's gap every PACING_HALVES_EVERY_MS after its last refusal, and stops pacing it under PACING_GAP_MIN_MS", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", 100, Date.now());
    vi.advanceTimersByTime(PACING_HALVES_EVERY_MS);
    // No refusal for that long: still paced, half the gap apart, so the calls held meanwhile do not all go at once.
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(100);
    vi.advanceTimersByTime(49);
    expect(memory.admit(SIGN_IN)).toBe(100);
    vi.advanceTimersByTime(1);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(100);
    // Six halvings leave 1.6 ms, still paced; the seventh is under PACING_GAP_MIN_MS: every call goes.
    vi.advanceTimersByTime(5 * PACING_HALVES_EVERY_MS);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(100);
    vi.advanceTimersByTime(PACING_HALVES_EVERY_MS);
    expect(100 / 2 ** 7).toBeLessThan(PACING_GAP_MIN_MS);
    for (let i = 0; i < 5; i++) expect(memory.admit(SIGN_IN)).toBeUndefined();
  });

  it("never makes a call wait while another replica heard from recently is not paced", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", "took", Date.now());
    memory.answered(SIGN_IN, "10.0.0.2:50051", "took", Date.now());
    memory.answered(SIGN_IN, "10.0.0.1:50051", 200, Date.now());
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    memory.answered(SIGN_IN, "10.0.0.2:50051", 100, Date.now());
    // The sooner of the two replicas' hints.
    expect(memory.admit(SIGN_IN)).toBe(100);
    // Each replica's opening goes to one call.
    vi.advanceTimersByTime(100);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(100);
    vi.advanceTimersByTime(100);
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBeUndefined();
    expect(memory.admit(SIGN_IN)).toBe(100);
  });
});

/**
 * A unary method of a fake client: answers each call with a capacity refusal carrying the retry hint
 * `hintMs` while `full`, else { ok: true }; records when each call reached it (on the fake clock).
 */
function fakePeer(refusal: { code: string; grpcStatus: number } = { code: "SERVICE_UNAVAILABLE", grpcStatus: grpc.status.UNAVAILABLE }, hintMs = 400) {
  const peer = { full: true, calls: [] as number[] };
  const method = Object.assign(
    (_request: object, _metadata: grpc.Metadata, _options: Partial<grpc.CallOptions>, callback: (error: grpc.ServiceError | null, response: { ok: boolean }) => void) => {
      peer.calls.push(Date.now());
      const full = peer.full;
      // Answered later, as grpc-js does (never inside the call).
      queueMicrotask(() => {
        if (!full) return callback(null, { ok: true });
        const metadata = new grpc.Metadata();
        metadata.set(ERROR_CODE_KEY, refusal.code);
        metadata.set(RETRY_AFTER_KEY, String(hintMs));
        callback(Object.assign(new Error("refused"), { code: refusal.grpcStatus, details: "", metadata }), { ok: false });
      });
      return { getPeer: () => "10.0.0.1:50051" } as unknown as grpc.ClientUnaryCall;
    },
    { path: SIGN_IN },
  );
  return { peer, method, client: {} as grpc.Client };
}

const BY_THE_CALLER = "peer at capacity (refused by the caller)";

describe("call() after the peer said it is at capacity", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("holds a call up to HOLD_MAX_MS, then sends it if an opening came and no other call took it, else refuses it itself", async () => {
    const { peer, method, client } = fakePeer(undefined, 60);
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 60 });
    expect(peer.calls).toEqual([1_000_000]);

    // The peer's next opening is 60 ms away: both calls wait, and nothing reaches the peer meanwhile.
    const first = call(client, method, {});
    const second = call(client, method, {});
    first.catch(() => undefined); // settle while the clock is moved; asserted below
    second.catch(() => undefined);
    const settled = vi.fn();
    Promise.allSettled([first, second]).then(settled);
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS - 1);
    expect(peer.calls).toHaveLength(1);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    // The first takes the opening and gets the peer's own answer; the second is refused here, without a stack.
    expect(peer.calls).toEqual([1_000_000, 1_000_000 + HOLD_MAX_MS]);
    await expect(first).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", cause: expect.objectContaining({ message: "refused" }) });
    const refusal = (await second.then(
      () => undefined,
      (error: Error) => error,
    )) as Error;
    expect(refusal).toMatchObject({ code: "SERVICE_UNAVAILABLE", cause: BY_THE_CALLER, retryAfterMs: 60 });
    expect(refusal.stack).not.toMatch(/\n\s+at /);
    expect(new Error("another").stack).toMatch(/\n\s+at /);

    // The peer has room again: the call at its next opening is answered by it.
    peer.full = false;
    await vi.advanceTimersByTimeAsync(60);
    await expect(call(client, method, {})).resolves.toEqual({ ok: true });
    expect(peer.calls).toHaveLength(3);
  });

  it("sends at once a call whose request already took the opening (RequestContext.admitted)", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    peer.full = false;
    await expect(call(client, method, {}, { context: { requestId: "r1", admitted: SIGN_IN } })).resolves.toEqual({ ok: true });
    expect(peer.calls).toEqual([1_000_000, 1_000_000]);
    // Another RPC's opening is not this one's.
    const other = call(client, method, {}, { context: { requestId: "r2", admitted: SIGN_UP } });
    other.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS);
    await expect(other).rejects.toMatchObject({ cause: BY_THE_CALLER });
    expect(peer.calls).toHaveLength(2);
  });

  it("a refusal of one caller with a retry hint (too many requests) holds and refuses no one else's calls", async () => {
    const { peer, method, client } = fakePeer({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", grpcStatus: grpc.status.RESOURCE_EXHAUSTED });
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", retryAfterMs: 400 });
    // The next call, anyone's, goes to the peer at once: only a peer at capacity makes the caller hold.
    peer.full = false;
    await expect(call(client, method, {})).resolves.toEqual({ ok: true });
    expect(peer.calls).toEqual([1_000_000, 1_000_000]);
  });

  it("ends a held call as soon as its caller stops waiting, without asking the peer", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const caller = new AbortController();
    const held = call(client, method, {}, { context: { signal: caller.signal } });
    const settled = vi.fn();
    held.then(settled, settled);
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS - 10);
    expect(settled).not.toHaveBeenCalled();
    caller.abort();
    await vi.advanceTimersByTimeAsync(0);
    // Answered at the abort, not when the hold would have ended; its timer is gone with it.
    expect(settled).toHaveBeenCalledTimes(1);
    await expect(held).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.CANCELLED, cause: "the caller stopped waiting" });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS);
    expect(peer.calls).toHaveLength(1);
  });

  it("holds for at most half the time left to the deadline, and refuses at once when that is too short", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const soon = call(client, method, {}, { context: { deadline: Date.now() + 120 } });
    const settled = vi.fn();
    soon.then(settled, settled);
    await vi.advanceTimersByTimeAsync(59);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(soon).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", cause: BY_THE_CALLER });

    // 80 ms left: no hold, the caller's own refusal at once, and the peer is not asked.
    await expect(call(client, method, {}, { context: { deadline: Date.now() + 80 } })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      cause: BY_THE_CALLER,
    });
    expect(peer.calls).toHaveLength(1);
    expect(holdFor(99)).toBe(0);
    expect(holdFor(100)).toBe(50);
    expect(holdFor(60_000)).toBe(HOLD_MAX_MS);
  });
});

describe("fromServiceError", () => {
  const asServiceError = (status: Partial<grpc.StatusObject>) => Object.assign(new Error("refused"), status) as grpc.ServiceError;

  it("gives back the code, message and body fields the peer sent", () => {
    const sent = new AuthError("BANNED_USER", undefined, { fields: { banExpires: "2027-03-03T10:00:00.000Z", reason: null } });
    expect(fromServiceError(asServiceError(catalogueStatus(sent)))).toMatchObject({
      code: "BANNED_USER",
      message: "You have been banned from this application",
      fields: { banExpires: "2027-03-03T10:00:00.000Z", reason: null },
    });
  });

  it("drops a fields trailer that is not an object of strings and nulls", () => {
    for (const raw of ["not json", "[1]", '{"banExpires":5}', "null"]) {
      const status = catalogueStatus(new AuthError("BANNED_USER"));
      status.metadata!.set(ERROR_FIELDS_KEY, raw);
      const error = fromServiceError(asServiceError(status));
      expect(error.code).toBe("BANNED_USER");
      expect(error.fields).toBeUndefined();
    }
  });
});
