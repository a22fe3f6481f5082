/** Why a call's level came out as it did, for the call page and the timeline. */
import type { StageReport } from '../core/pipeline/types.ts';

/**
 * Why the call's level came out as it did, in one line: the stages that acted (or failed); else, at
 * `ok`, the reason the first level-gated stage gave for not running, and above it the reason the last
 * stage that ran gave for doing nothing (at `compact`, the compaction's own).
 */
export function levelReason(reports: readonly StageReport[], level: string): string {
  const say = (r: StageReport) =>
    `${r.stage} ${r.status}${r.error ? `: ${r.error}` : r.detail ? `: ${r.detail}` : ''}`;
  const failed = reports.filter((r) => r.status === 'failed');
  if (failed.length > 0) return failed.map(say).join('; ');
  const applied = reports.filter((r) => r.status === 'applied');
  if (applied.length > 0) return applied.map(say).join('; ');
  const skipped = reports.find((r) => r.status === 'skipped');
  const ran = reports.filter((r) => r.status === 'noop').at(-1);
  const why = level === 'ok' ? (skipped ?? ran) : (ran ?? skipped);
  return why ? `nothing changed — ${say(why)}` : 'nothing changed';
}
