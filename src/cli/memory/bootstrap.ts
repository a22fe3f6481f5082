/**
 * Percentile bootstrap intervals for a mean over questions: resample the questions with
 * replacement (a seeded generator, so a rerun prints the same interval), take the mean of each
 * resample, and report the 2.5th and 97.5th percentiles.
 */

/** mulberry32: a small seeded generator (deterministic intervals across runs and machines). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interval {
  low: number;
  high: number;
}

/** The 95 % percentile-bootstrap interval of the mean of `values` (`[v, v]` for fewer than 2). */
export function bootstrapInterval(values: readonly number[], resamples = 1000, seed = 1): Interval {
  const n = values.length;
  if (n < 2) {
    const v = values[0] ?? 0;
    return { low: v, high: v };
  }
  const random = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  means.sort();
  const at = (p: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(p * (resamples - 1))))]!;
  return { low: at(0.025), high: at(0.975) };
}
