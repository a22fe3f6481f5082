import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { compaction } from '../../../src/core/pipeline/stages/compaction.ts';
import { fitTokens, keepRecentCut } from '../../../src/core/pipeline/stages/compaction-cut.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, ids, makeCtx, violations, withState } from './compaction-helpers.ts';

const ten = () => 10;

describe('keepRecentCut', () => {
  it('cuts at the earliest turn start whose suffix fits the budget', () => {
    const msgs = conversation(5); // 10 messages of 10 tokens
    expect(keepRecentCut(msgs, 0, 45, ten)).toBe(6); // u4: 4 messages = 40 tokens
  });

  it('cuts before an assistant step inside a single long turn, never inside a chain', () => {
    const msgs: Message[] = [user('do it', { id: 'u' })];
    for (let i = 0; i < 6; i++)
      msgs.push(
        assistant('', [toolCall(`k${i}`, 'bash')], { id: `c${i}` }),
        toolResult(`k${i}`, 'bash', 'o', { id: `r${i}` }),
      );
    const cut = keepRecentCut(msgs, 0, 40, ten);
    expect(msgs[cut]!.role).toBe('assistant');
    expect(cut).toBe(9);
  });
});

describe('fitTokens', () => {
  const chars = { name: 'chars', countText: (t: string) => t.length, countMessage: () => 0 };

  it('keeps the leading items of the next line up to a comma when whole lines leave room', () => {
    const text = '## Relevant Files\nsrc/a.ts, src/b.ts, src/c.ts\nsrc/d.ts';
    expect(fitTokens(text, 36, chars)).toBe('## Relevant Files\nsrc/a.ts, src/b.ts');
  });

  it('drops a trailing section title left with nothing under it', () => {
    const text = '## Goal\nfix it\n## Identifiers\nsome_long_identifier_name';
    expect(fitTokens(text, 26, chars)).toBe('## Goal\nfix it');
  });
});

