import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/messages/types.ts';
import { createNameIndex } from '../../../src/core/summarizers/name-index.ts';
import {
  distinctReferences,
  fitReferences,
  rankMessageReferences,
  readReferences,
  referenceLines,
  referenceLinesLength,
} from '../../../src/core/summarizers/reference-index.ts';
import { rankSources, scoreSources } from '../../../src/core/summarizers/reference-scores.ts';
import { extractReferences, scoreReferences } from '../../../src/core/text/references.ts';

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

describe('referenceLinesLength', () => {
  it('is the length of referenceLines, empty and long names included', () => {
    const name = fc.oneof(word, fc.string({ maxLength: 170 }), fc.constant(''));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 60 }), (list) => {
        expect(referenceLinesLength(list)).toBe(referenceLines(list).length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('a name index kept between lists', () => {
  it('gives every list of a sequence the pairwise answer (names of earlier lists stay indexed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(refs, word, fc.integer({ min: 0, max: 120 })), { maxLength: 8 }),
        (lists) => {
          const names = createNameIndex();
          for (const [list, text, max] of lists) {
            expect(distinctReferences(list, text, names)).toEqual(distinctByPairs(list, text));
            expect(fitReferences(list, max, referenceLines, names)).toBe(
              fitByPairs(list, max, referenceLines),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says a reference is held before it exactly when the first reference holding it is earlier', () => {
    fc.assert(
      fc.property(refs, (list) => {
        const names = createNameIndex();
        const { first, heldBefore } = names.containment(list);
        for (let i = 0; i < list.length; i++)
          expect(heldBefore(i)).toBe(list.slice(0, i).some((y) => y.includes(list[i]!)));
        expect(list.map((_, i) => heldBefore(i))).toEqual(list.map((_, i) => first(i) < i));
      }),
      { numRuns: 500 },
    );
  });

  it('answers for the list asked about when two lists are asked in turn', () => {
    const names = createNameIndex();
    const a = names.containment(['src/a.ts', 'a.ts', 'b.ts']);
    const b = names.containment(['b.ts', 'lib/b.ts', 'a.ts']);
    expect([a.first(1), a.firstLonger(1), a.first(2)]).toEqual([0, 0, 2]);
    expect([b.first(0), b.firstLonger(0), b.first(2)]).toEqual([0, 1, 2]);
    expect([a.firstLonger(2), b.firstLonger(2)]).toEqual([3, 3]);
  });

  it('answers a list exactly again after later lists grew its trigram table', () => {
    const names = createNameIndex();
    const a = ['astropy/table/table.py', 'table.py', 'lib/x/table.py', 'x/table', 'able.p', 'pytable'];
    expect(distinctReferences(a, '', names)).toEqual(distinctByPairs(a, ''));
    // Thousands of names of new trigrams: the table of trigrams grows (and its slots move).
    const many = Array.from({ length: 4000 }, (_, i) => `n${i.toString(36)}_${(i * 7919).toString(36)}.zq`);
    expect(distinctReferences(many, '', names)).toEqual(distinctByPairs(many, ''));
    for (const list of [a, [...a].reverse(), ['table.py', 'pytable', 'astropy/table/table.py']]) {
      expect(distinctReferences(list, '', names)).toEqual(distinctByPairs(list, ''));
      expect(fitReferences(list, 60, referenceLines, names)).toBe(fitByPairs(list, 60, referenceLines));
    }
  });

  it('starts over past its bound and still answers exactly', () => {
    const names = createNameIndex();
    // 60 lists of 1,000 distinct names: past the 25,000 names (500,000 characters) the index keeps.
    for (let k = 0; k < 60; k++) {
      const list = Array.from({ length: 1000 }, (_, i) => `pkg${k}/mod${i % 50}/file_${i}.ts`);
      list.push(`file_${k}.ts`, `mod${k % 50}/file_${k}.ts`);
      const c = names.containment(list);
      expect(c.firstLonger(1000)).toBe(k);
      expect(c.first(1001)).toBe(k);
    }
  });
});

describe('rankMessageReferences memo (references read once per message)', () => {
  const conversation = (): Message[] => [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Fix `src/parser.ts` and run parse_config' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading the parser.' },
        { type: 'tool-call', id: 'c1', name: 'read', args: { file_path: 'src/parser.ts' } },
      ],
    },
    {
      id: 't1',
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          output: 'export function parseConfig(x) { return loadYaml(x) }',
        },
      ],
    },
  ];
  /** The ranking of a fresh copy: nothing memoized for these objects. */
  const fresh = (messages: readonly Message[]) => rankMessageReferences(structuredClone(messages));

  it('gives the same ranking after reading ahead as a fresh read', () => {
    const messages = conversation();
    readReferences(messages);
    expect(rankMessageReferences(messages)).toEqual(fresh(messages));
  });

  it('reads again a message whose text, output or parts changed in place (never stale)', () => {
    const messages = conversation();
    const before = rankMessageReferences(messages).map((r) => r.ref);
    expect(before).toContain('parseConfig');
    // A text replaced in place.
    const user = messages[0]!.parts[0]!;
    if (user.type === 'text') user.text = 'Fix `lib/lexer.rs` and run tokenize_input';
    // A tool output replaced in place.
    const result = messages[2]!.parts[0]!;
    if (result.type === 'tool-result') result.output = 'fn lexNextToken() {}';
    // A part added in place.
    messages[1]!.parts.push({ type: 'text', text: 'Then check `docs/guide.md` and renderPage.' });
    const after = rankMessageReferences(messages);
    expect(after).toEqual(fresh(messages));
    const refs = after.map((r) => r.ref);
    for (const gone of ['parse_config', 'parseConfig']) expect(refs).not.toContain(gone);
    for (const now of ['lib/lexer.rs', 'tokenize_input', 'lexNextToken', 'docs/guide.md', 'renderPage'])
      expect(refs).toContain(now);
  });

  it('reads again a message whose parts array was replaced or whose tool-call args were replaced', () => {
    const messages = conversation();
    readReferences(messages);
    messages[0] = { ...messages[0]!, parts: [{ type: 'text', text: 'Only `x/other_file.py` now' }] };
    const call = messages[1]!.parts[1]!;
    if (call.type === 'tool-call') call.args = { file_path: 'pkg/new_module.go' };
    const refs = rankMessageReferences(messages).map((r) => r.ref);
    expect(rankMessageReferences(messages)).toEqual(fresh(messages));
    expect(refs).toContain('pkg/new_module.go');
    expect(refs).toContain('x/other_file.py');
    expect(refs).not.toContain('src/parser.ts');
  });

  it('gives a rebuilt copy with other content its own references (the content memo is keyed by text)', () => {
    const messages = conversation();
    readReferences(messages);
    const copy = messages.map((m) => ({ ...m, parts: m.parts.map((p) => ({ ...p })) }));
    expect(rankMessageReferences(copy)).toEqual(rankMessageReferences(messages));
    const p = copy[2]!.parts[0]!;
    if (p.type === 'tool-result') p.output = 'see vendor/zlib_wrapper.c';
    const refs = rankMessageReferences(copy).map((r) => r.ref);
    expect(refs).toContain('vendor/zlib_wrapper.c');
    expect(refs).not.toContain('parseConfig');
  });

  it('equals a fresh read under random in-place edits', () => {
    const text = fc.constantFrom(
      'see src/a.ts',
      'call fooBar()',
      'run my_script',
      'nothing here',
      'lib/b.py',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(2), text), { maxLength: 8 }), (edits) => {
        const messages = conversation();
        readReferences(messages);
        for (const [i, t] of edits) {
          const m = messages[i]!;
          const p = m.parts[0]!;
          if (p.type === 'text') p.text = t;
          else if (p.type === 'tool-result') p.output = t;
          expect(rankMessageReferences(messages)).toEqual(fresh(messages));
        }
      }),
    );
  });
});

