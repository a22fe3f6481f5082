import type { AgentInputItem } from '@openai/agents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkInvariants, createChars4Counter, type Message } from '../../src/core/index.ts';
import { verifiedKey } from '../../src/core/invariants/reasoning.ts';
import { fromAgentInputItems, toAgentInputItems } from '../../src/frameworks/openai-agents/index.ts';
import { foreignHistory } from '../support/foreign-history.ts';
import { HAVE_TRAJECTORIES, loadTrajectories, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

/** What items can hold of a neutral message: role and parts, without the adapter's own bag or isError. */
function neutral(messages: readonly Message[]) {
  return mergeAssistants(messages).map((m) => ({
    role: m.role,
    parts: m.parts.map((p) => {
      // The Responses API has no error flag on a function output: isError does not survive items.
      // A result's name is its call's when it had none (an item needs one).
      const { provider, ...rest } =
        p.type === 'tool-result' ? { ...p, isError: undefined, name: undefined } : p;
      const { framework: _, ...others } = provider ?? {};
      // A call always has its arguments as text in an item (argsText), whether or not it had before.
      if ('argsText' in rest) delete rest.argsText;
      return Object.keys(others).length > 0 ? { ...rest, provider: others } : rest;
    }),
  }));
}

/**
 * Items mark no boundary between two assistant messages in a row (text, then a call in the next
 * message): they come back as one. Merged on both sides of the comparison.
 */
function mergeAssistants(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    const startsTurn = m.parts[0]?.type === 'reasoning' || m.parts[0]?.type === 'text';
    if (last?.role === 'assistant' && m.role === 'assistant' && !startsTurn)
      out[out.length - 1] = { ...last, parts: [...last.parts, ...m.parts] };
    else out.push(m);
  }
  return out;
}

