/**
 * How well one measurement tells two classes apart (known vs unknown account): the best accuracy of a
 * single threshold ("class A when the latency is above t", or below), as balanced accuracy, so 50% means
 * indistinguishable and 100% means every single request gives the answer away.
 *
 * The in-sample figure picks the threshold on the very samples it scores, so even identical distributions
 * score above 50% (about 50% + 0.43/sqrt(n) for n samples per class). The held-out figure picks the
 * threshold on one half of the samples and scores it on the other half (both ways, averaged): an honest
 * estimate of what an attacker who calibrated on their own accounts would get on a victim's.
 */

export interface ThresholdRule {
  threshold: number;
  /** true: "A" when value > threshold; false: "A" when value <= threshold. */
  aAbove: boolean;
}

/** Balanced accuracy of a rule on samples of A and B. */
export function accuracyOf(rule: ThresholdRule, a: readonly number[], b: readonly number[]): number {
  const aRight = a.filter((x) => x > rule.threshold === rule.aAbove).length;
  const bRight = b.filter((x) => x > rule.threshold !== rule.aAbove).length;
  return (aRight / a.length + bRight / b.length) / 2;
}

/** The rule with the best balanced accuracy on these samples, and that accuracy. */
export function bestThreshold(a: readonly number[], b: readonly number[]): ThresholdRule & { accuracy: number } {
  if (a.length === 0 || b.length === 0) throw new Error("bestThreshold: both classes need samples");
  const points = [...a.map((value) => ({ value, isA: true })), ...b.map((value) => ({ value, isA: false }))].sort((x, y) => x.value - y.value);
  // Sweep thresholds from below everything upwards: at each, count how many of A and B lie at or below it.
  let aBelow = 0;
  let bBelow = 0;
  let best = { threshold: points[0]!.value - 1, aAbove: true, accuracy: 0.5 };
  for (let i = 0; i <= points.length; i++) {
    if (i > 0) {
      if (points[i - 1]!.isA) aBelow++;
      else bBelow++;
      // Only between distinct values: a threshold cannot split equal ones.
      if (i < points.length && points[i]!.value === points[i - 1]!.value) continue;
    }
    const threshold = i === 0 ? points[0]!.value - 1 : points[i - 1]!.value;
    const aAboveAccuracy = ((a.length - aBelow) / a.length + bBelow / b.length) / 2;
    if (aAboveAccuracy > best.accuracy) best = { threshold, aAbove: true, accuracy: aAboveAccuracy };
    if (1 - aAboveAccuracy > best.accuracy) best = { threshold, aAbove: false, accuracy: 1 - aAboveAccuracy };
  }
  return best;
}

const half = <T>(values: readonly T[], parity: 0 | 1) => values.filter((_, i) => i % 2 === parity);

/** Threshold fitted on even-indexed samples and scored on odd ones, and the other way round, averaged. */
export function heldOutAccuracy(a: readonly number[], b: readonly number[]): number {
  if (a.length < 2 || b.length < 2) throw new Error("heldOutAccuracy: each class needs at least two samples");
  const score = (train: 0 | 1) => accuracyOf(bestThreshold(half(a, train), half(b, train)), half(a, train === 0 ? 1 : 0), half(b, train === 0 ? 1 : 0));
  return (score(0) + score(1)) / 2;
}

/** Balanced accuracy of telling the classes apart by an exact value (e.g. the HTTP status) alone. */
export function categoricalAccuracy<T>(a: readonly T[], b: readonly T[]): number {
  const values = new Set([...a, ...b]);
  // Say "A" for every value more frequent (relatively) in A than in B: the best any rule on this value can do.
  let aRight = 0;
  let bRight = 0;
  for (const value of values) {
    const inA = a.filter((x) => x === value).length / a.length;
    const inB = b.filter((x) => x === value).length / b.length;
    if (inA > inB) aRight += inA;
    else bRight += inB;
  }
  return (aRight + bRight) / 2;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
