import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import { messageText } from '../../../src/core/messages/text.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { toModelView } from '../../../src/core/messages/visibility.ts';
import { compactToolResultsInRecent } from '../../../src/core/pipeline/presets/tiancai/recent-digest.ts';
import { createToolArchiving, heuristicToolSummary } from '../../../src/core/pipeline/stages/archiving.ts';
import { sequentialIds } from '../../../src/core/ports.ts';
import { countingCtx, fakeSummarizer, frozen, makeCtx } from './cheap-helpers.ts';

/** `count` calls, each answered by its own tool message. */
function history(
  count: number,
  output = (i: number) => `output ${i}`,
  extra: Partial<Record<number, Message['meta']>> = {},
) {
  const out: Message[] = [user('go', { id: 'u0' })];
  for (let i = 1; i <= count; i++) {
    out.push(assistant('', [toolCall(`c${i}`, i % 2 ? 'bash' : 'grep')], { id: `a${i}` }));
    const meta = extra[i];
    out.push(
      toolResult(`c${i}`, i % 2 ? 'bash' : 'grep', output(i), { id: `t${i}`, ...(meta ? { meta } : {}) }),
    );
  }
  return frozen(out);
}

describe('createToolArchiving (sync, heuristic)', () => {
  const stage = createToolArchiving({ strategy: 'heuristic', cutoff: 10 });

  it('archives the oldest results beyond the cutoff and appends one summary per result', async () => {
    const input = history(12);
    const r = await stage.run(input, makeCtx());
    const archived = r.messages.filter((m) => m.meta?.kind === 'tool_result_archived').map((m) => m.id);
    expect(archived).toEqual(['t1', 't2']);
    expect(r.messages[2]!.meta).toEqual({ agentVisible: false, kind: 'tool_result_archived' });
    const summaries = r.messages.slice(input.length);
    expect(summaries.map((m) => [m.role, m.meta?.kind, m.meta?.agentVisible, m.meta?.userVisible])).toEqual([
      ['user', 'tool_summary', true, false],
      ['user', 'tool_summary', true, false],
    ]);
    expect(messageText(summaries[0]!)).toBe(
      '[Tool output summary]\nTool: bash\nCall ID: c1\nStatus: ok\nTool "bash" finished with status ok. Output excerpt:\noutput 1',
    );
    expect(r.journal.map((j) => [j.action, j.messageId])).toEqual([
      ['archived', 't1'],
      ['inserted', summaries[0]!.id],
      ['archived', 't2'],
      ['inserted', summaries[1]!.id],
    ]);
  });

  it('hands out the same archived copy and summary parts when a later run archives the same result', async () => {
    // The default preset can refuse an archiving (it grew the context) and run it again next step, and
    // a preparation between steps runs it on the context the step extends: the work is done once.
    const input = history(12);
    const first = await stage.run(input, makeCtx());
    const again = await stage.run([...input, user('next', { id: 'u1' })], makeCtx());
    expect(again.messages[2]).toBe(first.messages[2]);
    const summaries = (r: typeof first) => r.messages.filter((m) => m.meta?.kind === 'tool_summary');
    expect(summaries(again).map((m) => m.parts)).toEqual(summaries(first).map((m) => m.parts));
    summaries(again).forEach((m, i) => {
      expect(m.parts).toBe(summaries(first)[i]!.parts);
    });
    // The same result (no name of its own) answering a call now named otherwise is summarized anew.
    const t1: Message = {
      id: 't1',
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', output: 'x' }],
    };
    const named = (name: string) =>
      input.map((m) =>
        m.id === 'a1' ? assistant('', [toolCall('c1', name)], { id: 'a1' }) : m.id === 't1' ? t1 : m,
      );
    for (const name of ['bash', 'sh'])
      expect(messageText(summaries(await stage.run(named(name), makeCtx()))[0]!)).toContain(
        `Tool: ${name}\n`,
      );
  });

  it('makes, counts and digests ahead what archiving will hand out: the step counts none of it again', async () => {
    const { ctx, calls } = countingCtx();
    const counter = ctx.counter;
    const input = history(14);
    for (const m of input) counter.countMessage(m);
    stage.ahead!(input.slice(0, -4), ctx); // between steps, before the last two calls and results
    const afterAhead = calls();
    const r = await stage.run(input, ctx);
    for (const m of toModelView(r.messages)) counter.countMessage(m);
    // The four oldest results are archived: their copies, summaries and stubs were all made ahead.
    expect(r.messages.filter((m) => m.meta?.kind === 'tool_result_archived')).toHaveLength(4);
    expect(calls()).toBe(afterAhead);
    const off = createToolArchiving({ strategy: 'heuristic', cutoff: 10, variant: 'batch' });
    off.ahead!(input, ctx);
    expect(calls()).toBe(afterAhead);
  });

  it('keeps userVisible as it was', async () => {
    const r = await stage.run(history(11, undefined, { 1: { userVisible: false } }), makeCtx());
    expect(r.messages[2]!.meta).toEqual({
      userVisible: false,
      agentVisible: false,
      kind: 'tool_result_archived',
    });
  });

  it('returns the input itself at or under the cutoff', async () => {
    const input = history(10);
    const r = await stage.run(input, makeCtx());
    expect([r.report.status, r.messages === input]).toEqual(['noop', true]);
  });

  it('skips pinned and excluded results and takes the next oldest', async () => {
    const input = history(12, undefined, { 1: { pinned: true } });
    const r = await stage.run(input, makeCtx({ excludeTools: new Set(['grep']) }));
    const archived = r.messages.filter((m) => m.meta?.kind === 'tool_result_archived').map((m) => m.id);
    expect(archived).toEqual(['t3', 't5']);
  });

  it('keeps the call paired in what the model is sent', async () => {
    const r = await stage.run(history(11), makeCtx());
    const view = toModelView(r.messages);
    const stub = view.find((m) => m.id === 't1');
    expect(stub?.parts[0]).toMatchObject({ type: 'tool-result', callId: 'c1' });
  });

  it('clips the heuristic excerpt to 533 + 267 runes', () => {
    const text = heuristicToolSummary({
      name: 'bash',
      callId: 'c',
      isError: true,
      text: `${'a'.repeat(600)}${'b'.repeat(600)}`,
    });
    expect(text).toBe(
      `Tool "bash" finished with status error. Output excerpt:\n${'a'.repeat(533)}\n... (truncated) ...\n${'b'.repeat(267)}`,
    );
  });
});

