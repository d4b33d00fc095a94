/** The caller's short memory of a peer at capacity (rpc-client.ts), on a fake clock. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CapacityMemory, SHORT_CIRCUIT_MAX_MS } from "./rpc-client.js";

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