describe('compaction', () => {
  const budget = createBudget({ contextWindow: 40_000, reserveOutput: 0, autoCompactBuffer: 20_000 }); // trigger 20000

  it('replaces the old part by the summary and keeps the recent turns verbatim', async () => {
    const summarizer = createScriptedSummarizer({
      answers: [{ summary: 'the gist', memories: [{ type: 'project', title: 'T', content: 'C' }] }],
    });
    const input = deepFreeze(conversation(40, { tools: true, pad: 1000 }));
    const r = await compaction().run(input, makeCtx({ summarizer, budget }));
    expect(r.report.status).toBe('applied');
    // The summary, topped up with the paths of the folded turns it does not name.
    const text = (r.messages[0]!.parts[0] as { text: string }).text;
    expect(text.startsWith('[Previous conversation summary]\n\nthe gist\n\n## References (verbatim)\n')).toBe(
      true,
    );
    expect(text).toContain('src/file1.ts');
    expect(r.messages[1]!.id).toMatch(/^u/);
    expect(violations(r.messages, input)).toEqual([]);
    expect(r.memories).toHaveLength(1);
    expect(r.state).toMatchObject({
      compactionFailures: 0,
      lastSummary: text.slice(text.indexOf('the gist')),
    });
    expect(r.events.map((e) => e.type)).toEqual(['compaction-start', 'compaction-end', 'memory-extracted']);
    const summarized = r.journal.filter((j) => j.action === 'summarized').length;
    expect(summarized + r.messages.length - 1).toBe(input.length);
  });

  it('sizes the summary from what a large system prompt leaves of the trigger, not from the whole', async () => {
    const asked = async (head: Message[]) => {
      const summarizer = createScriptedSummarizer({ fallback: { summary: 'S' } });
      await compaction().run(
        deepFreeze([...head, ...conversation(40, { pad: 1000 })]),
        makeCtx({ summarizer, budget }),
      );
      return summarizer.requests[0]!.maxOutputChars!;
    };
    // 20000-token trigger, a 12000-token system prompt no compaction can shed: the target is 12000 +
    // 50% of the 8000 above it, so the summary keeps ~4000 tokens less the kept part (a target of 50%
    // of the whole trigger would leave it the 64-token floor); without it, 10000 less the kept part.
    const system: Message = {
      id: 'sys',
      role: 'system',
      parts: [{ type: 'text', text: 'p'.repeat(12_000) }],
    };
    const withSystem = await asked([system]);
    const without = await asked([]);
    // …at 3.5 characters per token, over a thousand tokens (40% of the 4000 above the system prompt)
    // rather than the floor (64 × 3.5 = 224).
    expect(withSystem).toBeGreaterThan(1000 * 3.5);
    expect(withSystem).toBeLessThan(without);
  });

  it('keeps the reference top-up under half of what it replaces, so a fold of bare paths is not an inflation', async () => {
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'S' } });
    // The old turns are little more than paths: listing them all would cost what they cost.
    const paths = Array.from({ length: 60 }, (_, i) => `src/mod_${i}/file_${i}.ts`).join('\n');
    const input = deepFreeze([
      user(paths, { id: 'u0' }),
      assistant('ok', [], { id: 'a0' }),
      ...conversation(3, { pad: 20 }),
    ]);
    const r = await compaction({ triggerTokens: 40_000, keepRecentTokens: 60 }).run(
      input,
      makeCtx({ summarizer, budget }),
    );
    expect(r.report.status).toBe('applied');
    const text = (r.messages[0]!.parts[0] as { text: string }).text;
    expect(text).toContain('## References (verbatim)');
    expect(r.report.tokensAfter).toBeLessThan(r.report.tokensBefore);
  });

  it('passes the previous summary for an iterative update', async () => {
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'v2' } });
    await compaction().run(
      deepFreeze(conversation(40, { pad: 2000 })),
      withState(makeCtx({ summarizer, budget }), { lastSummary: 'v1' }),
    );
    expect(summarizer.requests[0]).toMatchObject({ purpose: 'compaction', previousSummary: 'v1' });
  });

  it('rejects a summary larger than what it replaces', async () => {
    // Within its token budget (target 11000 − kept part) but larger than the one folded turn.
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 'z'.repeat(40_000) }] });
    const input = deepFreeze(conversation(18, { pad: 1000 }));
    const r = await compaction({ maxSummaryChars: 1_000_000 }).run(input, makeCtx({ summarizer, budget }));
    expect(r.messages).toBe(input);
    expect(r.report).toMatchObject({ status: 'failed', error: 'inflation' });
    expect(r.state!.compactionFailures).toBe(1);
  });

  it('clips a summary over its token budget to its leading lines', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'y'.repeat(20)}`).join('\n');
    const summarizer = createScriptedSummarizer({ answers: [{ summary: lines }] });
    const input = deepFreeze(conversation(40, { pad: 1000 }));
    const r = await compaction().run(input, makeCtx({ summarizer, budget }));
    expect(r.report.status).toBe('applied');
    const text = (r.messages[0]!.parts[0] as { text: string }).text;
    expect(text).toContain('line 0 ');
    expect(text).not.toContain('line 1999 ');
    // target = 0.55 × 20000; the kept part and the summary stay under it.
    expect(r.report.tokensAfter).toBeLessThanOrEqual(11_000);
  });

  it('asks the summarizer for what the kept part leaves of the target', async () => {
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'S' } });
    const input = deepFreeze(conversation(40, { pad: 1000 }));
    await compaction({ maxSummaryChars: 1_000_000, charsPerToken: 1 }).run(
      input,
      makeCtx({ summarizer, budget }),
    );
    const asked = summarizer.requests[0]!.maxOutputChars!;
    // keep ≤ 0.75 × 11000 tokens, so the summary gets at least the other 2750 (1 char per token here),
    // 35% of which is kept for the reference index.
    expect(asked).toBeGreaterThanOrEqual(0.65 * 2_750);
    expect(asked).toBeLessThanOrEqual(0.65 * 11_000);
  });

  it('tops up a short summary with the references it leaves out, within its budget, or not at all at 0', async () => {
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'Worked on src/file2.ts.' } });
    const input = deepFreeze(conversation(40, { pad: 1000 }));
    const run = async (referenceIndexShare?: number) => {
      const stage = compaction(referenceIndexShare === undefined ? {} : { referenceIndexShare });
      const r = await stage.run(input, makeCtx({ summarizer, budget }));
      return { text: (r.messages[0]!.parts[0] as { text: string }).text, asked: summarizer.requests.at(-1)! };
    };
    const topped = await run();
    const index = topped.text.split('## References (verbatim)\n')[1]!.split(/, |\n/);
    expect(index).toContain('src/file1.ts');
    expect(index).not.toContain('src/file2.ts'); // the summary names it already
    expect(topped.text.length - '[Previous conversation summary]\n\n'.length).toBeLessThanOrEqual(
      Math.ceil(topped.asked.maxOutputChars! / 0.65),
    );
    const plain = await run(0);
    expect(plain.text).toBe('[Previous conversation summary]\n\nWorked on src/file2.ts.');
    expect(plain.asked.maxOutputChars).toBeGreaterThan(topped.asked.maxOutputChars!);
  });

  it('folds archive digests wherever they sit and keeps the recent conversation itself', async () => {
    const digests = [1, 2, 3].map((i) =>
      user(`[Tool output summary]\nTool: read_file ${'d'.repeat(4000)}`, {
        id: `digest${i}`,
        meta: { kind: 'tool_summary', userVisible: false },
      }),
    );
    const input = deepFreeze([...conversation(40, { pad: 1000 }), ...digests]);
    const r = await compaction().run(input, makeCtx({ budget }));
    expect(r.report.status).toBe('applied');
    expect(ids(r.messages).filter((id) => id.startsWith('digest'))).toEqual([]);
    expect(ids(r.messages).at(-1)).toBe('a40');
    expect(violations(r.messages, input)).toEqual([]);
  });

  it('keeps a last step larger than the whole target verbatim', async () => {
    const input = deepFreeze([
      ...conversation(20, { pad: 1000 }),
      assistant('y'.repeat(50_000), [], { id: 'big' }),
    ]);
    const r = await compaction().run(input, makeCtx({ budget }));
    expect(r.report.status).toBe('applied');
    expect(ids(r.messages)).toHaveLength(2);
    expect(r.messages[0]!.meta?.kind).toBe('summary');
    expect(r.messages[1]).toBe(input.at(-1));
  });

  it('keeps the call the model is answering and its result verbatim, whatever their size', async () => {
    // One user turn, many tool steps (the usual Claude Code session); the newest result is large.
    const steps: Message[] = [user('fix the build', { id: 'u0' })];
    for (let i = 0; i < 12; i++) {
      steps.push(
        assistant('', [toolCall(`c${i}`, 'read', { path: `f${i}.ts` })], { id: `a${i}` }),
        toolResult(`c${i}`, 'read', 'r'.repeat(i === 11 ? 30_000 : 4_000), { id: `t${i}` }),
      );
    }
    const input = deepFreeze(steps);
    const r = await compaction().run(input, makeCtx({ budget }));
    expect(r.report.status).toBe('applied');
    expect(r.messages.slice(-2)).toEqual([input.at(-2), input.at(-1)]);
    expect(r.messages[0]!.meta?.kind).toBe('summary');
  });

  it('reports failed and counts the failure when the summarizer throws', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ error: 'down' }] });
    const input = deepFreeze(conversation(40, { pad: 1000 }));
    const r = await compaction().run(
      input,
      withState(makeCtx({ summarizer, budget }), { compactionFailures: 2 }),
    );
    expect(r.messages).toBe(input);
    expect(r.report).toMatchObject({ status: 'failed', error: 'down' });
    expect(r.state!.compactionFailures).toBe(3);
    expect(r.events.at(-1)).toEqual({ type: 'breaker-open', failures: 3 });
  });

  it('escalates when the context stays above 60% of the trigger after compaction', async () => {
    // A huge system prompt keeps the context high whatever is summarised.
    const ctx = makeCtx({ budget, system: 's'.repeat(78_000) });
    const r = await compaction().run(deepFreeze(conversation(40, { pad: 1000 })), ctx);
    expect(r.report.status).toBe('applied');
    expect(r.events.find((e) => e.type === 'escalated')).toMatchObject({ stage: 'compaction' });
    // Next time: skipped once, the mark cleared.
    const next = await compaction().run(deepFreeze(r.messages), { ...ctx, state: r.state! });
    expect(next.report.status).toBe('skipped');
    expect(next.events[0]!.type).toBe('escalated');
    expect(next.state!.lastCompactionTokens).toBeUndefined();
  });

  it('keeps pinned messages and excluded tool chains verbatim', async () => {
    const input = conversation(40, { tools: true, pad: 1000 }).map((m) =>
      m.id === 'a2' ? { ...m, meta: { pinned: true } } : m,
    );
    const withTodo: Message[] = [
      ...input.slice(0, 4),
      assistant('', [toolCall('t1', 'todo', { items: ['a'] })], { id: 'todo-call' }),
      toolResult('t1', 'todo', 'ok', { id: 'todo-result' }),
      ...input.slice(4),
    ];
    const ctx = makeCtx({ budget, excludeTools: new Set(['todo']) });
    const r = await compaction().run(deepFreeze(withTodo), ctx);
    expect(ids(r.messages).slice(1, 4)).toEqual(['todo-call', 'todo-result', 'a2']);
    expect(violations(r.messages, withTodo)).toEqual([]);
  });

  it('returns the input itself when everything fits the keep-recent budget', async () => {
    const input = deepFreeze(conversation(2));
    const r = await compaction().run(input, makeCtx({ budget }));
    expect(r.messages).toBe(input);
    expect(r.report.status).toBe('noop');
  });
});

describe('compaction abort', () => {
  it('rethrows when the run is aborted instead of reporting a failure', async () => {
    const controller = new AbortController();
    const summarizer = createScriptedSummarizer({ answers: [{ delayMs: 10_000 }, { summary: 'late' }] });
    const budget = createBudget({ contextWindow: 40_000, reserveOutput: 0, autoCompactBuffer: 20_000 });
    const pending = compaction().run(
      deepFreeze(conversation(40, { pad: 1000 })),
      makeCtx({ summarizer, budget, signal: controller.signal }),
    );
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
  });
});
