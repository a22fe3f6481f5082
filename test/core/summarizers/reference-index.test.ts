import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  distinctReferences,
  fitReferences,
  referenceLines,
} from '../../../src/core/summarizers/reference-index.ts';

/** The definitions as they read, pair by pair: the indexed versions must agree with them exactly. */
function distinctByPairs(ranked: readonly string[], text: string): string[] {
  return ranked.filter((r, i) => !text.includes(r) && !ranked.some((o, j) => j < i && o.includes(r)));
}

function fitByPairs(refs: readonly string[], max: number, render: (refs: string[]) => string): string {
  const pick = (k: number) => {
    const head = refs.slice(0, k);
    return head.filter((x) => !head.some((y) => y !== x && y.length > x.length && y.includes(x)));
  };
  let lo = 0;
  let hi = refs.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (render(pick(mid)).length <= max) lo = mid;
    else hi = mid - 1;
  }
  return render(pick(lo));
}

// Short words over a small alphabet, so that containment (and equal duplicates) is frequent; characters
// from U+0400 make trigram keys collide (U+0400 and U+0000 share one).
const word = fc.string({
  unit: fc.constantFrom('a', 'b', '/', '.', 'é', '\u0000', '\u0400', '中'),
  maxLength: 16,
});
const refs = fc.array(word, { maxLength: 40 });

describe('distinctReferences', () => {
  it('equals the pairwise definition when references contain one another', () => {
    fc.assert(
      fc.property(refs, word, (ranked, text) => {
        expect(distinctReferences(ranked, text)).toEqual(distinctByPairs(ranked, text));
      }),
      { numRuns: 500 },
    );
  });

  it('equals the pairwise definition against a long text (the indexed lookups)', () => {
    // 60+ references × 20,000+ characters: past the size where the text is indexed.
    const long = fc.array(word, { minLength: 200, maxLength: 300 }).map((ws) => {
      const s = `${ws.join('')}ab/`;
      return s.repeat(Math.ceil(20_000 / s.length));
    });
    fc.assert(
      fc.property(fc.array(word, { minLength: 60, maxLength: 80 }), long, fc.nat(), (ranked, body, k) => {
        // References at both ends of the text too (the first and last positions of the index).
        const text = `${ranked[k % ranked.length]}${body}${ranked[(k + 1) % ranked.length]}`;
        expect(distinctReferences(ranked, text)).toEqual(distinctByPairs(ranked, text));
      }),
      { numRuns: 100 },
    );
  }, 30_000);

  it('drops a name inside a better-ranked path and one the text spells out', () => {
    const ranked = ['src/core/index.ts', 'index.ts', 'parseWith', 'core', 'createPipeline'];
    expect(distinctReferences(ranked, 'call createPipeline first')).toEqual([
      'src/core/index.ts',
      'parseWith',
    ]);
  });
});

describe('fitReferences', () => {
  it('equals the pairwise definition for every budget', () => {
    fc.assert(
      fc.property(refs, fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constant(100_000)), (list, max) => {
        expect(fitReferences(list, max, referenceLines)).toBe(fitByPairs(list, max, referenceLines));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the longer of two chosen references when it contains the other', () => {
    expect(fitReferences(['table.py', 'astropy/table/table.py', 'Column'], 100, referenceLines)).toBe(
      'astropy/table/table.py, Column',
    );
  });
});
