/**
 * The checks the commands share for the values of their options. Each fails as one line that names
 * the option (`CliError`, exit 2), never as the message of the core schema behind it.
 */
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
