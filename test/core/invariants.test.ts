import { describe, expect, it } from 'vitest';
import {
  assertInvariants,
  assistant,
  checkInvariants,
  createPipeline,
  type Message,
  MISSING_RESULT_TEXT,
  pairToolCalls,
  repairMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
  toolCall,
  toolResult,
  toResponses,
  user,
  withdrawAnsweredPlaceholders,
} from '../../src/core/index.ts';

const rules = (ms: Parameters<typeof checkInvariants>[0], o?: Parameters<typeof checkInvariants>[1]) =>
  checkInvariants(ms, o).map((v) => v.rule);

describe('pairToolCalls', () => {
  it('pairs a reused id with the nearest preceding open call', () => {
    const ms = [
      user('go', { id: 'u' }),
      assistant('', [toolCall('x', 'search')], { id: 'a1' }),
      toolResult('x', 'search', 'first', { id: 't1' }),
      assistant('', [toolCall('x', 'search')], { id: 'a2' }),
      toolResult('x', 'search', 'second', { id: 't2' }),
    ];
    const { pairs, orphanResults } = pairToolCalls(ms);
    expect(pairs.map((p) => [p.call.message, p.result?.message])).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(orphanResults).toEqual([]);
  });
});

describe('checkInvariants', () => {
  it('reports a call without its result', () => {
    expect(rules([user('q'), assistant('', [toolCall('c', 'f')])])).toEqual(['call-without-result']);
  });

  it('accepts a trailing unanswered call when pending calls are allowed', () => {
    expect(rules([user('q'), assistant('', [toolCall('c', 'f')])], { allowPendingCalls: true })).toEqual([]);
  });

  it('reports a result without a call', () => {
    expect(rules([user('q'), toolResult('c', 'f', 'x')])).toEqual(['result-without-call']);
  });

  it('reports a result separated from its call for a dialect', () => {
    const ms = [user('q'), assistant('', [toolCall('c', 'f')]), user('interrupt'), toolResult('c', 'f', 'x')];
    expect(rules(ms)).toEqual([]);
    expect(rules(ms, { dialect: 'openai' })).toEqual(['result-not-adjacent']);
  });

  it('reports reused ids for anthropic only', () => {
    const ms = [
      user('q'),
      assistant('', [toolCall('x', 'f')]),
      toolResult('x', 'f', '1'),
      assistant('', [toolCall('x', 'f')]),
      toolResult('x', 'f', '2'),
    ];
    expect(rules(ms, { dialect: 'openai' })).toEqual([]);
    expect(rules(ms, { dialect: 'anthropic' })).toEqual(['duplicate-call-id']);
  });

  it('reports a lost pinned message and a reordering against the input', () => {
    const a = user('a', { id: 'a', meta: { pinned: true } });
    const b = user('b', { id: 'b' });
    const c = user('c', { id: 'c' });
    expect(rules([c, b], { before: [a, b, c] })).toEqual(['order-changed', 'pinned-lost']);
  });

  it('throws a CtxError listing violations', () => {
    expect(() => assertInvariants([toolResult('c', 'f', 'x')])).toThrow(/result-without-call/);
  });
});

