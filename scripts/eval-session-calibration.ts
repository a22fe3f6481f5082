/**
 * Self-correction on real runs: `npx tsx scripts/eval-session-calibration.ts [--dir …] [--presets gemini,o200k]`.
 * mini-swe-agent's assistant messages carry Gemini 3 Pro's real prompt-token counts.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { evaluateSessionCalibration } from '../src/cli/tokens/session-eval.ts';
import { type CalibratedPreset, isCalibratedPreset } from '../src/core/index.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '../shared/data/trajectories/mini-swe-agent' },
    presets: { type: 'string', default: 'gemini,gemma3,o200k,claude' },
  },
});
if (!existsSync(values.dir)) {
  console.error(`eval-session-calibration: no trajectories at ${values.dir}; nothing to do`);
  process.exit(2);
}
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
console.log(
  '| preset | runs | call 1 raw | call 2 | call 3 | calls 4+ raw | calls 4+ calibrated | worst call 4+ |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const p of values.presets.split(',')) {
  if (!isCalibratedPreset(p)) throw new Error(`--presets: unknown preset '${p}'`);
  const r = await evaluateSessionCalibration(values.dir, p as CalibratedPreset);
  const [c1, c2, c3] = r.byCall;
  console.log(
    `| ${p} | ${r.runs.length} | ${pct(c1!.raw)} | ${pct(c2!.calibrated)} | ${pct(c3!.calibrated)} | ${pct(r.afterThree.raw)} | ${pct(r.afterThree.calibrated)} | ${pct(r.afterThree.maxCalibrated)} |`,
  );
}