describe('fromAgentInputItems / toAgentInputItems', () => {
  it.skipIf(!HAVE_TRAJECTORIES)(
    'returns every real trajectory unchanged when converted to items and back',
    () => {
      const all = loadTrajectories();
      expect(all.length).toBeGreaterThanOrEqual(191);
      for (const t of all) {
        const items = toAgentInputItems(t.messages);
        const back = fromAgentInputItems(items);
        expect(neutral(back), t.name).toEqual(neutral(t.messages));
        expect(toAgentInputItems(structuredClone(back)), t.name).toEqual(items);
      }
    },
  );
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});

  it('returns the caller’s own item objects for messages handed back unchanged', () => {
    const items: AgentInputItem[] = [
      { role: 'user', content: 'hi' },
      { type: 'function_call', callId: 'c1', name: 'ls', arguments: '{}', status: 'completed' },
      { type: 'function_call_result', callId: 'c1', name: 'ls', status: 'completed', output: 'a' },
    ];
    const out = toAgentInputItems(fromAgentInputItems(items));
    expect(out.every((x, i) => x === items[i])).toBe(true);
  });

  it('keeps hosted tool, compaction and file items intact and gives reasoning its encrypted content', () => {
    const items = [
      { type: 'compaction', encrypted_content: 'cmp', id: 'cmp_1' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'read it' },
          { type: 'input_file', file: { id: 'file_1' } },
        ],
      },
      { type: 'reasoning', id: 'rs_1', content: [], providerData: { encryptedContent: 'enc' } },
      {
        type: 'hosted_tool_call',
        name: 'web_search_call',
        status: 'completed',
        id: 'ws_1',
        providerData: { action: { query: 'x' } },
      },
      {
        type: 'function_call',
        callId: 'c1',
        name: 'ls',
        arguments: '{"a":1}',
        id: 'fc_1',
        providerData: { z: 1 },
      },
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'ls',
        status: 'completed',
        output: { type: 'text', text: 'x' },
      },
    ] as AgentInputItem[];
    const messages = fromAgentInputItems(items);
    expect(messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(messages[0]!.meta).toEqual({ kind: 'compaction', pinned: true });
    expect(verifiedKey(messages[2]!.parts[0]!)).toBe('responses:rs_1:enc');
    // The file and the hosted call are opaque parts, counted by their JSON, not stand-in texts.
    expect(messages[1]!.parts[1]).toMatchObject({
      type: 'opaque',
      source: 'openai-agents',
      kind: 'input_file',
    });
    expect(messages[2]!.parts[1]).toMatchObject({
      type: 'opaque',
      kind: 'hosted_tool_call',
      value: items[3],
    });
    expect(
      createChars4Counter().countMessage({ id: 'x', role: 'assistant', parts: [messages[2]!.parts[1]!] }),
    ).toBe(Math.ceil(JSON.stringify(items[3]).length / 4));
    expect(checkInvariants(messages, { dialect: 'responses' })).toEqual([]);
    expect(toAgentInputItems(structuredClone(messages))).toEqual(items);
  });

  it('reads a multi-part function output as parts, its image counted as an image, and writes it back', () => {
    const png = `data:image/png;base64,${'iVBORw0KGgo'.repeat(4000)}`;
    const items = [
      { type: 'function_call', callId: 'c1', name: 'shot', arguments: '{}', status: 'completed' },
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'shot',
        status: 'completed',
        output: [
          { type: 'input_text', text: 'the page' },
          { type: 'input_image', image: png, detail: 'auto' },
          { type: 'input_file', file: { id: 'file_1' }, filename: 'a.pdf' },
        ],
      },
      { type: 'function_call', callId: 'c2', name: 'pic', arguments: '{}', status: 'completed' },
      {
        type: 'function_call_result',
        callId: 'c2',
        name: 'pic',
        status: 'completed',
        output: { type: 'image', image: { data: 'iVBORw0KGgo', mediaType: 'image/png' } },
      },
    ] as AgentInputItem[];
    const messages = fromAgentInputItems(items);
    const result = messages[1]!.parts[0]!;
    expect(result).toMatchObject({ type: 'tool-result', output: 'the page' });
    expect(
      result.type === 'tool-result' && result.content?.map((c) => (c.type === 'opaque' ? c.kind : c.type)),
    ).toEqual(['text', 'image', 'input_file']);
    expect(messages[3]!.parts[0]).toMatchObject({
      type: 'tool-result',
      output: '',
      content: [{ type: 'image', data: 'iVBORw0KGgo', mediaType: 'image/png' }],
    });
    // 8 characters of text + one image (4,800 characters' worth) + the file entry's JSON, not 44K of base64.
    const file = JSON.stringify((items[1] as { output: unknown[] }).output[2]).length;
    expect(createChars4Counter().countMessage(messages[1]!)).toBe(Math.ceil((8 + 4800 + file) / 4));
    expect(JSON.stringify(toAgentInputItems(structuredClone(messages)))).toBe(JSON.stringify(items));
  });

  it('writes a multi-part result from another adapter as input entries, and leaves approvals and foreign items out', () => {
    const { user, call, tool } = foreignHistory();
    const out = toAgentInputItems([user, call, tool]);
    expect(out).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'shoot' }] },
      { type: 'function_call', status: 'completed', callId: 'c1', name: 'shot', arguments: '{}' },
      {
        type: 'function_call_result',
        status: 'completed',
        callId: 'c1',
        name: 'shot',
        output: [
          { type: 'input_text', text: 'the page' },
          { type: 'input_image', image: 'https://x.test/p.png' },
        ],
      },
    ]);
  });

  it('rewrites only the result a stage changed', () => {
    const items: AgentInputItem[] = [
      { type: 'function_call', callId: 'c1', name: 'cat', arguments: '{}', status: 'completed' },
      { type: 'function_call_result', callId: 'c1', name: 'cat', status: 'completed', output: 'long output' },
    ];
    const messages = structuredClone(fromAgentInputItems(items));
    const part = messages[1]!.parts[0]!;
    if (part.type !== 'tool-result') throw new Error('expected a result');
    part.output = 'long…';
    const out = toAgentInputItems(messages);
    expect(out[0]).toEqual(items[0]);
    expect(out[1]).toEqual({ ...items[1], output: { type: 'text', text: 'long…' } });
  });

  it('rejects something that is not an item, naming its index', () => {
    expect(() => fromAgentInputItems([{ role: 'user', content: 'a' }, 3 as never])).toThrow(/items\[1\]/);
  });

  it('returns generated items unchanged when converted to neutral and back', () => {
    const text = fc.string({ maxLength: 20 });
    const id = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const pd = fc.option(
      fc.dictionary(fc.constantFrom('a', 'itemId', 'encryptedContent'), fc.string(), { maxKeys: 2 }),
      {
        nil: undefined,
      },
    );
    const withPd = <T extends object>(x: T, p: object | undefined) => (p ? { ...x, providerData: p } : x);
    const userContent = fc.oneof(
      text.map((t) => ({ type: 'input_text', text: t })),
      fc.webUrl().map((image) => ({ type: 'input_image', image, detail: 'auto' })),
      id.map((fid) => ({ type: 'input_image', image: { id: fid } })),
      id.map((fid) => ({ type: 'input_file', file: { id: fid } })),
    );
    const item = fc.oneof(
      fc.tuple(text, pd).map(([t, p]) => withPd({ role: 'system', content: t }, p)),
      fc
        .tuple(fc.oneof(text, fc.array(userContent, { maxLength: 3 })), pd)
        .map(([c, p]) => withPd({ role: 'user', content: c }, p)),
      fc
        .tuple(
          fc.array(
            text.map((t) => ({ type: 'output_text', text: t })),
            { maxLength: 2 },
          ),
          pd,
          fc.option(id, { nil: undefined }),
        )
        .map(([content, p, i]) =>
          withPd(
            { type: 'message', role: 'assistant', status: 'completed', content, ...(i ? { id: i } : {}) },
            p,
          ),
        ),
      fc
        .tuple(fc.array(text, { maxLength: 2 }), pd)
        .map(([ts, p]) =>
          withPd(
            { type: 'reasoning', id: 'rs', content: ts.map((t) => ({ type: 'input_text', text: t })) },
            p,
          ),
        ),
      fc
        .tuple(id, text, fc.oneof(fc.constant('{}'), fc.constant('{"a": 1}'), text), pd)
        .map(([c, name, args, p]) =>
          withPd({ type: 'function_call', callId: c, name, arguments: args, status: 'completed' }, p),
        ),
      fc
        .tuple(
          id,
          text,
          fc.oneof(
            text,
            text.map((t) => ({ type: 'text', text: t })),
            fc.webUrl().map((url) => ({ type: 'image', image: { url } })),
            fc.array(
              fc.oneof(
                text.map((t) => ({ type: 'input_text', text: t })),
                fc.webUrl().map((image) => ({ type: 'input_image', image })),
                id.map((fid) => ({ type: 'input_image', image: { id: fid } })),
                id.map((fid) => ({ type: 'input_file', file: { id: fid } })),
              ),
              { maxLength: 3 },
            ),
          ),
          pd,
        )
        .map(([c, name, output, p]) =>
          withPd({ type: 'function_call_result', callId: c, name, output, status: 'completed' }, p),
        ),
      fc
        .tuple(text, pd)
        .map(([name, p]) => withPd({ type: 'hosted_tool_call', name, status: 'completed' }, p)),
      fc.tuple(text, pd).map(([enc, p]) => withPd({ type: 'compaction', encrypted_content: enc }, p)),
      id.map((c) => ({
        type: 'computer_call',
        callId: c,
        status: 'completed',
        action: { type: 'screenshot' },
      })),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (items) => {
        const back = toAgentInputItems(structuredClone(fromAgentInputItems(items as AgentInputItem[])));
        expect(back).toEqual(items);
      }),
      { numRuns: 300 },
    );
  });
});
