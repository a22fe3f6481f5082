import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeSpans, extractReferences, scoreReferences } from '../../src/core/text/references.ts';

/**
 * `extractReferences` as it was defined with three regular expressions (the scans of file names and
 * identifiers must give exactly this).
 */
const EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|mdx|py|pyi|go|rs|rb|ex|exs|eex|heex|erl|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|ps1|sql|yml|yaml|toml|ini|cfg|conf|env|lock|txt|csv|tsv|xml|html|htm|css|scss|sass|less|vue|svelte|proto|graphql|gql|tf|lua|dart|r|jl|pl|pm|zig|nim|ml|mli|hs|elm|clj|cljs|edn|gradle|properties|dockerfile|mk|cmake|ipynb|pdf|png|jpg|svg|wasm|log|patch|diff';
function byRegex(text: string): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(
    /(?<![A-Za-z0-9_@.+~-])(?:~|\.{1,2})?\/?(?:[A-Za-z0-9_@.+-]+\/)+[A-Za-z0-9_@.+-]*/g,
  )) {
    const p = m[0].replace(/[.,:;]+$/, '');
    if (!p.includes('/')) continue;
    const segments = p.split('/').filter(Boolean);
    if (segments.length === 0 || /^(https?|ftp):?$/.test(segments[0]!)) continue;
    if (segments.every((x) => /^[0-9.]+$/.test(x)) || p.length < 3) continue;
    if (!out.has(p)) out.set(p, 'path');
  }
  const file = new RegExp(`(?<![A-Za-z0-9_.+-])[A-Za-z0-9_][A-Za-z0-9_.+-]*\\.(?:${EXTENSIONS})\\b`, 'gi');
  for (const m of text.matchAll(file)) if (!out.has(m[0])) out.set(m[0], 'file');
  for (const m of text.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g)) {
    const w = m[0];
    const identifier = !/^[0-9_]+$/.test(w) && (/[A-Za-z0-9]_[A-Za-z0-9]/.test(w) || /[a-z][A-Z]/.test(w));
    if (identifier && !out.has(w)) out.set(w, 'identifier');
  }
  return [...out];
}

const TRAJECTORIES = join(import.meta.dirname, '../../../shared/data/trajectories');

describe('extractReferences', () => {
  it('finds paths, file names with an extension and snake/camel identifiers of 6+ chars', () => {
    const refs = extractReferences(
      'Edit lib/spotter/transcript.ex and mix.exs; call render_message() then parseToolCall, not run() or Foo.',
    );
    expect([...refs.entries()]).toEqual([
      ['lib/spotter/transcript.ex', 'path'],
      ['transcript.ex', 'file'],
      ['mix.exs', 'file'],
      ['render_message', 'identifier'],
      ['parseToolCall', 'identifier'],
    ]);
  });

  it('ignores URLs, dates, short words and plain lowercase words', () => {
    const refs = extractReferences('See https://example.com on 2026/03/01 — simple words, a_b and x_y.');
    expect([...refs.keys()]).toEqual([]);
  });

  it('equals the regular-expression definition on text made of the characters it reads', () => {
    // Word characters, the run characters `.+-`, slashes, schemes, extensions in both cases, a
    // non-ASCII letter and separators: the places where a scan and a regular expression could differ.
    const unit = fc.constantFrom(
      ...'aZx_9 0.+-/~@:,;\n\té'.split(''),
      'ts',
      'TSX',
      'py',
      '.md',
      'json',
      'R',
      'c',
      'http',
      'https:',
      'ftp',
      '//',
      '..',
      '_a',
      'aB',
      'src/',
      '2026',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (units) => {
        const text = units.join('');
        expect([...extractReferences(text)]).toEqual(byRegex(text));
      }),
      { numRuns: 3000, seed: 41 },
    );
  });

  it('finds the same references in a text with newlines around it (the source of a message of one text)', () => {
    const unit = fc.constantFrom(...'aZ_9 .+-/~@:\n'.split(''), 'ts', 'src/', 'fooBar', 'a_b1', '```', '`');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join('');
        const refs = [...extractReferences(text)];
        expect([...extractReferences(`\n${text}`)]).toEqual(refs);
        expect([...extractReferences(`${text}\n`)]).toEqual(refs);
        expect([...extractReferences(codeSpans(`\n${text}\n`))]).toEqual([
          ...extractReferences(codeSpans(text)),
        ]);
      }),
      { numRuns: 2000, seed: 41 },
    );
  });

  it('equals the regular-expression definition on a few given edge cases', () => {
    for (const text of [
      'a.ts-foo.bar a.ts.md.x b.py.md and x.min.JS, .env .. ..ts _1_2345 __init__ a__b __Ab ab_1cd 1abcdE_f',
      'a/b~/c/d a~b/c/d ~~/x/y see //x.com/a, https://h/p and ftp:/x; 1.2/3.4 ~/.config/a.py ../b/c/ ./d @scope/pkg+x',
      'file.tsx. file.ts5 file.5ts résumé.md naïveFoo helloWorld HELLO_WORLD',
    ])
      expect([...extractReferences(text)], text).toEqual(byRegex(text));
  });

  it.skipIf(!existsSync(TRAJECTORIES))(
    'equals the regular-expression definition on the real trajectories',
    () => {
      let texts = 0;
      for (const group of readdirSync(TRAJECTORIES))
        for (const f of readdirSync(join(TRAJECTORIES, group)).filter((x) => x.endsWith('.json'))) {
          const text = readFileSync(join(TRAJECTORIES, group, f), 'utf8');
          // The file's JSON as it is (escapes, paths, code) and decoded once, by pieces.
          for (let at = 0; at < text.length; at += 50_000) {
            const piece = text.slice(at, at + 50_000);
            expect([...extractReferences(piece)], `${f} at ${at}`).toEqual(byRegex(piece));
            texts++;
          }
        }
      expect(texts).toBeGreaterThan(10);
    },
  );
});

