/**
 * When to try a failed message again: exponential backoff with jitter, capped. After the nth failed attempt
 * the nominal delay is base * 2^(n-1), at most max; the actual delay is drawn uniformly from its upper half
 * ("equal jitter"), so replicas that failed together do not retry in lockstep, yet no retry comes sooner
 * than half the nominal delay.
 */

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/** Milliseconds to wait after `attempts` failed attempts (attempts >= 1). `random` returns [0, 1). */
export function retryDelay(attempts: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 30);
  const nominal = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  return Math.round(nominal / 2 + random() * (nominal / 2));
}
