import { describe, expect, it } from 'vitest';
import { recallScorer } from '../../bench/frameworks/recall.ts';
import { calls, HAVE_DATA, loadReplay, NO_DATA } from './support/replay.ts';

describe('recallScorer (bench:frameworks)', () => {
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
  it.skipIf(!HAVE_DATA)(
    'scores the raw history 1, and a prompt without the old session lower at every call',
    () => {
      const replay = loadReplay(10);
      const scorer = recallScorer(replay);
      for (let k = 0; k <= replay.steps.length; k++) {
        const turn = replay.steps.slice(0, k).map((s, j) => ({
          id: `c${j}`,
          role: 'assistant' as const,
          parts: calls(s),
        }));
        const raw = [...replay.history, replay.prompt, ...turn];
        // Tool results of the turn are left out of both: what differs is the old session.
        expect(scorer.at(k, raw), `call ${k}`).toBeGreaterThanOrEqual(scorer.at(k, [replay.prompt, ...turn]));
      }
      expect(scorer.at(0, [...replay.history, replay.prompt])).toBe(1);
      expect(scorer.at(0, [replay.prompt])).toBeLessThan(1);
    },
  );
});