describe('createToolArchiving (llm)', () => {
  it('asks the summarizer with purpose tool-result, input clipped to 12000 runes, output clipped to 1200', async () => {
    const { summarizer, requests } = fakeSummarizer(() => `  ${'s'.repeat(1500)}  `);
    const stage = createToolArchiving({ cutoff: 1 });
    const input = history(2, () => 'x'.repeat(20000));
    const r = await stage.run(input, makeCtx({ summarizer, preset: 'tiancai' }));
    expect(requests.map((q) => [q.purpose, q.preset, q.maxOutputChars])).toEqual([
      ['tool-result', 'tiancai', 1200],
    ]);
    const sent = requests[0]!.messages[0]!.parts[0];
    expect(sent?.type === 'tool-result' && typeof sent.output === 'string' ? sent.output.length : 0).toBe(
      12000 + '\n... (truncated) ...\n'.length,
    );
    expect(messageText(r.messages.at(-1)!)).toBe(
      `[Tool output summary]\nTool: bash\nCall ID: c1\nStatus: ok\n${'s'.repeat(1200)}`,
    );
  });

  it('falls back to the heuristic when the summarizer fails or answers nothing', async () => {
    for (const answer of [
      () => {
        throw new Error('boom');
      },
      () => '   ',
    ]) {
      const { summarizer } = fakeSummarizer(answer);
      const r = await createToolArchiving({ cutoff: 1 }).run(history(2), makeCtx({ summarizer }));
      expect(messageText(r.messages.at(-1)!)).toContain(
        'Tool "bash" finished with status ok. Output excerpt:\noutput 1',
      );
      expect(r.report.status).toBe('applied');
    }
  });

  it('does nothing when the strategy is off', async () => {
    const input = history(12);
    expect((await createToolArchiving({ strategy: 'off' }).run(input, makeCtx())).messages).toBe(input);
  });
});

