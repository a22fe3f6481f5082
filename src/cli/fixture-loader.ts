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

/**
 * Where a JSON.parse error sits, as `line L, column C`: from `position N` when the message has one,
 * else by finding the excerpt Node 20 quotes (`…"preset": }" is not valid JSON`) in the text.
 */
export function jsonErrorLocation(text: string, message: string): string | undefined {
  let pos: number | undefined;
  const m = /position (\d+)/.exec(message);
  if (m) pos = Number(m[1]);
  else if (/Unexpected end of JSON input/.test(message)) pos = text.length;
  else {
    const quoted = /, (?:\.\.\.)?"([\s\S]*?)(?:\.\.\.)?" is not valid JSON$/.exec(message);
    const excerpt = quoted?.[1];
    if (excerpt) {
      const at = text.indexOf(excerpt);
      const token = /Unexpected token '(.)'/.exec(message)?.[1];
      if (at >= 0)
        pos = token !== undefined && excerpt.lastIndexOf(token) >= 0 ? at + excerpt.lastIndexOf(token) : at;
    }
  }
  if (pos === undefined) return undefined;
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
      .replace(/,\s*(\.\.\.)?"[\s\S]*" is not valid JSON$/, '');
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
