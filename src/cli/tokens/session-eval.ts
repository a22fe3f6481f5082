/**
 * Replays agent runs whose assistant messages carry the provider's real prompt-token count and
 * measures how far the estimate of each prompt is from it, raw and with the session calibrator.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CalibratedPreset,
  createCalibratedCounter,
  createSessionCalibrator,
  type Message,
  type SessionCalibratorOptions,
} from '../../core/index.ts';
import { mean } from './fit.ts';

interface RawMessage {
  role: string;
  content: unknown;
  usage?: { prompt_tokens?: number };
}

export interface SessionEvalRun {
  id: string;
  calls: number;
  /** Relative error of each call's prompt estimate, without correction. */
  raw: number[];
  /** The same with the session calibrator (factor learnt from the calls before). */
  calibrated: number[];
}

export interface SessionEvalResult {
  preset: CalibratedPreset;
  runs: SessionEvalRun[];
  /** Mean absolute relative error per call index (1-based, up to 5), raw and calibrated. */
  byCall: Array<{ call: number; raw: number; calibrated: number }>;
  /** Mean over every call after the third, pooled over runs. */
  afterThree: { raw: number; calibrated: number; maxCalibrated: number; calls: number };
}

function toMessage(m: RawMessage, i: number): Message {
  const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
  const role = m.role === 'system' || m.role === 'assistant' || m.role === 'tool' ? m.role : 'user';
  return { id: `m${i}`, role, parts: [{ type: 'text', text }] };
}

/**
 * Each assistant message's `usage.prompt_tokens` counts everything before it. Only message
 * content is counted (mini-swe-agent does not send earlier reasoning back).
 */
export async function evaluateSessionCalibration(
  dir: string,
  preset: CalibratedPreset,
  options: SessionCalibratorOptions = {},
): Promise<SessionEvalResult> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const counter = createCalibratedCounter({ preset });
  const runs: SessionEvalRun[] = [];
  for (const name of names) {
    const data = JSON.parse(await readFile(join(dir, name), 'utf8')) as {
      id?: string;
      messages: RawMessage[];
    };
    const calibrator = createSessionCalibrator(options);
    const run: SessionEvalRun = { id: data.id ?? name, calls: 0, raw: [], calibrated: [] };
    let estimate = 0;
    data.messages.forEach((m, i) => {
      const reported = m.usage?.prompt_tokens;
      if (m.role === 'assistant' && typeof reported === 'number' && reported > 0) {
        run.calls++;
        run.raw.push(Math.abs(estimate - reported) / reported);
        run.calibrated.push(Math.abs(estimate * calibrator.factor - reported) / reported);
        calibrator.observe(estimate, reported);
      }
      estimate += counter.countMessage(toMessage(m, i));
    });
    runs.push(run);
  }
  const byCall = [1, 2, 3, 4, 5].map((call) => ({
    call,
    raw: mean(runs.filter((r) => r.calls >= call).map((r) => r.raw[call - 1]!)),
    calibrated: mean(runs.filter((r) => r.calls >= call).map((r) => r.calibrated[call - 1]!)),
  }));
  const later = runs.flatMap((r) => r.calibrated.slice(3));
  return {
    preset,
    runs,
    byCall,
    afterThree: {
      raw: mean(runs.flatMap((r) => r.raw.slice(3))),
      calibrated: mean(later),
      maxCalibrated: later.reduce((a, v) => Math.max(a, v), 0),
      calls: later.length,
    },
  };
}