describe('scoreSources (references numbered once, statistics in typed arrays)', () => {
  it('equals scoreReferences, call after call, kinds and the task included', () => {
    const vocab = fc.constantFrom(
      'src/a.ts',
      'a.ts',
      'fooBar',
      'foo_bar',
      'lib/x/',
      '`run_tests`',
      'plain',
      '`a.ts`',
    );
    const source = fc.record({
      words: fc.array(vocab, { maxLength: 8 }),
      agent: fc.boolean(),
      task: fc.boolean(),
      gap: fc.nat(3),
      // extractReferences' map, or one whose kinds vary per source (the first kind seen is kept)
      kind: fc.option(fc.constantFrom('path' as const, 'file' as const, 'identifier' as const)),
    });
    fc.assert(
      fc.property(fc.array(fc.array(source, { maxLength: 8 }), { maxLength: 4 }), (calls) => {
        for (const call of calls) {
          let at = 0;
          const sources = call.map((s) => {
            at += s.gap;
            const text = s.words.join(' ');
            const refs =
              s.kind === null ? extractReferences(text) : new Map(s.words.map((w) => [w, s.kind!] as const));
            return { text, refs, at, agent: s.agent, task: s.task };
          });
          expect(scoreSources(sources)).toEqual(scoreReferences(sources, (_, i) => sources[i]!.refs));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('rankSources orders as the two stable sorts it replaces (by score, then by score per length^¼), references left out', () => {
    // Many ties: few sources at few positions, references of equal length. A source: its words (in
    // code, so that a task spells them out), written by the agent or not, the task or not, position.
    const words = ['src/a.ts', 'src/b.ts', 'a.ts', 'b.ts', 'fooBar', 'fooBaz', 'foo_bar', 'call_1'];
    const source = fc.tuple(fc.subarray(words), fc.boolean(), fc.boolean(), fc.nat(3));
    const left = fc.subarray(['call_1', 'a.ts', 'fooBar']);
    fc.assert(
      fc.property(fc.array(source, { maxLength: 6 }), left, (list, out) => {
        const sources = list.map(([w, agent, task, at]) => {
          const text = w.map((x) => `\`${x}\``).join(' ');
          return { text, refs: extractReferences(text), at, agent, task };
        });
        const leave = new Set(out);
        const twoSorts = scoreSources(sources)
          .filter((r) => !leave.has(r.ref))
          .map((r) => ({ r, v: r.score / r.ref.length ** 0.25 }))
          .sort((a, b) => b.v - a.v)
          .map((x) => x.r);
        expect(rankSources(sources, leave, 0.25)).toEqual(twoSorts);
      }),
      { numRuns: 500 },
    );
  });

  it('equals scoreReferences for a call holding more references than its bound (200,000), and after it', () => {
    // Three sources of 90,000 references each, two sharing half of theirs: numbering starts over in
    // the middle of the call, which then numbers everything again past the bound.
    const refsOf = (from: number) =>
      new Map(Array.from({ length: 90_000 }, (_, i) => [`ref_${from + i}`, 'identifier' as const]));
    const sources = [0, 45_000, 180_000].map((from, i) => ({
      text: '',
      refs: refsOf(from),
      at: i,
      agent: i === 1,
      task: false,
    }));
    expect(scoreSources(sources)).toEqual(scoreReferences(sources, (_, i) => sources[i]!.refs));
    const small = [
      { text: 'see `src/a.ts`', refs: extractReferences('see src/a.ts'), at: 0, agent: true, task: true },
    ];
    expect(scoreSources(small)).toEqual(scoreReferences(small, (_, i) => small[i]!.refs));
  }, 30_000);
});
