/**
 * Vectors in a TEXT column: base64 of little-endian float32 (about 4× smaller and much faster to
 * decode than a JSON array); `[`-prefixed JSON arrays are still read. Web-standard `btoa`/`atob`,
 * so the same code runs in Node and Workers.
 */

export function encodeVector(vector: readonly number[]): string {
  const bytes = new Uint8Array(Float32Array.from(vector).buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function decodeVector(text: string): number[] {
  if (text.startsWith('[')) return JSON.parse(text) as number[];
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return Array.from(new Float32Array(bytes.buffer, 0, bytes.length >> 2));
}
