import { describe, expect, it } from 'vitest';
import { truncateHead, truncateTail } from '../../../src/core/text/line-truncate.ts';
import {
  countLines,
  formatCount,
  formatSize,
  headCodePoints,
  TRIM_TAIL_MARKER,
  tailCodePoints,
  trimRunes,
  trimTextWithTail,
  utf8Prefix,
  utf8Suffix,
} from '../../../src/core/text/trim.ts';
import { codePointLength, utf8Length } from '../../../src/core/tokens/text-stats.ts';

describe('trimTextWithTail', () => {
  it.each([
    [800, 533, 267],
    [12000, 8000, 4000],
    [1800, 1200, 600],
  ])('keeps head and tail runes when the limit is %i', (limit, head, tail) => {
    const text = 'h'.repeat(head) + 'x'.repeat(limit * 3) + 't'.repeat(tail);
    const out = trimTextWithTail(text, limit);
    const [h, t] = out.split(TRIM_TAIL_MARKER);
    expect([h!.length, t!.length]).toEqual([head, tail]);
    expect(h).toBe('h'.repeat(head));
    expect(t).toBe('t'.repeat(tail));
  });

  it('returns the text itself when it has at most N runes', () => {
    const text = '世'.repeat(800);
    expect(trimTextWithTail(text, 800)).toBe(text);
    expect(trimTextWithTail(text, 0)).toBe(text);
  });

  it('counts astral characters as one rune and never splits them', () => {
    const out = trimTextWithTail('🙂'.repeat(10), 3);
    expect(out).toBe(`🙂🙂${TRIM_TAIL_MARKER}🙂`);
  });
});

describe('trimRunes', () => {
  it('keeps the first runes when over the limit', () => {
    expect(trimRunes('a🙂bc', 2)).toBe('a🙂');
    expect(trimRunes('abc', 0)).toBe('abc');
  });
});

describe('headCodePoints / tailCodePoints', () => {
  it('slices by code points when surrogate pairs are present', () => {
    expect(headCodePoints('🙂🙂x', 2)).toBe('🙂🙂');
    expect(tailCodePoints('x🙂🙂', 2)).toBe('🙂🙂');
    expect(codePointLength(headCodePoints('é🙂'.repeat(50), 31))).toBe(31);
  });
});

describe('utf8Prefix / utf8Suffix', () => {
  it('cuts on a character boundary when the limit falls inside a character', () => {
    expect(utf8Prefix('aé世', 2)).toBe('a');
    expect(utf8Prefix('aé世', 3)).toBe('aé');
    expect(utf8Prefix('aé世', 5)).toBe('aé');
    expect(utf8Prefix('🙂', 3)).toBe('');
    expect(utf8Suffix('世éa', 2)).toBe('a');
    expect(utf8Suffix('世éa', 6)).toBe('世éa');
  });
});

describe('countLines', () => {
  it('counts newlines plus one, and 0 for empty text when asked', () => {
    expect([countLines('a\nb\n'), countLines(''), countLines('', true)]).toEqual([3, 1, 0]);
  });
});

describe('formatSize', () => {
  it('formats B under 1024, KB and MB with one decimal', () => {
    expect([formatSize(1023), formatSize(51200), formatSize(1536), formatSize(3 * 1024 * 1024)]).toEqual([
      '1023B',
      '50.0KB',
      '1.5KB',
      '3.0MB',
    ]);
  });
});

describe('formatCount', () => {
  it('groups thousands with commas', () => {
    expect([formatCount(1234), formatCount(999), formatCount(1234567)]).toEqual([
      '1,234',
      '999',
      '1,234,567',
    ]);
  });
});

describe('truncateHead', () => {
  it('keeps the first 2000 whole lines when lines are the limit', () => {
    const text = Array.from({ length: 2500 }, (_, i) => `line ${i}`).join('\n');
    const r = truncateHead(text);
    expect([r.truncated, r.truncatedBy, r.outputLines, r.totalLines]).toEqual([true, 'lines', 2000, 2500]);
    expect(r.content.split('\n').at(-1)).toBe('line 1999');
  });

  it('returns empty content when the first line alone is over the byte limit', () => {
    const r = truncateHead(`${'x'.repeat(60000)}\nshort`);
    expect([r.content, r.firstLineExceedsLimit, r.truncatedBy]).toEqual(['', true, 'bytes']);
  });
});

describe('truncateTail', () => {
  it('keeps the last whole lines within 51200 bytes when bytes are the limit', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(99, '.')).join('\n');
    const r = truncateTail(text);
    expect(r.truncatedBy).toBe('bytes');
    expect(utf8Length(r.content)).toBeLessThanOrEqual(51200);
    expect(r.content.endsWith(`${'999'.padEnd(99, '.')}`)).toBe(true);
    expect(r.outputLines).toBe(512);
  });

  it('keeps the end of a last line over the byte limit, cut on a UTF-8 boundary', () => {
    const r = truncateTail(`a\n${'世'.repeat(20000)}`);
    expect([r.lastLinePartial, r.outputLines]).toEqual([true, 1]);
    expect(r.content).toBe('世'.repeat(17066));
  });
});
