/**
 * Compact text encodings of the estimator's tables (they are most of its gzipped size): weights as
 * 9-bit codes on a logarithmic scale, three base64 digits per two weights; bit sets as base64
 * digits of six bits.
 */

/** The base64 alphabet; a digit's value is its index. */
export const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Steps per octave of the weight scale: a weight is stored within ±1.1% (2^(1/64) − 1). */
const STEPS = 32;
/** Code of the weight 1; codes run 1–511 (2^−8 … 2^8), and 0 stands for 0. */
const ONE = 256;

/** Decodes weights packed by {@link packWeights}: 9 bits each, two weights per three digits. */
export function unpackWeights(packed: string, count: number): number[] {
  const w: number[] = [];
  for (let i = 0; w.length < count; i += 3) {
    let v = 0;
    for (let j = 0; j < 3; j++) v = v * 64 + B64.indexOf(packed[i + j]!);
    for (const q of [v >> 9, v & 511]) w.push(q && 2 ** ((q - ONE) / STEPS));
  }
  return w.slice(0, count);
}

/** Packs non-negative weights (the inverse of {@link unpackWeights}); below 2^−9 they become 0. */
export function packWeights(weights: readonly number[]): string {
  const codes = weights.map((v) =>
    v >= 2 ** ((1 - ONE) / STEPS) / 2
      ? Math.min(511, Math.max(1, Math.round(Math.log2(v) * STEPS + ONE)))
      : 0,
  );
  if (codes.length % 2) codes.push(0);
  let out = '';
  for (let i = 0; i < codes.length; i += 2) {
    const v = codes[i]! * 512 + codes[i + 1]!;
    out += B64[v >> 12]! + B64[(v >> 6) & 63]! + B64[v & 63]!;
  }
  return out;
}

/** Decodes a bit set of `size` bits, six per base64 digit, lowest bit first. */
export function unpackBits(packed: string, size: number): Uint8Array {
  const bits = new Uint8Array(size);
  for (let i = 0; i < size; i++) bits[i] = (B64.indexOf(packed[(i / 6) | 0]!) >> (i % 6)) & 1;
  return bits;
}

/** Packs a bit set (the inverse of {@link unpackBits}). */
export function packBits(bits: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bits.length; i += 6) {
    let d = 0;
    for (let j = 0; j < 6 && i + j < bits.length; j++) if (bits[i + j]) d |= 1 << j;
    out += B64[d];
  }
  return out;
}
