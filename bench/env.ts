/** A BENCH_* setting that is a number: the fallback when unset or empty, an error naming it when not a non-negative number. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number (got ${raw})`);
  return value;
}
