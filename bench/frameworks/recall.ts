/**
 * The recall column of bench:frameworks: reference recall of what a tool left in the prompt, the measure
 * of `ctxcheck bench compaction` (src/cli/bench-compaction/measure.ts, reused as is). At model call k of
 * the replayed turn the cut is the recorded step k: the salient references are those the agent uses in
 * the trajectory's next `AFTER_WINDOW` messages from step k on (its text and tool-call arguments) that
 * already occurred in the raw history the framework holds at call k (the session before the turn, the
 * prompt, and the calls and results of steps 0..k−1 as the replay feeds them); recall is the share of
 * them present in the prompt the tool sent. A tool that sends the raw history scores 1.
 */
import { AFTER_WINDOW } from '../../src/cli/bench-compaction/cases.ts';
import { referenceRecall, salientReferences } from '../../src/cli/bench-compaction/measure.ts';
import type { Message, Part } from '../../src/core/index.ts';
import { calls, type Replay } from '../../test/frameworks/support/replay.ts';

export interface RecallScorer {
  /** Recall of the prompt sent at model call `k` (0-based). */
  at(k: number, sent: readonly Message[]): number;
}

/** Index in `replay.rest` where model call `k` starts: step k, or after the last step and its results. */
function cutIndex(replay: Replay, k: number): number {
  const step = replay.steps[k];
  if (step) return replay.rest.indexOf(step);
  let i = replay.rest.indexOf(replay.steps.at(-1)!) + 1;
  while (replay.rest[i]?.role === 'tool') i++;
  return i;
}

/** The raw history the framework holds at call `k`: what the replay fed it, before any tool reduced it. */
function rawPrefix(replay: Replay, k: number): Message[] {
  const results = new Map<string, Part>();
  for (const m of replay.rest)
    for (const p of m.parts) if (p.type === 'tool-result') results.set(p.callId, p);
  const out = [...replay.history, replay.prompt];
  for (const [j, step] of replay.steps.slice(0, k).entries()) {
    const cs = calls(step);
    out.push({ id: `replay-call-${j}`, role: 'assistant', parts: cs });
    const rs = cs.flatMap((c) => results.get(c.id) ?? []);
    if (rs.length > 0) out.push({ id: `replay-result-${j}`, role: 'tool', parts: rs });
  }
  return out;
}

export function recallScorer(replay: Replay): RecallScorer {
  const refs = new Map<number, string[]>();
  const salient = (k: number) => {
    let r = refs.get(k);
    if (r === undefined) {
      const at = cutIndex(replay, k);
      r = salientReferences(rawPrefix(replay, k), replay.rest.slice(at, at + AFTER_WINDOW));
      refs.set(k, r);
    }
    return r;
  };
  return { at: (k, sent) => referenceRecall(salient(k), sent) };
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}
