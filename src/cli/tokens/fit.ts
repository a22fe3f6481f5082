/**
 * Fitting of the calibrated estimator's weights: non-negative least squares on per-file relative
 * error, refined by iteratively reweighted least squares towards the mean absolute relative error.
 * Deterministic: no randomness, fixed iteration counts.
 */

export interface FitSample {
  features: Float64Array;
  /** Reference token count (> 0). */
  tokens: number;
  /** Relative importance of the sample. @default 1 */
  weight?: number;
}

export interface FitOptions {
  /** Ridge penalty pulling weights towards zero, relative to each feature's own scale. @default 1e-6 */
  ridge?: number;
  /** IRLS rounds towards an L1 (mean absolute) objective; 0 = plain least squares. @default 12 */
  irlsRounds?: number;
  /** Smallest residual that IRLS divides by (see {@link IRLS_FLOOR}). @default 0.05 */
  irlsFloor?: number;
}

/** Minimises Σ wᵢ (aᵢ·x − bᵢ)² + ridge·|x|² with x ≥ 0 by cyclic coordinate descent. */
export function nnls(
  rows: readonly Float64Array[],
  b: readonly number[],
  rowWeights: readonly number[],
  ridge = 1e-6,
): Float64Array {
  const m = rows[0]?.length ?? 0;
  const g = new Float64Array(m * m);
  const c = new Float64Array(m);
  rows.forEach((a, r) => {
    const rw = rowWeights[r]!;
    for (let i = 0; i < m; i++) {
      const ai = a[i]! * rw;
      if (ai === 0) continue;
      c[i]! += ai * b[r]!;
      for (let j = 0; j < m; j++) g[i * m + j]! += ai * a[j]!;
    }
  });
  // A tiny ridge, scaled per feature, keeps collinear features from drifting.
  for (let i = 0; i < m; i++) g[i * m + i]! += ridge * g[i * m + i]!;
  const x = new Float64Array(m);
  for (let sweep = 0; sweep < 5000; sweep++) {
    let change = 0;
    for (let i = 0; i < m; i++) {
      const gii = g[i * m + i]!;
      if (gii <= 0) continue;
      let grad = -c[i]!;
      for (let j = 0; j < m; j++) grad += g[i * m + j]! * x[j]!;
      const next = Math.max(0, x[i]! - grad / gii);
      change = Math.max(change, Math.abs(next - x[i]!));
      x[i] = next;
    }
    if (change < 1e-10) break;
  }
  return x;
}

export function predict(features: Float64Array, w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < features.length; i++) s += features[i]! * (w[i] ?? 0);
  return s;
}

/**
 * Smallest residual that IRLS divides by: 0.05 blends the L1 objective with least squares for
 * files already fitted within 5%, so the fit does not trade a few large errors (the p95) for many
 * exact fits.
 */
export const IRLS_FLOOR = 0.05;

/** Fits weights minimising the (weighted) mean absolute relative error of the samples. */
export function fitWeights(samples: readonly FitSample[], options: FitOptions = {}): Float64Array {
  const ridge = options.ridge ?? 1e-6;
  const rounds = options.irlsRounds ?? 12;
  const floor = options.irlsFloor ?? IRLS_FLOOR;
  // Relative error: divide each row and its target by the target, so every file counts alike.
  const rows = samples.map((s) => s.features.map((v) => v / s.tokens));
  const b = samples.map(() => 1);
  const base = samples.map((s) => s.weight ?? 1);
  let x = nnls(rows, b, base, ridge);
  for (let round = 0; round < rounds; round++) {
    const rw = rows.map((r, i) => base[i]! / Math.max(floor, Math.abs(predict(r, x) - 1)));
    x = nnls(rows, b, rw, ridge);
  }
  return x;
}

/** Rounds to `digits` significant digits. */
export function roundSig(v: number, digits = 4): number {
  if (v === 0 || !Number.isFinite(v)) return 0;
  return Number(v.toPrecision(digits));
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, v) => a + v, 0) / values.length;
}
