/**
 * Renders replay results: one line per fixture, an indented diff per failed expectation, and the
 * summary line `N passed, N failed` alone on its line.
 */
import type { FixtureFailure } from '../../core/index.ts';
import type { FixtureProblem } from '../fixture-loader.ts';

export interface ReplayOutcome {
  file: string;
  name: string;
  passed: boolean;
  failures: FixtureFailure[];
  ms: number;
}

function show(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (text ?? String(value)).split('\n');
}

/** A readable diff of one failed expectation. */
export function renderFailure(f: FixtureFailure): string[] {
  const lines = [`    ✗ ${f.path}: ${f.message}`];
  if (f.expected !== undefined)
    lines.push(
      ...show(f.expected).map((l, i) => `${i === 0 ? '      - expected ' : '                 '}${l}`),
    );
  if (f.actual !== undefined)
    lines.push(...show(f.actual).map((l, i) => `${i === 0 ? '      + actual   ' : '                 '}${l}`));
  return lines;
}

export function renderOutcome(o: ReplayOutcome): string[] {
  const head = `${o.passed ? 'PASS' : 'FAIL'}  ${o.file}  ${o.name}  (${o.ms} ms)`;
  return o.passed ? [head] : [head, ...o.failures.flatMap(renderFailure)];
}

export function renderProblem(p: FixtureProblem): string {
  return `INVALID  ${p.file}: ${p.path}: ${p.reason}`;
}

export function summaryLine(passed: number, failed: number): string {
  return `${passed} passed, ${failed} failed`;
}
