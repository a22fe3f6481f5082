/**
 * Framework messages may hold bytes (`Uint8Array`, `ArrayBuffer`) and `URL`s where ctxkit's neutral
 * model holds JSON only. These two functions turn such a value into JSON and back: bytes become
 * `{ $bytes: base64 }`, a URL `{ $url: href }`; everything else is copied as is.
 */
import type { JsonValue } from '../../core/index.ts';

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    s += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 0x8000)));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Sets an own property, `__proto__` included (JSON.parse makes one; plain assignment would set the prototype). */
function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}

/** `value` as JSON: bytes and URLs tagged, `undefined` members dropped. */
export function toJsonSafe(value: unknown): JsonValue {
  if (value === null || typeof value !== 'object') return (value ?? null) as JsonValue;
  if (value instanceof Uint8Array) return { $bytes: toBase64(value) };
  if (value instanceof ArrayBuffer) return { $bytes: toBase64(new Uint8Array(value)) };
  if (value instanceof URL) return { $url: value.href };
  if (Array.isArray(value)) return value.map(toJsonSafe);
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, toJsonSafe(v));
  return out;
}

/** The inverse of `toJsonSafe` (bytes come back as a `Uint8Array`). */
export function fromJsonSafe(value: JsonValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromJsonSafe);
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value.$bytes === 'string') return fromBase64(value.$bytes);
  if (keys.length === 1 && typeof value.$url === 'string') return new URL(value.$url);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, fromJsonSafe(v));
  return out;
}
