/** JUnit XML for CI dashboards: one testsuite, one testcase per fixture, a failure per failed fixture. */
import type { FixtureProblem } from '../fixture-loader.ts';
import { type ReplayOutcome, renderFailure } from './replay-report.ts';

function esc(s: string): string {
  return s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

export function renderJunit(
  outcomes: readonly ReplayOutcome[],
  problems: readonly FixtureProblem[] = [],
): string {
  const failed = outcomes.filter((o) => !o.passed).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = outcomes.reduce((s, o) => s + o.ms, 0);
  const cases = outcomes.map((o) => {
    const attrs = `classname="${esc(o.file)}" name="${esc(o.name)}" time="${seconds(o.ms)}"`;
    if (o.passed) return `    <testcase ${attrs}/>`;
    const body = o.failures.flatMap(renderFailure).join('\n');
    const first = o.failures[0];
    return `    <testcase ${attrs}>\n      <failure message="${esc(first ? `${first.path}: ${first.message}` : 'failed')}">${esc(body)}</failure>\n    </testcase>`;
  });
  const errors = problems.map(
    (p) =>
      `    <testcase classname="${esc(p.file)}" name="${esc(p.file)}" time="0">\n      <error message="${esc(`${p.path}: ${p.reason}`)}"/>\n    </testcase>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${outcomes.length + problems.length}" failures="${failed}" errors="${problems.length}" time="${seconds(total)}">`,
    `  <testsuite name="ctxcheck replay" tests="${outcomes.length + problems.length}" failures="${failed}" errors="${problems.length}" time="${seconds(total)}">`,
    ...cases,
    ...errors,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
