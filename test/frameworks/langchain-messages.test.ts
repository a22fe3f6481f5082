import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkInvariants, type Message } from '../../src/core/index.ts';
import { verifiedKey } from '../../src/core/invariants/reasoning.ts';
import { fromLangChainMessages, toLangChainMessages } from '../../src/frameworks/langchain/index.ts';
import { historyArb } from '../support/arbitraries.ts';
import { HAVE_TRAJECTORIES, loadTrajectories, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

/** A neutral message as the LangChain form can hold it: everything but argsText and the adapter's own bag. */
function neutral(messages: readonly Message[]) {
  return messages.map((m) => {
    const { provider, ...rest } = m;
    const { framework: _, ...others } = provider ?? {};
    return {
      ...rest,
      ...(Object.keys(others).length > 0 ? { provider: others } : {}),
      parts: m.parts.map((p) => {
        if (p.type !== 'tool-call') return p;
        const { argsText: _a, ...r } = p;
        return r;
      }),
    };
  });
}

/** What a LangChain message is, field by field (class, content, ids, every metadata bag). */
function lc(messages: readonly BaseMessage[]) {
  return messages.map((m) => {
    const a = m as BaseMessage & Record<string, unknown>;
    return {
      type: m.type,
      id: m.id,
      name: m.name,
      content: m.content,
      additional_kwargs: m.additional_kwargs,
      response_metadata: m.response_metadata,
      tool_calls: a.tool_calls,
      invalid_tool_calls: a.invalid_tool_calls,
      usage_metadata: a.usage_metadata,
      tool_call_id: a.tool_call_id,
      status: a.status,
      artifact: a.artifact,
    };
  });
}

describe('fromLangChainMessages / toLangChainMessages', () => {
  it.skipIf(!HAVE_TRAJECTORIES)(
    'returns every real trajectory unchanged when converted to LangChain messages and back',
    () => {
      const all = loadTrajectories();
      expect(all.length).toBeGreaterThanOrEqual(191);
      for (const t of all) {
        const messages = toLangChainMessages(t.messages);
        const back = fromLangChainMessages(messages);
        expect(neutral(back), t.name).toEqual(neutral(t.messages));
        expect(lc(toLangChainMessages(structuredClone(back))), t.name).toEqual(lc(messages));
      }
    },
  );
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});

  it('returns the caller’s own objects for messages handed back unchanged', () => {
    const history = [new HumanMessage('hi'), new AIMessage({ content: 'hello', id: 'a1' })];
    const out = toLangChainMessages(fromLangChainMessages(history));
    expect(out[0]).toBe(history[0]);
    expect(out[1]).toBe(history[1]);
  });

  it('keeps signed thinking, redacted thinking and an encrypted Responses reasoning item where the rules read them', () => {
    const history = [
      new AIMessage({
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'sig1' },
          { type: 'redacted_thinking', data: 'blob' },
          { type: 'text', text: 'ok' },
        ],
      }),
      new AIMessage({
        content: 'done',
        additional_kwargs: {
          reasoning: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'enc' },
        },
      }),
    ];
    const [a, o] = fromLangChainMessages(history);
    expect(a!.parts.map(verifiedKey)).toEqual([
      'anthropic:thinking:sig1:plan',
      'anthropic:redacted:blob:',
      undefined,
    ]);
    expect(verifiedKey(o!.parts[0]!)).toBe('responses:rs_1:enc');
    expect(lc(toLangChainMessages(structuredClone([a!, o!])))).toEqual(lc(history));
  });

  it('keeps a ToolMessage’s status, artifact and multi-part content, and rewrites only what a stage changed', () => {
    const call = new AIMessage({
      content: '',
      tool_calls: [{ id: 'c1', name: 'shot', args: {}, type: 'tool_call' }],
    });
    const result = new ToolMessage({
      tool_call_id: 'c1',
      content: [
        { type: 'text', text: 'page one' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ],
      status: 'error',
      artifact: { rows: 3 },
    });
    const neutralMessages = fromLangChainMessages([call, result]);
    expect(checkInvariants(neutralMessages)).toEqual([]);
    const r = structuredClone(neutralMessages[1]!);
    expect(lc(toLangChainMessages([r]))).toEqual(lc([result]));
    const part = r.parts[0]!;
    if (part.type !== 'tool-result') throw new Error('expected a result');
    part.output = 'page…';
    const [changed] = toLangChainMessages([r]) as ToolMessage[];
    expect([changed!.content, changed!.status, changed!.artifact]).toEqual(['page…', 'error', { rows: 3 }]);
  });

  it('keeps a summary’s meta through LangChain so the next turn still knows it', () => {
    const summary: Message = {
      id: 's1',
      role: 'user',
      parts: [{ type: 'text', text: 'Summary of earlier work' }],
      meta: { kind: 'summary', pinned: true },
    };
    const [msg] = toLangChainMessages([summary]);
    expect(msg).toBeInstanceOf(HumanMessage);
    expect(fromLangChainMessages([msg!])[0]!.meta).toEqual({ kind: 'summary', pinned: true });
  });

  it('rejects a message type it cannot map, naming its index', () => {
    const odd = { type: 'remove', content: '', id: 'x' } as unknown as BaseMessage;
    expect(() => fromLangChainMessages([new HumanMessage('a'), odd])).toThrow(/messages\[1\]\.type/);
  });

  it('returns generated neutral histories (signed, encrypted and Gemini reasoning) unchanged through LangChain', () => {
    fc.assert(
      fc.property(historyArb({ huge: false, frameworkData: false }), ({ messages }) => {
        const back = fromLangChainMessages(toLangChainMessages(messages));
        expect(neutral(back)).toEqual(neutral(messages));
      }),
      { numRuns: 150 },
    );
  });

  it('returns generated LangChain messages unchanged when converted to neutral and back', () => {
    const text = fc.string({ maxLength: 20 });
    const id = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const bag = fc.dictionary(fc.constantFrom('k', 'cache_control', 'x'), fc.string(), { maxKeys: 2 });
    const block = fc.oneof(
      fc.tuple(text, bag).map(([t, extra]) => ({ type: 'text', text: t, ...extra })),
      fc.tuple(text, text).map(([thinking, signature]) => ({ type: 'thinking', thinking, signature })),
      text.map((data) => ({ type: 'redacted_thinking', data })),
      text.map((reasoning) => ({ type: 'reasoning', reasoning, id: 'r' })),
      fc.webUrl().map((url) => ({ type: 'image_url', image_url: { url } })),
      fc.webUrl().map((url) => ({ type: 'image', url, mimeType: 'image/png' })),
      text.map((t) => ({ type: 'document', source: { text: t } })),
    );
    const call = fc
      .tuple(id, text, fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.boolean())
      .map(([cid, name, args, typed]) => ({
        id: cid,
        name,
        args,
        ...(typed ? { type: 'tool_call' as const } : {}),
      }));
    const content = fc.oneof(text, fc.array(block, { maxLength: 3 }));
    const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const message: fc.Arbitrary<BaseMessage> = fc.oneof(
      fc
        .tuple(content, opt(id))
        .map(([c, i]) => new SystemMessage({ content: c as never, ...(i ? { id: i } : {}) })),
      fc
        .tuple(content, opt(id), opt(text))
        .map(
          ([c, i, name]) =>
            new HumanMessage({ content: c as never, ...(i ? { id: i } : {}), ...(name ? { name } : {}) }),
        ),
      fc.tuple(content, fc.array(call, { maxLength: 3 }), opt(id), bag, fc.boolean(), fc.boolean()).map(
        ([c, calls, i, kw, usage, reasoning]) =>
          new AIMessage({
            content: c as never,
            tool_calls: calls as never,
            ...(i ? { id: i } : {}),
            additional_kwargs: {
              ...kw,
              ...(reasoning
                ? {
                    reasoning: {
                      id: 'rs_1',
                      type: 'reasoning',
                      summary: [{ type: 'summary_text', text: 'why' }],
                      encrypted_content: 'e',
                    },
                  }
                : {}),
            },
            response_metadata: { model_name: 'm-1', finish_reason: 'stop' },
            ...(usage
              ? {
                  usage_metadata: {
                    input_tokens: 30,
                    output_tokens: 5,
                    total_tokens: 35,
                    input_token_details: { cache_read: 10 },
                  },
                }
              : {}),
          } as never),
      ),
      fc
        .tuple(
          id,
          fc.oneof(text, fc.array(block, { maxLength: 2 })),
          fc.constantFrom('success', 'error'),
          opt(bag),
          opt(text),
        )
        .map(
          ([cid, c, status, artifact, name]) =>
            new ToolMessage({
              tool_call_id: cid,
              content: c as never,
              status: status as 'success' | 'error',
              ...(artifact ? { artifact } : {}),
              ...(name ? { name } : {}),
            }),
        ),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        const back = toLangChainMessages(structuredClone(fromLangChainMessages(messages)));
        expect(lc(back)).toEqual(lc(messages));
      }),
      { numRuns: 300 },
    );
  });
});
