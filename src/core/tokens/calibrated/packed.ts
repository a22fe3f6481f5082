/**
 * Compact text encodings of the estimator's tables (they are most of its gzipped size): weights as
 * two base64 digits each on a logarithmic scale, bit sets as base64 digits of six bits.
 */

/** The base64 alphabet; a digit's value is its index. */
export const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Steps per octave of the weight scale: a weight is stored within ±0.27% (2^(1/256) − 1). */
const STEPS = 128;
/** Code of the weight 1 (code 0 stands for 0; the smallest other weight is 2^(−16)). */
const ONE = 2048;

/** Decodes weights packed by {@link packWeights}. */
export function unpackWeights(packed: string): number[] {
  const w: number[] = [];
  for (let i = 0; i < packed.length; i += 2) {
    const q = B64.indexOf(packed[i]!) * 64 + B64.indexOf(packed[i + 1]!);
    w.push(q && 2 ** ((q - ONE) / STEPS));
  }
  return w;
}

/** Packs non-negative weights below 2^16, two base64 digits each (the inverse of {@link unpackWeights}). */
export function packWeights(weights: readonly number[]): string {
  return weights
    .map((v) => {
      const q = v > 0 ? Math.min(4095, Math.max(1, Math.round(Math.log2(v) * STEPS + ONE))) : 0;
      return B64[q >> 6]! + B64[q & 63]!;
    })
    .join('');
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
