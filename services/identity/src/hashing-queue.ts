/**
 * A bounded queue in front of password hashing. scrypt is the one CPU-heavy thing identity does: with no
 * bound, a burst of sign-ins queues on libuv's threadpool past every caller's deadline (each answered 503
 * by the gateway only after its full gRPC deadline, with the work still done), and the hashing takes the
 * CPU the gateway and the session service need for get-session.
 *
 * At most `concurrency` operations run at once; up to `maxQueued` more wait in order. An operation is
 * refused at once with SERVICE_UNAVAILABLE (503 at the gateway) when the queue is full, or when it would
 * not finish before its deadline: the expected wait is estimated from the mean duration of the operations
 * that ran before it. A waiting operation whose deadline can no longer be met when its turn comes is
 * refused then instead of run. Refusal depends only on the queue's state, never on what is hashed, so a
 * known and an unknown user are refused alike. Every refusal carries the queue's estimate of when a caller
 * with the same time to spare would be let in (AuthError.retryAfterMs: Retry-After at the gateway). A
 * waiting operation whose caller stops waiting (its signal aborts) leaves the queue without running.
 */
import { AuthError, withoutStack } from "@auth-platform/proto/errors";

export interface HashingQueueOptions {
  /** Operations running at once (scrypt derivations in flight). */
  concurrency: number;
  /** Operations allowed to wait behind those; one more is refused. */
  maxQueued: number;
  /** Milliseconds since some fixed point (the epoch in production); tests pass a fake clock. */
  now?: () => number;
}

interface Waiting {
  deadline: number;
  start(): void;
  refuse(error: AuthError): void;
  /** Stops listening to the caller's signal (it started, or was refused). */
  release(): void;
}

/** Weight of the newest duration in the running mean. */
const SMOOTHING = 0.2;

export class HashingQueue {
  readonly concurrency: number;
  readonly maxQueued: number;
  private readonly now: () => number;
  private running = 0;
  /** When each running operation started (same clock as `now`). */
  private readonly startedAt = new Set<{ at: number }>();
  private readonly waiting: Waiting[] = [];
  /** Mean duration of one operation in ms; 0 until one has finished (nothing is refused on a guess). */
  private meanMs = 0;

  constructor(options: HashingQueueOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new RangeError("concurrency must be a positive integer");
    if (!Number.isInteger(options.maxQueued) || options.maxQueued < 0) throw new RangeError("maxQueued must be a non-negative integer");
    this.concurrency = options.concurrency;
    this.maxQueued = options.maxQueued;
    this.now = options.now ?? Date.now;
  }

  /** Operations running and waiting now. */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `operation` when a place is free, or refuses it with SERVICE_UNAVAILABLE. `deadline` (same clock
   * as `now`) is when the caller stops waiting; Infinity for none.
   */
  run<T>(operation: () => Promise<T>, deadline = Number.POSITIVE_INFINITY, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(gone());
    if (this.running < this.concurrency && this.waiting.length === 0) return this.start(operation);
    const refusal = this.refusal(deadline);
    if (refusal) return Promise.reject(refusal);
    return new Promise<T>((resolve, reject) => {
      // The caller stopped waiting (its client went away, its call was cancelled): its place goes to the
      // next one instead of to work nobody will read.
      const leave = () => {
        const at = this.waiting.indexOf(waiting);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(gone());
      };
      const waiting: Waiting = {
        deadline,
        start: () => void this.start(operation).then(resolve, reject),
        refuse: reject,
        release: () => signal?.removeEventListener("abort", leave),
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.waiting.push(waiting);
    });
  }

  /**
   * Throws the refusal an operation with this deadline would get now. A caller checks before the work that
   * leads up to its hashing (sign-in's user lookup), so a request beyond capacity costs no query: under a
   * flood of refused requests that work took the CPU the hashing needed.
   */
  admit(deadline = Number.POSITIVE_INFINITY): void {
    if (this.running < this.concurrency && this.waiting.length === 0) return;
    const refusal = this.refusal(deadline);
    if (refusal) throw refusal;
  }

  private refusal(deadline: number): AuthError | undefined {
    const now = this.now();
    const full = this.waiting.length >= this.maxQueued;
    const overshootMs = now + this.expectedEndMs(this.waiting.length + 1) - deadline;
    if (!full && overshootMs <= 0) return undefined;
    // When one with the same time to spare would be let in, if no more arrive meanwhile: once enough of the
    // waiting ones have started to free a place in the queue, and once the work ahead has shrunk by the
    // time it overshoots its deadline now.
    const roomMs = full ? this.expectedStartMs(this.waiting.length - this.maxQueued + 1) : 0;
    return busy(full ? "queue full" : "deadline", Math.max(roomMs, overshootMs));
  }

  /** From now until the n-th waiting operation would start, if every operation takes the mean (see below). */
  private expectedStartMs(position: number): number {
    return this.expectedEndMs(position) - this.meanMs;
  }

  /**
   * From now until the n-th waiting operation would finish, if every operation takes the mean: each place
   * frees when its running operation ends (the mean less the time it has already run, so one nearly done
   * is not counted as a whole round), then runs the waiting ones in turn; the n-th takes the place that
   * frees n-th, after the rounds of operations ahead of it there, then runs its own.
   */
  private expectedEndMs(position: number): number {
    const now = this.now();
    const frees = [...this.startedAt].map(({ at }) => Math.max(0, this.meanMs - (now - at)));
    while (frees.length < this.concurrency) frees.push(0);
    frees.sort((a, b) => a - b);
    const rounds = Math.floor((position - 1) / this.concurrency);
    return frees[(position - 1) % this.concurrency]! + rounds * this.meanMs + this.meanMs;
  }

  private start<T>(operation: () => Promise<T>): Promise<T> {
    this.running++;
    const started = { at: this.now() };
    this.startedAt.add(started);
    const done = () => {
      this.startedAt.delete(started);
      const took = this.now() - started.at;
      this.meanMs = this.meanMs === 0 ? took : this.meanMs + SMOOTHING * (took - this.meanMs);
      this.running--;
      this.next();
    };
    let result: Promise<T>;
    try {
      result = operation();
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(done, done);
    return result;
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const waiting = this.waiting.shift()!;
      waiting.release();
      // Its caller would be gone before it finished: refuse it now rather than spend the CPU.
      // The place it leaves is free now; the hint is about one operation's time, when the next one frees.
      if (this.now() + this.meanMs > waiting.deadline) waiting.refuse(busy("deadline", this.meanMs));
      else waiting.start();
    }
  }
}

/** Why a waiting operation was dropped: its caller stopped waiting, so nobody reads this answer. */
function gone(): AuthError {
  return new AuthError("SERVICE_UNAVAILABLE", undefined, { cause: "password hashing: the caller stopped waiting" });
}

/**
 * The refusal, with when to try again (ms). It must cost next to nothing: its cause is a plain string, and
 * it captures no stack (withoutStack) nobody would read (a refusal is answered, not logged).
 */
function busy(reason: "queue full" | "deadline", retryAfterMs: number): AuthError {
  return withoutStack(
    () => new AuthError("SERVICE_UNAVAILABLE", undefined, { cause: `password hashing at capacity (${reason})`, retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) }),
  );
}
