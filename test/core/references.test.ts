import { describe, expect, it } from 'vitest';
import { extractReferences, rankReferences } from '../../src/core/text/references.ts';

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

describe('rankReferences', () => {
  it('ranks by frequency, then by recency', () => {
    const ranked = rankReferences(['use fooBar in a.ts', 'fooBar and bazQux', 'a.ts, bazQux', 'a.ts']);
    expect(ranked.map((r) => r.ref)).toEqual(['a.ts', 'bazQux', 'fooBar']);
  });
});
