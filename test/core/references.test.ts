import { describe, expect, it } from 'vitest';
import { codeSpans, extractReferences, scoreReferences } from '../../src/core/text/references.ts';

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
