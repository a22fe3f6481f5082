import { describe, expect, it } from 'vitest';
import {
  fallbackSummary,
  parseCowagentAnswer,
  parseKosmokratorAnswer,
} from '../../../src/providers/index.ts';

describe('parseKosmokratorAnswer', () => {
  it('returns the whole trimmed text and no memories when the answer is not JSON', () => {
    expect(parseKosmokratorAnswer('  ## Goal\nplain text \n')).toEqual({ summary: '## Goal\nplain text' });
  });

  it('reads the JSON inside a code fence when the model adds one', () => {
    expect(parseKosmokratorAnswer('```json\n{"summary": "s", "memories": []}\n```').summary).toBe('s');
  });

  it('keeps only typed memories with a title and content when some are malformed', () => {
    const { memories } = parseKosmokratorAnswer(
      JSON.stringify({
        summary: 's',
        memories: [
          { type: 'project', title: 'A', content: 'a' },
          { type: 'user', title: '', content: 'no title' },
          { type: 'decision', title: 'no content', content: '  ' },
          { type: 'fact', title: 'bad type', content: 'x' },
          'not an object',
        ],
      }),
    );
    expect(memories?.map((m) => m.title)).toEqual(['A']);
  });

  it('defaults an unknown class to durable and clamps expires_days to 1..30 for working memories', () => {
    const { memories } = parseKosmokratorAnswer(
      JSON.stringify({
        summary: 's',
        memories: [
          { type: 'project', title: 'a', content: 'a', class: 'forever', expires_days: 5 },
          { type: 'project', title: 'b', content: 'b', class: 'working', expires_days: 90 },
          { type: 'project', title: 'c', content: 'c', class: 'working', expires_days: 0 },
          { type: 'project', title: 'd', content: 'd', class: 'working' },
        ],
      }),
    );
    expect(memories?.map((m) => [m.class, m.expiresDays])).toEqual([
      ['durable', undefined],
      ['working', 30],
      ['working', 1],
      ['working', undefined],
    ]);
  });

  it('synthesises the fallback summary when the JSON has no summary', () => {
    const { summary } = parseKosmokratorAnswer(
      JSON.stringify({ memories: [{ type: 'decision', title: 'Use zod', content: 'validation' }] }),
    );
    expect(summary).toBe(
      fallbackSummary([{ type: 'decision', title: 'Use zod', content: 'validation', class: 'durable' }]),
    );
    expect(summary.startsWith('## Goal\n[Compaction summary unavailable]')).toBe(true);
    expect(summary).toContain('- Use zod');
    expect(summary.endsWith('## Relevant Files\n[Unknown]')).toBe(true);
  });
});

describe('parseCowagentAnswer', () => {
  it('returns an empty summary when the answer is 无', () => {
    expect(parseCowagentAnswer(' 无 ')).toEqual({ summary: '' });
  });

  it('treats the whole answer as daily when there are no markers', () => {
    expect(parseCowagentAnswer('- did things')).toEqual({ summary: '- did things' });
  });

  it('ignores the memory part when it holds only blank or dash lines', () => {
    expect(parseCowagentAnswer('[DAILY]\n- a\n[MEMORY]\n-\n\n - \n')).toEqual({ summary: '- a' });
  });

  it('types memory lines as decision when they state a decision', () => {
    const { memories } = parseCowagentAnswer('[DAILY]\nx\n[MEMORY]\n- 决定使用 SQLite 存储\n');
    expect(memories?.map((m) => m.type)).toEqual(['decision']);
  });
});
