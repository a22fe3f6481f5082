import { describe, expect, it } from 'vitest';
import { cacheLine } from '../../../src/view/cache-line.ts';
import { renderTimeline, type TimelineCall } from '../../../src/view/render-session.ts';

describe('cacheLine', () => {
  it('gives the tokens read from the cache, their share of the input and those written', () => {
    expect(
      cacheLine({ inputTokens: 200, outputTokens: 5, cacheReadTokens: 4000, cacheWriteTokens: 300 }),
    ).toBe('4,000 cached (89%) · 300 written');
    expect(cacheLine({ inputTokens: 904, outputTokens: 5, cacheReadTokens: 4096 })).toBe(
      '4,096 cached (82%)',
    );
  });

  it('is empty when the provider reported nothing of its cache', () => {
    expect(cacheLine({ inputTokens: 100, outputTokens: 5 })).toBe('');
    expect(cacheLine(undefined)).toBe('');
  });
});

describe('renderTimeline', () => {
  it('shows a cache line under a proxied call’s upstream usage', () => {
    const call: TimelineCall = {
      kind: 'proxy',
      id: 'c1',
      at: 0,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stream: false,
      appended: 1,
      diverged: false,
      estimate: { before: 10, after: 10, level: 'ok', anchored: false },
      reports: [],
      changes: {},
      compacted: false,
      overflow: false,
      upstream: {
        status: 200,
        logged: true,
        usage: { inputTokens: 200, outputTokens: 5, cacheReadTokens: 4000, cacheWriteTokens: 300 },
      },
    };
    expect(renderTimeline('s1', [call])).toContain('4,000 cached (89%) · 300 written');
    expect(renderTimeline('s1', [call])).not.toContain('tool round');
    // With the proxy's tool rounds, the usage is every upstream call's, and the line says so.
    const rounds = { ...call, upstream: { ...call.upstream!, toolRounds: 2 } };
    expect(renderTimeline('s1', [rounds])).toContain('200 in (2 tool rounds included)');
  });
});