describe('scoreReferences', () => {
  it('ranks a recent reference the agent wrote above an older, more frequent one', () => {
    const ranked = scoreReferences([
      { text: 'old_helper in lib/a.py', at: 0, agent: false },
      { text: 'old_helper again', at: 1, agent: false },
      { text: 'old_helper thrice', at: 2, agent: false },
      { text: 'tool output mentions newThing', at: 9, agent: false },
      { text: 'I will edit newThing and fresh_name', at: 10, agent: true },
    ]);
    expect(ranked.map((r) => r.ref)).toEqual(['newThing', 'fresh_name', 'old_helper', 'lib/a.py', 'a.py']);
    expect(ranked[0]).toMatchObject({ kind: 'identifier', count: 2 });
  });
});

describe('codeSpans', () => {
  it('joins the fenced blocks and inline code of a text', () => {
    const text = 'Run `make check_all` then:\n```bash\necho SUBMIT_NOW && git diff\n```\nthanks';
    expect(codeSpans(text)).toBe('make check_all\necho SUBMIT_NOW && git diff\n');
  });
});

describe('scoreReferences (task)', () => {
  it('lifts what the task spells out in code above names it only mentions in prose', () => {
    const task = 'Fix parse_header in lib/http.py. When done, run:\n```\necho FINISH_AND_SUBMIT\n```';
    const sources = [
      { text: task, at: 0, agent: false, task: true },
      ...Array.from({ length: 8 }, (_, i) => ({ text: `output ${i}`, at: i + 1, agent: false })),
    ];
    const ranked = scoreReferences(sources).map((r) => r.ref);
    expect(ranked[0]).toBe('FINISH_AND_SUBMIT');
    const plain = scoreReferences(sources.map((s) => ({ ...s, task: false }))).map((r) => r.ref);
    expect(plain.indexOf('FINISH_AND_SUBMIT')).toBeGreaterThan(0);
  });
});

describe('extractReferences (cost)', () => {
  it('reads long runs without slashes or extensions in linear time (base64, dotted or dashed chains)', () => {
    const runs = ['x'.repeat(50_000), 'a.'.repeat(25_000), 'ab-'.repeat(17_000), 'Zm9v'.repeat(12_500)];
    const started = performance.now();
    for (const text of runs) expect(extractReferences(text).size).toBeLessThan(3);
    // Quadratic matching took seconds here (50,000² steps per run); linear takes a few milliseconds.
    expect(performance.now() - started).toBeLessThan(500);
  });
});
