/**
 * Reads fixture files: JSON syntax errors come back with line and column, schema errors with the
 * JSON path and the reason — as data, so commands can render them without a stack trace.
 */
import { readFile } from 'node:fs/promises';
import { type Fixture, isCtxError, parseFixture } from '../core/index.ts';

export interface FixtureProblem {
  file: string;
  /** JSON path inside the file, or `(file)` for read and syntax errors. */
  path: string;
  reason: string;
}

export type LoadedFixture =
  | { file: string; fixture: Fixture; raw: unknown }
  | { file: string; problem: FixtureProblem };

/** `position 123` in a JSON.parse message → `line 4, column 7`. */
export function jsonErrorLocation(text: string, message: string): string | undefined {
  const m = /position (\d+)/.exec(message);
  if (!m) return undefined;
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

export function parseJsonText(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const where = jsonErrorLocation(text, message);
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/, '')
      .replace(/,\s*".*" is not valid JSON$/s, '');
    return { error: where ? `invalid JSON at ${where}: ${reason}` : `invalid JSON: ${reason}` };
  }
}

export async function loadFixture(file: string): Promise<LoadedFixture> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { file, problem: { file, path: '(file)', reason: e instanceof Error ? e.message : String(e) } };
  }
  const parsed = parseJsonText(text);
  if ('error' in parsed) return { file, problem: { file, path: '(file)', reason: parsed.error } };
  try {
    return { file, fixture: parseFixture(parsed.value), raw: parsed.value };
  } catch (e) {
    if (isCtxError(e)) {
      const path = e.path ?? '(root)';
      return { file, problem: { file, path, reason: e.message.replace(`${path}: `, '') } };
    }
    throw e;
  }
}
