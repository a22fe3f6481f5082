import { describe, expect, it } from 'vitest';
import { chunkLines } from '../../../src/core/index.ts';

describe('chunkLines', () => {
  it('returns one chunk with its line range when the text is short', () => {
    expect(chunkLines('a\nb\nc')).toEqual([{ startLine: 1, endLine: 3, text: 'a\nb\nc' }]);
  });

  it('keeps chunks within 2000 chars and overlaps them by trailing lines when the text is long', () => {
    const lines = Array.from(
      { length: 100 },
      (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(80)}`,
    );
    const chunks = chunkLines(lines.join('\n'));
    expect(chunks.every((c) => c.text.length <= 2000)).toBe(true);
    expect(chunks[0]!.startLine).toBe(1);
    expect(chunks[chunks.length - 1]!.endLine).toBe(100);
    for (let i = 1; i < chunks.length; i++) {
      const overlap = chunks[i - 1]!.endLine - chunks[i]!.startLine + 1;
      expect(overlap).toBe(2); // two 89-char lines fit in 200 chars
    }
  });

  it('splits a single line longer than 2000 chars into its own chunks', () => {
    const chunks = chunkLines(`short\n${'y'.repeat(4500)}\ntail`);
    expect(chunks.map((c) => [c.startLine, c.endLine, c.text.length])).toEqual([
      [1, 1, 5],
      [2, 2, 2000],
      [2, 2, 2000],
      [2, 2, 500],
      [3, 3, 4],
    ]);
  });
});