describe('createToolArchiving (batch)', () => {
  it('archives at most 2 batches of 4 and appends one [Tool outputs summary] per batch', async () => {
    const stage = createToolArchiving({ strategy: 'heuristic', variant: 'batch', cutoff: 2 });
    const input = history(12);
    const r = await stage.run(input, makeCtx());
    const archived = r.messages.filter((m) => m.meta?.kind === 'tool_result_archived').map((m) => m.id);
    expect(archived).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    const added = r.messages.slice(input.length).map(messageText);
    expect(added).toHaveLength(2);
    expect(added[0]).toBe(
      '[Tool outputs summary]\nCount: 4\nCall IDs: c1, c2, c3, c4\n- [c1] bash (ok): output 1\n- [c2] grep (ok): output 2\n- [c3] bash (ok): output 3\n- [c4] grep (ok): output 4',
    );
  });

  it('asks for tool-batch summaries clipped to 2200 runes', async () => {
    const { summarizer, requests } = fakeSummarizer(() => 'z'.repeat(3000));
    const r = await createToolArchiving({ variant: 'batch', cutoff: 1 }).run(
      history(3),
      makeCtx({ summarizer }),
    );
    expect(requests.map((q) => [q.purpose, q.messages.length, q.maxOutputChars])).toEqual([
      ['tool-batch', 2, 2200],
    ]);
    expect(messageText(r.messages.at(-1)!)).toBe(
      `[Tool outputs summary]\nCount: 2\nCall IDs: c1, c2\n${'z'.repeat(2200)}`,
    );
  });
});

describe('compactToolResultsInRecent', () => {
  it('archives the oldest excess and appends one [Compaction tool digest] at the end', () => {
    const input = history(4, (i) => (i === 2 ? '' : `line a\nline b ${'q'.repeat(300)}`));
    const r = compactToolResultsInRecent(input, 2, { ids: sequentialIds() });
    expect(r.archived.map((m) => m.id)).toEqual(['t1', 't2']);
    expect(r.messages.at(-1)).toBe(r.digest);
    expect(r.digest?.meta).toEqual({ kind: 'tool_summary', agentVisible: true, userVisible: false });
    const [head, l1, l2] = messageText(r.digest!).split('\n');
    expect(head).toBe('[Compaction tool digest]');
    expect(l1).toBe(`- bash (ok): ${`line a line b ${'q'.repeat(300)}`.slice(0, 200)}`);
    expect(l2).toBe('- grep (ok): (empty output)');
  });

  it('returns the input itself when the cutoff is ≤ 0 or not exceeded', () => {
    const input = history(3);
    expect(compactToolResultsInRecent(input, 0, { ids: sequentialIds() }).messages).toBe(input);
    expect(compactToolResultsInRecent(input, 3, { ids: sequentialIds() }).messages).toBe(input);
  });
});

describe('createToolArchiving (in-place)', () => {
  it('puts each summary after the tool block of its result, keeping the prompt last', async () => {
    const input = frozen([
      user('go', { id: 'u0' }),
      assistant('', [toolCall('c1', 'bash'), toolCall('c2', 'grep')], { id: 'a1' }),
      toolResult('c1', 'bash', 'one', { id: 't1' }),
      toolResult('c2', 'grep', 'two', { id: 't2' }),
      assistant('', [toolCall('c3', 'bash')], { id: 'a2' }),
      toolResult('c3', 'bash', 'three', { id: 't3' }),
      user('next', { id: 'u1' }),
    ]);
    const r = await createToolArchiving({ strategy: 'heuristic', cutoff: 1, placement: 'in-place' }).run(
      input,
      makeCtx(),
    );
    expect(r.messages.map((m) => (m.meta?.kind === 'tool_summary' ? 'S' : m.id))).toEqual([
      'u0',
      'a1',
      't1',
      't2',
      'S',
      'S',
      'a2',
      't3',
      'u1',
    ]);
  });
});
