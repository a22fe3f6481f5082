import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import { applyPendingInjections } from '../../../src/core/pipeline/presets/cowagent/apply-pending-injections.ts';
import { cowagentTrim } from '../../../src/core/pipeline/presets/cowagent/cowagent-trim.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, ids, makeCtx, violations } from './compaction-helpers.ts';

describe('cowagentTrim', () => {
  it('drops 10 oldest turns and keeps 11 when there are 21 turns', async () => {
    const input = deepFreeze(conversation(21, { tools: true }));
    const r = await cowagentTrim().run(input, makeCtx());
    expect(r.report.status).toBe('applied');
    expect(r.messages[0]!.id).toBe('u11');
    expect(r.messages.filter((m) => m.role === 'user').length).toBe(11);
    expect(r.journal.filter((j) => j.action === 'summarized').length).toBe(40);
    expect(violations(r.messages, input)).toEqual([]);
  });

  it('drops 12 and keeps 13 when there are 25 turns', async () => {
    const r = await cowagentTrim().run(deepFreeze(conversation(25)), makeCtx());
    expect(r.messages.filter((m) => m.role === 'user').map((m) => m.id)).toHaveLength(13);
    expect(r.messages[0]!.id).toBe('u13');
  });

  it('returns the input itself when there are exactly 20 turns within the token budget', async () => {
    const input = deepFreeze(conversation(20));
    const r = await cowagentTrim().run(input, makeCtx());
    expect(r.messages).toBe(input);
    expect(r.report.status).toBe('noop');
    expect(r.journal).toEqual([]);
  });

  it('records a pending injection for the first kept user message with the flushed summary', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ summary: '- user asked about files' }] });
    const r = await cowagentTrim().run(deepFreeze(conversation(21)), makeCtx({ summarizer }));
    expect(summarizer.requests[0]!.purpose).toBe('memory-flush');
    expect(summarizer.requests[0]!.messages.map((m) => m.id)).toContain('u1');
    expect(r.state!.pendingInjections).toEqual([
      {
        targetId: 'u11',
        originalText: 'question 11 about src/file11.ts ',
        turnsCompacted: 10,
        summary: '- user asked about files',
      },
    ]);
    expect(r.events.map((e) => e.type)).toEqual(['summary-pending', 'compaction-start', 'compaction-end']);
    expect(r.flushes![0]!.reason).toBe('trim');
    // Not applied in this run.
    expect(r.messages[0]!.parts[0]).toEqual({ type: 'text', text: 'question 11 about src/file11.ts ' });
  });

  it('uses the rule-based fallback lines when the summarizer throws', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ error: 'timeout' }] });
    const r = await cowagentTrim().run(
      deepFreeze(conversation(21)),
      makeCtx({ summarizer, preset: 'cowagent' }),
    );
    expect(r.report.status).toBe('applied');
    expect(r.report.error).toContain('timeout');
    expect(r.state!.pendingInjections[0]!.summary!.split('\n')[0]).toBe(
      '- 用户: question 1 about src/file1.ts → 回复: answer 1',
    );
  });

  it('writes the fallback lines with English labels under any other preset', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ error: 'timeout' }] });
    const r = await cowagentTrim().run(deepFreeze(conversation(21)), makeCtx({ summarizer }));
    expect(r.state!.pendingInjections[0]!.summary!.split('\n')[0]).toBe(
      '- User: question 1 about src/file1.ts → Reply: answer 1',
    );
  });

  it('keeps pinned messages and excluded tool chains from dropped turns', async () => {
    const input = conversation(21, { tools: true }).map((m) =>
      m.id === 'u2' ? { ...m, meta: { pinned: true } } : m,
    );
    const excl = conversation(21, { tools: true, tool: 'todo' });
    const ctx = makeCtx({ excludeTools: new Set(['todo']) });
    const r = await cowagentTrim().run(deepFreeze(input), ctx);
    expect(ids(r.messages).slice(0, 2)).toEqual(['u2', 'u11']);
    const r2 = await cowagentTrim().run(deepFreeze(excl), ctx);
    expect(ids(r2.messages).slice(0, 4)).toEqual(['c1', 'r1', 'c2', 'r2']);
    expect(violations(r2.messages, excl)).toEqual([]);
  });

  it('compresses every turn to text when over the token budget with fewer than 5 turns', async () => {
    const input = deepFreeze(conversation(3, { tools: true, pad: 400 }));
    const r = await cowagentTrim({ maxContextTokens: 100 }).run(input, makeCtx());
    expect(ids(r.messages)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    expect(r.messages[0]!.parts[0]).toEqual({
      type: 'text',
      text: `question 1 about src/file1.ts ${'x'.repeat(400)}`,
    });
    expect(r.journal.filter((j) => j.action === 'removed').map((j) => j.messageId)).toEqual([
      'c1',
      'r1',
      'c2',
      'r2',
      'c3',
      'r3',
    ]);
    expect(r.events[0]).toMatchObject({ type: 'compaction-start', trigger: 'token-budget' });
  });

  it('drops the oldest half once when over the token budget with 5 or more turns', async () => {
    const r = await cowagentTrim({ maxContextTokens: 10 }).run(deepFreeze(conversation(7)), makeCtx());
    expect(r.messages[0]!.id).toBe('u4');
  });

  it('runs turn trimming then token trimming in the same call', async () => {
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'S' } });
    const r = await cowagentTrim({ maxContextTokens: 50 }).run(
      deepFreeze(conversation(21)),
      makeCtx({ summarizer }),
    );
    expect(summarizer.requests).toHaveLength(2);
    expect(r.messages[0]!.id).toBe('u16');
    // The first injection targeted u11, which is gone: only the second remains.
    expect(r.state!.pendingInjections.map((p) => p.targetId)).toEqual(['u16']);
  });

  it('never separates a call from its result when moving the cut', async () => {
    // A result that arrives after the next user message (a neutral history, not a dialect one).
    const input = deepFreeze([
      user('q1', { id: 'u1' }),
      assistant('', [toolCall('k', 'bash')], { id: 'c1' }),
      user('q2', { id: 'u2' }),
      toolResult('k', 'bash', 'late', { id: 'r1' }),
      ...conversation(3).map((m) => ({ ...m, id: `x${m.id}` })),
    ]);
    const r = await cowagentTrim({ maxContextTurns: 4 }).run(input, makeCtx());
    expect(violations(r.messages, input)).toEqual([]);
  });
});