describe('repairMessages', () => {
  it('returns the input itself when nothing is wrong', () => {
    const ms = [user('q'), assistant('', [toolCall('c', 'f')]), toolResult('c', 'f', 'x')];
    expect(repairMessages(ms, { dialect: 'openai' }).messages).toBe(ms);
  });

  it('synthesises a result for a call without one, and reports it', () => {
    const ms = [
      user('q', { id: 'u' }),
      assistant('', [toolCall('c', 'f')], { id: 'a' }),
      user('next', { id: 'n' }),
    ];
    const { messages, repairs } = repairMessages(ms, { dialect: 'openai' });
    expect(messages.map((m) => m.id)).toEqual(['u', 'a', 'a~repair', 'n']);
    expect(messages[2]!.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'c',
      output: MISSING_RESULT_TEXT,
      isError: true,
    });
    expect(repairs.map((r) => r.kind)).toEqual(['synthesized-result']);
    expect(checkInvariants(messages, { dialect: 'openai' })).toEqual([]);
  });

  it('drops orphan results and moves separated results next to their call', () => {
    const ms = [
      toolResult('zz', 'f', 'orphan', { id: 'o' }),
      user('q', { id: 'u' }),
      assistant('', [toolCall('c', 'f')], { id: 'a' }),
      user('wait', { id: 'w' }),
      toolResult('c', 'f', 'x', { id: 't' }),
    ];
    const { messages, repairs } = repairMessages(ms, { dialect: 'anthropic' });
    expect(repairs.map((r) => r.kind).sort()).toEqual(['dropped-orphan-result', 'moved-result']);
    expect(checkInvariants(messages, { dialect: 'anthropic' })).toEqual([]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('renames reused ids for anthropic and keeps each pair together', () => {
    const ms = [
      user('q'),
      assistant('', [toolCall('x', 'f')]),
      toolResult('x', 'f', '1'),
      assistant('', [toolCall('x', 'f')]),
      toolResult('x', 'f', '2'),
    ];
    const { messages, repairs } = repairMessages(ms, { dialect: 'anthropic' });
    expect(repairs.map((r) => r.detail)).toEqual(['reused id renamed to x_2']);
    expect(checkInvariants(messages, { dialect: 'anthropic' })).toEqual([]);
  });
});

describe('withdrawAnsweredPlaceholders', () => {
  it('lets a real result replace the placeholder a pre-flight put in while it was missing', async () => {
    const pipeline = createPipeline();
    const history = [
      user('read all three', { id: 'u' }),
      assistant('', [toolCall('a', 'read'), toolCall('b', 'read'), toolCall('c', 'read')], { id: 'a1' }),
      toolResult('a', 'read', 'A', { id: 'ra' }),
    ];
    const first = await pipeline.prepare({ messages: history });
    expect(first.messages.at(-1)?.meta?.repaired).toBe(true);
    // The README loop: the working context plus what arrived since, here the result of b.
    const next = await pipeline.prepare({
      messages: [...first.messages, toolResult('b', 'read', 'B', { id: 'rb' })],
    });
    const outputs = next.send.flatMap((m) => m.parts).filter((p) => p.type === 'tool-result');
    expect(outputs.map((p) => [p.callId, p.output])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', MISSING_RESULT_TEXT],
    ]);
    expect(withdrawAnsweredPlaceholders(next.messages)).toBe(next.messages);
    expect(withdrawAnsweredPlaceholders([...first.messages, ...next.messages.slice(-2)])).not.toContain(
      first.messages.at(-1),
    );
  });
});

describe('tool approvals and denied calls', () => {
  const history: Message[] = [
    { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Delete the build folder.' }] },
    {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'c1', name: 'bash', args: { command: 'rm -rf build' } },
        { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'request' },
      ],
    },
    {
      id: 't',
      role: 'tool',
      parts: [
        { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'response', approved: false },
        { type: 'tool-result', callId: 'c1', output: 'Denied by the user.', denied: true },
      ],
    },
    { id: 'b', role: 'assistant', parts: [{ type: 'text', text: 'Left it alone.' }] },
  ];

  it('counts a denied call as answered in every dialect', () => {
    expect(pairToolCalls(history).pairs[0]?.result).toEqual({ message: 2, part: 1 });
    for (const dialect of [undefined, 'openai', 'anthropic', 'responses', 'gemini'] as const)
      expect(checkInvariants(history, dialect ? { dialect } : {})).toEqual([]);
  });

  it('reports approvals whose call is gone and repairs by dropping them', () => {
    const cut = [history[0]!, ...history.slice(2)];
    expect(checkInvariants(cut).map((v) => v.rule)).toEqual(['result-without-call', 'approval-without-call']);
    const { messages, repairs } = repairMessages(cut);
    expect(repairs.map((r) => r.kind).sort()).toEqual(['dropped-orphan-approval', 'dropped-orphan-result']);
    expect(checkInvariants(messages)).toEqual([]);
    expect(messages.map((m) => m.id)).toEqual(['u', 'b']);
  });

  it('keeps a call awaiting its approval or its approved run pending, not unanswered, until the model moves on', () => {
    const approved: Message = {
      id: 't',
      role: 'tool',
      parts: [{ type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'response', approved: true }],
    };
    // Waiting for the decision (the call's message ends the history), then for the approved call's run.
    for (const waiting of [history.slice(0, 2), [...history.slice(0, 2), approved]]) {
      expect(rules(waiting, { allowPendingCalls: true })).toEqual([]);
      expect(repairMessages(waiting, { allowPendingCalls: true }).messages).toBe(waiting);
      // Without allowPendingCalls (what a provider is sent) it still needs a result.
      expect(rules(waiting)).toEqual(['call-without-result']);
    }
    // The same call without an approval, followed by anything, is unanswered.
    const plain = [history[0]!, { ...history[1]!, parts: [history[1]!.parts[0]!] }, user('and?')];
    expect(rules(plain, { allowPendingCalls: true })).toEqual(['call-without-result']);
    // Once an assistant message follows, the approved call is unanswered and repair answers it.
    const movedOn = [...history.slice(0, 2), approved, assistant('done')];
    expect(rules(movedOn, { allowPendingCalls: true })).toEqual(['call-without-result']);
    expect(repairMessages(movedOn, { allowPendingCalls: true }).repairs.map((r) => r.kind)).toEqual([
      'synthesized-result',
    ]);
  });

  it('leaves approvals out of what the provider adapters write', () => {
    expect(
      JSON.stringify([toOpenAI(history), toAnthropic(history), toGemini(history), toResponses(history)]),
    ).not.toMatch(/approval|ap1/);
  });
});
