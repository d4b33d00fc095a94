/** The bounded hashing queue, on a fake clock with operations the test finishes by hand: no sleeps. */
import { describe, expect, it } from "vitest";
import { HashingQueue } from "./hashing-queue.js";
import { AFTER_HASH_MS, passwordHasher } from "./password.js";

/** An operation that ends when the test says so. */
function held<T = string>() {
  let finish!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let started = false;
  return {
    operation: () => {
      started = true;
      return promise;
    },
    get started() {
      return started;
    },
    finish,
    fail,
  };
}

function fakeClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Runs one operation that takes `ms` on the clock, so the queue knows an operation's mean time. */
async function warmUp(queue: HashingQueue, clock: ReturnType<typeof fakeClock>, ms: number): Promise<void> {
  const warm = held();
  const result = queue.run(warm.operation);
  clock.advance(ms);
  warm.finish("w");
  await result;
}

/** Lets settled promises run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const refused = { code: "SERVICE_UNAVAILABLE" };

describe("HashingQueue", () => {
  it("runs at most `concurrency` operations at once and starts the waiting ones in order", async () => {
    const queue = new HashingQueue({ concurrency: 2, maxQueued: 10, now: fakeClock().now });
    const ops = Array.from({ length: 4 }, () => held());
    const results = ops.map((op) => queue.run(op.operation));
    expect(ops.map((op) => op.started)).toEqual([true, true, false, false]);
    expect(queue.size).toEqual({ running: 2, waiting: 2 });
    ops[1]!.finish("b");
    await settle();
    expect(ops.map((op) => op.started)).toEqual([true, true, true, false]);
    ops[0]!.fail(new Error("scrypt failed"));
    await settle();
    expect(ops[3]!.started).toBe(true);
    ops[2]!.finish("c");
    ops[3]!.finish("d");
    await expect(results[0]).rejects.toThrow("scrypt failed");
    expect(await Promise.all(results.slice(1))).toEqual(["b", "c", "d"]);
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it("drops a waiting operation whose caller stops waiting, and gives its place to the next", async () => {
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 5, now: fakeClock().now });
    const ops = Array.from({ length: 3 }, () => held());
    const callers = ops.map(() => new AbortController());
    const results = ops.map((op, i) => queue.run(op.operation, undefined, callers[i]!.signal));
    callers[1]!.abort();
    await expect(results[1]).rejects.toMatchObject(refused);
    expect(queue.size).toEqual({ running: 1, waiting: 1 });
    // A running operation is not stopped (scrypt cannot be), and its caller's answer is still given.
    callers[0]!.abort();
    ops[0]!.finish("a");
    await settle();
    expect(ops.map((op) => op.started)).toEqual([true, false, true]);
    ops[2]!.finish("c");
    await expect(results[0]).resolves.toBe("a");
    await expect(results[2]).resolves.toBe("c");
    // A caller already gone is not queued at all.
    const late = held();
    await expect(queue.run(late.operation, undefined, AbortSignal.abort())).rejects.toMatchObject(refused);
    expect(late.started).toBe(false);
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it("refuses at once when the queue is full", async () => {
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 2, now: fakeClock().now });
    const ops = Array.from({ length: 4 }, () => held());
    const results = ops.map((op) => queue.run(op.operation));
    await expect(results[3]).rejects.toMatchObject(refused);
    // A refusal is answered, never logged with a stack: it captures none (it comes by the hundred under a flood).
    await expect(results[3]).rejects.not.toHaveProperty("stack", expect.stringMatching(/\n\s+at /));
    expect(ops[3]!.started).toBe(false);
    ops[0]!.finish("a");
    await settle();
    // A place came free: the next one is taken again.
    const later = held();
    const laterResult = queue.run(later.operation);
    for (const op of [ops[1]!, ops[2]!, later]) {
      await settle();
      op.finish("x");
    }
    await expect(laterResult).resolves.toBe("x");
  });

  it("refuses at once an operation that would finish after its deadline, from the mean duration so far", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 2, maxQueued: 100, now: clock.now });
    // Nothing has finished yet: no estimate, nothing refused on a guess.
    const first = [held(), held(), held()];
    const firstResults = first.map((op) => queue.run(op.operation));
    clock.advance(100);
    first[0]!.finish("a");
    first[1]!.finish("b");
    await settle();
    clock.advance(100);
    first[2]!.finish("c");
    await Promise.all(firstResults);
    // Mean duration now 100 ms (the third one ran 100 ms too). Two run; the 1st and 2nd waiting ones end
    // after 200 ms, the 3rd and 4th after 300 ms.
    const running = [held(), held()];
    running.forEach((op) => void queue.run(op.operation, clock.now() + 150));
    const deadline = clock.now() + 250;
    const waiting = [held(), held(), held()];
    const waitingResults = waiting.map((op) => queue.run(op.operation, deadline));
    await expect(waitingResults[2]).rejects.toMatchObject(refused);
    expect(queue.size).toEqual({ running: 2, waiting: 2 });
    // With no deadline, it waits however long.
    const patient = held();
    const patientResult = queue.run(patient.operation);
    expect(queue.size.waiting).toBe(3);
    clock.advance(100);
    for (const op of running) op.finish("x");
    await settle();
    expect(waiting.slice(0, 2).map((op) => op.started)).toEqual([true, true]);
    clock.advance(100);
    for (const op of waiting.slice(0, 2)) op.finish("x");
    await settle();
    patient.finish("x");
    await expect(Promise.all([...waitingResults.slice(0, 2), patientResult])).resolves.toEqual(["x", "x", "x"]);
  });

  it("refuses a waiting operation whose deadline can no longer be met when its turn comes", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 10, now: clock.now });
    await warmUp(queue, clock, 50);
    const slow = held();
    void queue.run(slow.operation);
    const late = held();
    const lateResult = queue.run(late.operation, clock.now() + 100);
    const after = held();
    const afterResult = queue.run(after.operation);
    // The running one takes far longer than the estimate: the waiting one's caller has given up meanwhile.
    clock.advance(500);
    slow.finish("s");
    await expect(lateResult).rejects.toMatchObject(refused);
    expect(late.started).toBe(false);
    await settle();
    expect(after.started).toBe(true);
    after.finish("a");
    await expect(afterResult).resolves.toBe("a");
  });

  it("admit throws the refusal run would give now, and nothing while a place is free", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 1, now: clock.now });
    expect(() => queue.admit(clock.now())).not.toThrow();
    await warmUp(queue, clock, 100);
    const running = held();
    void queue.run(running.operation);
    // One running (mean 100 ms): a waiting one would end 200 ms from now.
    expect(() => queue.admit(clock.now() + 150)).toThrow(expect.objectContaining(refused));
    expect(() => queue.admit(clock.now() + 250)).not.toThrow();
    const waiting = held();
    void queue.run(waiting.operation);
    expect(() => queue.admit()).toThrow(expect.objectContaining(refused));
    running.finish("r");
    await settle();
    waiting.finish("w");
  });

  it("counts only what is left of a running operation: behind one nearly done, a waiting one is not refused", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 10, now: clock.now });
    await warmUp(queue, clock, 100);
    const running = held();
    void queue.run(running.operation);
    clock.advance(90);
    // Mean 100 ms, 90 ms of it already run: a waiting one ends in about 110 ms, not two whole rounds (200).
    const waiting = held();
    const waitingResult = queue.run(waiting.operation, clock.now() + 150);
    // The next one ends a round later (about 210 ms): past the same deadline, refused.
    await expect(queue.run(held().operation, clock.now() + 150)).rejects.toMatchObject(refused);
    clock.advance(10);
    running.finish("r");
    await settle();
    expect(waiting.started).toBe(true);
    waiting.finish("x");
    await expect(waitingResult).resolves.toBe("x");
  });

  it("says when a refused caller with the same time to spare would be let in (deadline)", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 2, maxQueued: 100, now: clock.now });
    await warmUp(queue, clock, 100);
    // Mean 100 ms. Two run (30 ms in), four wait: a fifth waiting one would end at 70 + 2 * 100 + 100 = 370 ms.
    const ops = Array.from({ length: 6 }, () => held());
    ops.slice(0, 2).forEach((op) => void queue.run(op.operation).catch(() => {}));
    clock.advance(30);
    ops.slice(2).forEach((op) => void queue.run(op.operation).catch(() => {}));
    expect(() => queue.admit(clock.now() + 300)).toThrow(expect.objectContaining({ ...refused, retryAfterMs: 70 }));
    await expect(queue.run(held().operation, clock.now() + 300)).rejects.toMatchObject({ ...refused, retryAfterMs: 70 });
    // The hint holds: that long later, with no more arrivals and every operation on its mean, it is let in.
    clock.advance(70);
    expect(() => queue.admit(clock.now() + 300)).not.toThrow();
  });

  it("says when the full queue has room again", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 2, now: clock.now });
    await warmUp(queue, clock, 100);
    const ops = Array.from({ length: 3 }, () => held());
    ops.forEach((op) => void queue.run(op.operation).catch(() => {}));
    clock.advance(40);
    // Full: the first waiting one starts when the running one ends, in 60 ms, leaving a place in the queue.
    await expect(queue.run(held().operation)).rejects.toMatchObject({ ...refused, retryAfterMs: 60 });
    clock.advance(60);
    ops[0]!.finish("a");
    await settle();
    expect(() => queue.admit()).not.toThrow();
  });

  it("refuses a waiting operation whose turn came too late with a hint of one operation's time", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 10, now: clock.now });
    await warmUp(queue, clock, 80);
    const slow = held();
    void queue.run(slow.operation);
    const late = queue.run(held().operation, clock.now() + 200);
    clock.advance(400);
    slow.finish("s");
    // The mean is now 80 + 0.2 * (400 - 80) = 144 ms.
    await expect(late).rejects.toMatchObject({ ...refused, retryAfterMs: 144 });
  });

  it("counts an operation that throws at once as finished", async () => {
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 0, now: fakeClock().now });
    await expect(
      queue.run(() => {
        throw new Error("bad input");
      }),
    ).rejects.toThrow("bad input");
    await expect(queue.run(async () => "ok")).resolves.toBe("ok");
  });

  it("rejects a configuration with no place to run", () => {
    expect(() => new HashingQueue({ concurrency: 0, maxQueued: 1 })).toThrow(RangeError);
    expect(() => new HashingQueue({ concurrency: 1, maxQueued: -1 })).toThrow(RangeError);
  });
});

describe("passwordHasher", () => {
  it("verifies an unknown user through the same queue, refused alike when it is full", async () => {
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 0 });
    const passwords = passwordHasher(queue);
    const stored = await passwords.hash("correct horse battery");
    const busy = held();
    const busyResult = queue.run(busy.operation);
    await expect(passwords.verify(stored, "correct horse battery")).rejects.toMatchObject(refused);
    await expect(passwords.verifyNone("correct horse battery")).rejects.toMatchObject(refused);
    await expect(passwords.hash("another password")).rejects.toMatchObject(refused);
    busy.finish("done");
    await busyResult;
    await expect(passwords.verify(stored, "correct horse battery")).resolves.toBe(true);
    await expect(passwords.verifyNone("correct horse battery")).resolves.toBe(false);
  });

  it("admits hashing only if it ends AFTER_HASH_MS before the caller's deadline, leaving time for the rest of the request", async () => {
    const clock = fakeClock();
    const queue = new HashingQueue({ concurrency: 1, maxQueued: 10, now: clock.now });
    const passwords = passwordHasher(queue);
    await warmUp(queue, clock, 100);
    const running = held();
    void queue.run(running.operation);
    // One running (mean 100 ms): a waiting derivation would end 200 ms from now.
    expect(() => passwords.admit(clock.now() + 200 + AFTER_HASH_MS - 1)).toThrow(expect.objectContaining({ ...refused, retryAfterMs: 1 }));
    expect(() => passwords.admit(clock.now() + 200 + AFTER_HASH_MS)).not.toThrow();
    running.finish("r");
  });
});