describe('applyPendingInjections', () => {
  it('applies the summary on the next run only', async () => {
    const ctx = makeCtx({ summarizer: createScriptedSummarizer({ answers: [{ summary: 'the summary' }] }) });
    const apply = applyPendingInjections();
    const first = await apply.run(deepFreeze(conversation(21)), ctx);
    const trimmed = await cowagentTrim().run(first.messages, { ...ctx, state: first.state ?? ctx.state });
    expect(trimmed.messages[0]!.parts[0]).toEqual({ type: 'text', text: 'question 11 about src/file11.ts ' });
    const next = await apply.run(deepFreeze(trimmed.messages), { ...ctx, state: trimmed.state! });
    expect(next.report.status).toBe('applied');
    expect(next.messages[0]!.parts[0]).toEqual({
      type: 'text',
      text: '[System: Previous conversation summary — 10 turns were compacted]\n\nthe summary\n\nThe recent conversation continues below.\n\n---\n\nquestion 11 about src/file11.ts ',
    });
    expect(next.events).toEqual([
      { type: 'summary-applied', stage: 'apply-pending-injections', targetId: 'u11' },
    ]);
    const again = await apply.run(next.messages, { ...ctx, state: next.state ?? trimmed.state! });
    expect(again.messages).toBe(next.messages);
  });

  it('drops injections whose target is gone', async () => {
    const ctx = makeCtx();
    const state = {
      ...ctx.state,
      pendingInjections: [{ targetId: 'gone', originalText: 'x', turnsCompacted: 1, summary: 's' }],
    };
    const input = deepFreeze(conversation(2));
    const r = await applyPendingInjections().run(input, { ...ctx, state });
    expect(r.messages).toBe(input);
    expect(r.state!.pendingInjections).toEqual([]);
  });
});
