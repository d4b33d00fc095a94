/** A BENCH_* setting that is a number: the fallback when unset or empty, an error naming it when not a non-negative number. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number (got ${raw})`);
  return value;
}

/**
 * Seconds of unmeasured sign-ins before sign-in is measured (bench/run.ts, bench/peer.ts). At 20 to 40
 * sign-ins a second V8 is still compiling the sign-in path's code for the first half minute (a function is
 * optimised after hundreds to thousands of calls), and capacity is what a server does once it has.
 */
export const SIGN_IN_WARMUP = envNumber("BENCH_SIGN_IN_WARMUP", 30);
