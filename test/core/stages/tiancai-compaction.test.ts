import { describe, expect, it } from 'vitest';
import { effectiveTokenLimit, keepRecentBudget } from '../../../src/core/budget/budget.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import {
  splitByTokenBudget,
  tiancaiCompaction,
} from '../../../src/core/pipeline/presets/tiancai/tiancai-compaction.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, ids, makeCtx, violations } from './compaction-helpers.ts';

describe('tiancaiCompaction', () => {
  it('uses limit 111616 and keeps 20000 tokens for a 128K window', () => {
    const c = { contextWindow: 128_000 };
    expect(effectiveTokenLimit(c)).toBe(111_616);
    expect(keepRecentBudget(c)).toEqual({ tokens: 20_000 });
  });

  it('keeps the newest message even when it alone exceeds the budget', () => {
    const msgs = conversation(3);
    expect(splitByTokenBudget(msgs, 1, () => 10)).toBe(5);
    expect(splitByTokenBudget(msgs, 25, () => 10)).toBe(4);
  });

  it('returns the input itself below the limit', async () => {
    const input = deepFreeze(conversation(4));
    const r = await tiancaiCompaction({ contextWindow: 128_000 }).run(input, makeCtx());
    expect(r.messages).toBe(input);
    expect(r.report.status).toBe('noop');
  });

  it('replaces the old part by a user summary message when the estimate reaches the limit', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 'what happened' }] });
    const input = deepFreeze(conversation(10, { tools: true, pad: 200 }));
    // window 0 → limit maxTokens 1500; keep min(20000, 750) = 750 tokens.
    const r = await tiancaiCompaction({ contextWindow: 0, maxTokens: 1500 }).run(
      input,
      makeCtx({ summarizer, preset: 'tiancai' }),
    );
    expect(r.report.status).toBe('applied');
    expect(r.messages[0]!.parts[0]).toEqual({
      type: 'text',
      text: '[Previous conversation summary]\n\nwhat happened',
    });
    expect(r.messages[0]!.role).toBe('user');
    expect(violations(r.messages, input)).toEqual([]);
    const recent = r.messages.slice(1).reduce((n, m) => n + makeCtx().counter.countMessage(m), 0);
    expect(recent).toBeLessThanOrEqual(750);
    expect(summarizer.requests[0]!.transcript).toContain('[Tool result read_file]: content of file 1');
  });

  it('trims old tool results to 1800 runes for the summarizer', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 's' }] });
    const input = deepFreeze([
      user('q', { id: 'u1' }),
      assistant('', [toolCall('k', 'bash')], { id: 'c1' }),
      toolResult('k', 'bash', 'y'.repeat(5000), { id: 'r1' }),
      assistant('done', [], { id: 'a1' }),
      user('next', { id: 'u2' }),
    ]);
    await tiancaiCompaction({ trigger: 'always', keepRecentTokens: 0, keepRecent: 1 }).run(
      input,
      makeCtx({ summarizer }),
    );
    const result = summarizer.requests[0]!.messages.find((m) => m.id === 'r1')!.parts[0]!;
    expect(result.type === 'tool-result' && String(result.output).length).toBe(
      1200 + 600 + '\n... (truncated) ...\n'.length,
    );
  });

  it('moves the boundary so a call and its result stay together', async () => {
    const input = deepFreeze([
      user('q', { id: 'u1' }),
      assistant('', [toolCall('k', 'bash')], { id: 'c1' }),
      toolResult('k', 'bash', 'out', { id: 'r1' }),
      assistant('', [toolCall('k2', 'bash')], { id: 'c2' }),
      toolResult('k2', 'bash', 'out2', { id: 'r2' }),
    ]);
    const stage = tiancaiCompaction({ trigger: 'always', keepRecentTokens: 0, keepRecent: 1 });
    const r = await stage.run(input, makeCtx());
    expect(violations(r.messages, input)).toEqual([]);
    const raw = await tiancaiCompaction({
      trigger: 'always',
      keepRecentTokens: 0,
      keepRecent: 1,
      pairing: 'none',
    }).run(input, makeCtx());
    expect(violations(raw.messages, input)).toEqual(['result-without-call@r2']);
  });

  it('fails on an empty summary and keeps the input', async () => {
    const input = deepFreeze(conversation(6));
    const summarizer = createScriptedSummarizer({ answers: [{ summary: '' }] });
    const r = await tiancaiCompaction({ trigger: 'always', keepRecentTokens: 0 }).run(
      input,
      makeCtx({ summarizer }),
    );
    expect(r.messages).toBe(input);
    expect(r.report).toMatchObject({ status: 'failed', error: 'empty summary' });
  });

  it('archives excess tool results of the kept part behind a digest', async () => {
    const input = deepFreeze(conversation(6, { tools: true }));
    const r = await tiancaiCompaction({
      trigger: 'always',
      keepRecentTokens: 0,
      keepRecent: 12,
      toolCallCutoff: 2,
    }).run(input, makeCtx());
    expect(ids(r.messages).at(-1)).toMatch(/^digest/);
    expect(r.journal.filter((j) => j.action === 'archived').map((j) => j.messageId)).toEqual(['r4']);
  });
});
