/**
 * The checks the commands share for the values of their options: a number in its range, a file the
 * command writes. Each fails as one line that names the option (`CliError`, exit 2), never as the
 * message of the core schema or of the filesystem call behind it.
 */
import { existsSync, statSync } from 'node:fs';
import { realpath, writeFile } from 'node:fs/promises';
import { LIMITS } from '../core/index.ts';
import { CliError } from './io.ts';

/** `--window`: a context window in tokens, up to the budget's own bound (`LIMITS.tokens`). */
export function windowOption(value: unknown): number {
  return integerOption('--window', value, 1, LIMITS.tokens);
}

/**
 * An integer option from `min` to `max`: `--window -5`, `--top 2.5` or `--top abc` (NaN) is refused,
 * not floored, counted from the end or read as zero.
 */
export function integerOption(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new CliError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/**
 * `--data DIR` of a benchmark, when it exists: a file there is refused here, where listing it said
 * `ENOTDIR: not a directory, scandir …` without the option. (What a missing folder means is each
 * benchmark's own: one line and exit 2, or a skip.)
 */
export function dataDirOption(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new CliError(`--data: ${dir} is not a directory`);
}

/** Writes a file an option names (`--out`, `--journal`, `--junit`, `--html`); a failure names the option. */
export async function writeOptionFile(name: string, file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (e) {
    throw new CliError(`${name}: cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** Whether two paths name one file (by real path: `./s.json`, `s.json`, a symlink to it). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const real = (p: string) => realpath(p).catch(() => p);
  return (await real(a)) === (await real(b));
}
