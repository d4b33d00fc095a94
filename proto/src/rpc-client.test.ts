/**
 * The caller's short memory of a peer at capacity, and how a call waits on it (rpc-client.ts), on a fake
 * clock; and how a peer's catalogue error, its body fields included, is read back.
 */
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthError } from "./errors.js";
import { call, CapacityMemory, fromServiceError, HOLD_MAX_MS, holdFor, SHORT_CIRCUIT_MAX_MS } from "./rpc-client.js";
import { catalogueStatus, ERROR_CODE_KEY, ERROR_FIELDS_KEY, RETRY_AFTER_KEY } from "./rpc-server.js";

const SIGN_IN = "/auth.identity.v1.IdentityService/SignInEmail";
const SIGN_UP = "/auth.identity.v1.IdentityService/SignUpEmail";

describe("CapacityMemory", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("refuses a method for the peer's hint, at most SHORT_CIRCUIT_MAX_MS, and only that method", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", undefined);
    expect(memory.refusal(SIGN_IN)).toBeUndefined();
    memory.answered(SIGN_IN, "10.0.0.1:50051", 80);
    expect(memory.refusal(SIGN_IN)).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 80 });
    expect(memory.refusal(SIGN_UP)).toBeUndefined();
    // An answer to a call taken earlier says nothing of room now: the window holds.
    memory.answered(SIGN_IN, "10.0.0.1:50051", undefined);
    vi.advanceTimersByTime(79);
    expect(memory.refusal(SIGN_IN)).toMatchObject({ retryAfterMs: 1 });
    vi.advanceTimersByTime(1);
    expect(memory.refusal(SIGN_IN)).toBeUndefined();
    // A long hint is followed for a small part only: the peer is asked again soon.
    memory.answered(SIGN_IN, "10.0.0.1:50051", 3_000);
    expect(memory.refusal(SIGN_IN)).toMatchObject({ retryAfterMs: SHORT_CIRCUIT_MAX_MS });
    vi.advanceTimersByTime(SHORT_CIRCUIT_MAX_MS);
    expect(memory.refusal(SIGN_IN)).toBeUndefined();
  });

  it("builds its refusal without a stack (a hundred a second under a retry storm) and leaves the stack limit as it was", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", 80);
    const limit = Error.stackTraceLimit;
    const refusal = memory.refusal(SIGN_IN);
    expect(memory.busyForMs(SIGN_IN)).toBe(80);
    expect(refusal?.stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("another").stack).toMatch(/\n\s+at /);
  });

  it("never refuses while another replica heard from recently has not said it is at capacity", () => {
    const memory = new CapacityMemory();
    memory.answered(SIGN_IN, "10.0.0.1:50051", undefined);
    memory.answered(SIGN_IN, "10.0.0.2:50051", undefined);
    memory.answered(SIGN_IN, "10.0.0.1:50051", 200);
    expect(memory.refusal(SIGN_IN)).toBeUndefined();
    memory.answered(SIGN_IN, "10.0.0.2:50051", 100);
    expect(memory.refusal(SIGN_IN)).toMatchObject({ retryAfterMs: 100 });
    vi.advanceTimersByTime(100);
    expect(memory.refusal(SIGN_IN)).toBeUndefined();
  });
});

/**
 * A unary method of a fake client: answers each call with a capacity refusal carrying a retry
 * hint while `full`, else { ok: true }; records when each call reached it (on the fake clock).
 */
function fakePeer(refusal: { code: string; grpcStatus: number } = { code: "SERVICE_UNAVAILABLE", grpcStatus: grpc.status.UNAVAILABLE }) {
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
        metadata.set(RETRY_AFTER_KEY, "400");
        callback(Object.assign(new Error("refused"), { code: refusal.grpcStatus, details: "", metadata }), { ok: false });
      });
      return { getPeer: () => "10.0.0.1:50051" } as unknown as grpc.ClientUnaryCall;
    },
    { path: "/auth.identity.v1.IdentityService/SignInEmail" },
  );
  return { peer, method, client: {} as grpc.Client };
}

describe("call() after the peer said it is at capacity", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("holds the next call up to HOLD_MAX_MS, then asks the peer once and gives its answer", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 400 });
    expect(peer.calls).toEqual([1_000_000]);

    // Inside the window: nothing reaches the peer until the hold ends, then one call does.
    const held = call(client, method, {});
    const settled = vi.fn();
    held.then(settled, settled);
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS - 1);
    expect(peer.calls).toHaveLength(1);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(peer.calls).toEqual([1_000_000, 1_000_000 + HOLD_MAX_MS]);
    // Still full: the peer's own refusal, once (no second attempt).
    await expect(held).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 400 });

    // The peer has room again: a held call is answered by it.
    peer.full = false;
    const next = call(client, method, {});
    await vi.advanceTimersByTimeAsync(HOLD_MAX_MS);
    await expect(next).resolves.toEqual({ ok: true });
    expect(peer.calls).toHaveLength(3);
  });

  it("a refusal of one caller with a retry hint (too many requests) holds and refuses no one else's calls", async () => {
    const { peer, method, client } = fakePeer({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", grpcStatus: grpc.status.RESOURCE_EXHAUSTED });
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", retryAfterMs: 400 });
    // The next call, anyone's, goes to the peer at once: only a peer at capacity makes the caller hold.
    peer.full = false;
    await expect(call(client, method, {})).resolves.toEqual({ ok: true });
    expect(peer.calls).toEqual([1_000_000, 1_000_000]);
  });

  it("refuses a held call itself when the peer refused another call while it waited", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const held = call(client, method, {});
    held.catch(() => undefined); // settles while the clock is moved; asserted below
    // The window (250 ms) lapses; a call that comes in later goes to the peer, which is still full.
    await vi.advanceTimersByTimeAsync(900);
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 400 });
    expect(peer.calls).toHaveLength(2);
    // The held call wakes inside the window that refusal opened: answered here, the peer not asked again.
    await vi.advanceTimersByTimeAsync(100);
    await expect(held).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: SHORT_CIRCUIT_MAX_MS - 100 });
    expect(peer.calls).toHaveLength(2);
  });

  it("ends a held call as soon as its caller stops waiting, without asking the peer", async () => {
    const { peer, method, client } = fakePeer();
    await expect(call(client, method, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const caller = new AbortController();
    const held = call(client, method, {}, { context: { signal: caller.signal } });
    const settled = vi.fn();
    held.then(settled, settled);
    await vi.advanceTimersByTimeAsync(100);
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
    const soon = call(client, method, {}, { context: { deadline: Date.now() + 600 } });
    soon.catch(() => undefined); // settles while the clock is moved; asserted below
    await vi.advanceTimersByTimeAsync(299);
    expect(peer.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(peer.calls).toHaveLength(2);
    await expect(soon).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });

    // 80 ms left: no hold, the caller's own refusal at once, and the peer is not asked.
    await expect(call(client, method, {}, { context: { deadline: Date.now() + 80 } })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.any(String),
    });
    expect(peer.calls).toHaveLength(2);
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
