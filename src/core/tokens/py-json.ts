import type { JsonValue } from '../messages/types.ts';

/**
 * Python's `json.dumps(value, ensure_ascii=False)`: separators `", "` and `": "`, non-ASCII kept.
 * CowAgent and co-cli measure tool arguments and dict outputs this way (SEED-RULES §1.9, §3.1).
 */
export function pyJsonDumps(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${pyJsonDumps(v)}`)
    .join(', ')}}`;
}

function pyFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : Number.isNaN(n) ? 'NaN' : '-Infinity';
  const s = String(n);
  return s.includes('e') || s.includes('.') ? s : `${s}.0`;
}
