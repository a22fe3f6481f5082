import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONValue, ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  createChars4Counter,
  fromOpenAI,
  type Message,
  repairMessages,
} from '../../src/core/index.ts';
import { verifiedKey } from '../../src/core/invariants/reasoning.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { foreignHistory } from '../support/foreign-history.ts';

const DATA = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'trajectories');

function trajectories(): { name: string; messages: Message[] }[] {
  return readdirSync(DATA).flatMap((group) =>
    readdirSync(join(DATA, group))
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const raw = JSON.parse(readFileSync(join(DATA, group, f), 'utf8')) as { messages: unknown[] };
        return { name: `${group}/${f}`, messages: fromOpenAI(raw.messages, { path: f }) };
      }),
  );
}

/** What a ModelMessage can hold of a neutral message: role and parts (no ids, usage, meta, argsText). */
function projection(messages: readonly Message[]) {
  return messages.map((m) => ({
    role: m.role,
    parts: m.parts.map((p) => {
      if (p.type === 'tool-call') {
        const { argsText: _, ...rest } = p;
        return rest;
      }
      if (p.type === 'tool-result') {
        const { name: _, ...rest } = p;
        return rest;
      }
      return p;
    }),
  }));
}

describe('fromModelMessages / toModelMessages', () => {
  it.skipIf(!existsSync(DATA))(
    'returns every real trajectory unchanged when converted to ModelMessage and back',
    () => {
      const all = trajectories();
      expect(all.length).toBeGreaterThanOrEqual(191);
      for (const t of all) {
        const model = toModelMessages(t.messages);
        const back = fromModelMessages(model);
        expect(projection(back), t.name).toEqual(projection(t.messages));
        expect(toModelMessages(back), t.name).toEqual(model);
      }
    },
  );
  if (!existsSync(DATA))
    it.skip(`real trajectories: no folder ${DATA} (see ../shared/data/README.md)`, () => {});

  it('maps Anthropic, OpenAI and Google reasoning metadata where the reasoning rules read it', () => {
    const [a, o, g] = fromModelMessages([
      {
        role: 'assistant',
        content: [{ type: 'reasoning', text: 't', providerOptions: { anthropic: { signature: 'sig' } } }],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: '',
            providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'ls',
            input: {},
            providerOptions: { google: { thoughtSignature: 'ts' } },
          },
        ],
      },
    ]);
    expect(verifiedKey(a!.parts[0]!)).toBe('anthropic:thinking:sig:t');
    expect(verifiedKey(o!.parts[0]!)).toBe('responses:rs_1:enc');
    expect(verifiedKey(g!.parts[0]!)).toBe('gemini:tool-call:c1:ts');
  });

  it('gives redacted Anthropic thinking back as redactedData when it came from another adapter', () => {
    const [m] = toModelMessages([
      {
        id: 'a',
        role: 'assistant',
        parts: [{ type: 'reasoning', text: '', signature: 'blob', redacted: true }],
      },
    ]);
    expect(m).toEqual({
      role: 'assistant',
      content: [{ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'blob' } } }],
    });
  });

  it('keeps a pending approval: the call, the request and a denial survive and pair', () => {
    const history: ModelMessage[] = [
      { role: 'user', content: 'delete it' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'rm', input: { path: '/x' } },
          { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: 'no' },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'rm',
            output: { type: 'execution-denied', reason: 'no' },
          },
        ],
      },
    ];
    const neutral = fromModelMessages(history);
    expect(checkInvariants(neutral)).toEqual([]);
    expect(neutral[1]!.parts[1]).toMatchObject({ type: 'tool-approval', callId: 'c1', phase: 'request' });
    expect(neutral[2]!.parts[0]).toMatchObject({
      type: 'tool-approval',
      callId: 'c1',
      phase: 'response',
      approved: false,
      reason: 'no',
    });
    expect(neutral[2]!.parts[1]).toMatchObject({ type: 'tool-result', denied: true });
    expect(toModelMessages(neutral)).toEqual(history);
    // Without its call (a stage or the caller dropped it) the approvals are reported and repaired away.
    const cut = [neutral[0]!, neutral[2]!];
    expect(checkInvariants(cut).map((v) => v.rule)).toContain('approval-without-call');
    expect(checkInvariants(repairMessages(cut).messages)).toEqual([]);
  });

  it('reads a file part as an opaque part counted by its bytes, and a screenshot result as an image', () => {
    const pdf = 'JVBERi0xLjQK'.repeat(500);
    const history: ModelMessage[] = [
      {
        role: 'user',
        content: [{ type: 'file', data: pdf, mediaType: 'application/pdf', filename: 'a.pdf' }],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'the page' },
                { type: 'image-data', data: 'iVBORw0KGgo'.repeat(4000), mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
    ];
    const neutral = fromModelMessages(history);
    expect(neutral[0]!.parts[0]).toMatchObject({ type: 'opaque', source: 'ai-sdk', kind: 'file' });
    const counter = createChars4Counter();
    expect(counter.countMessage(neutral[0]!)).toBeGreaterThan(pdf.length / 4);
    expect(neutral[2]!.parts[0]).toMatchObject({ type: 'tool-result', output: 'the page' });
    // 8 characters of text + one image (4,800 characters' worth), not 44,000 characters of base64.
    expect(counter.countMessage(neutral[2]!)).toBe(Math.ceil((8 + 4800) / 4));
    expect(toModelMessages(neutral)).toEqual(history);
  });

  it('passes a provider-executed approval response, custom parts and reasoning files through whole', () => {
    const history = [
      { role: 'user', content: 'search the docs' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning-file', data: { type: 'data', data: 'UklGRg==' }, mediaType: 'audio/wav' },
          { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'cmp_1' } } },
          { type: 'text', text: 'asking' },
        ],
      },
      {
        role: 'tool',
        content: [
          // Its request is not in the prompt (the AI SDK sends the provider the response only).
          { type: 'tool-approval-response', approvalId: 'mcpr_1', approved: true, providerExecuted: true },
        ],
      },
    ] as ModelMessage[];
    const neutral = fromModelMessages(history);
    const kinds = neutral.flatMap((m) =>
      m.parts.map((p) => (p.type === 'opaque' ? `opaque:${p.kind}` : p.type)),
    );
    expect(kinds).toEqual([
      'text',
      'opaque:reasoning-file',
      'opaque:custom',
      'text',
      'opaque:tool-approval-response',
    ]);
    // No stand-in text: the only texts are the messages' own.
    expect(neutral.flatMap((m) => m.parts.filter((p) => p.type === 'text').map((p) => p.text))).toEqual([
      'search the docs',
      'asking',
    ]);
    // Counted by their JSON, kept by repair (no call to tie them to), written back as they came.
    const counter = createChars4Counter();
    expect(counter.countMessage(neutral[2]!)).toBe(
      Math.ceil(JSON.stringify(history[2]!.content[0]).length / 4),
    );
    expect(checkInvariants(neutral)).toEqual([]);
    expect(repairMessages(neutral).messages).toBe(neutral);
    expect(JSON.stringify(toModelMessages(neutral))).toBe(JSON.stringify(history));
  });

  it('keeps provider-executed calls, their results and approvals in the assistant message, whole', () => {
    const history = [
      { role: 'user', content: 'search and ask the docs server' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'ws1',
            toolName: 'web_search',
            input: { q: 'x' },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 'ws1',
            toolName: 'web_search',
            output: { type: 'json', value: [{ url: 'https://x.test' }] },
          },
          { type: 'tool-call', toolCallId: 'mcp1', toolName: 'docs', input: {}, providerExecuted: true },
          { type: 'tool-approval-request', approvalId: 'mcpr_1', toolCallId: 'mcp1' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'mcpr_1', approved: true, providerExecuted: true },
        ],
      },
    ] as ModelMessage[];
    const neutral = fromModelMessages(history);
    expect(neutral[1]!.parts.map((p) => p.type === 'opaque' && p.kind)).toEqual([
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-approval-request',
    ]);
    // Nothing to pair, move or answer: every dialect's rules hold and repair changes nothing.
    for (const dialect of ['openai', 'anthropic', 'responses', 'gemini'] as const) {
      expect(checkInvariants(neutral, { dialect })).toEqual([]);
      expect(repairMessages(neutral, { dialect }).messages).toBe(neutral);
    }
    expect(JSON.stringify(toModelMessages(neutral))).toBe(JSON.stringify(history));
  });

  it('reads an image file (the model-call prompt form) as an image counted as one, and writes the file back', () => {
    const bytes = new Uint8Array(30_000).fill(7);
    const history: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'file', data: bytes, mediaType: 'image/png' },
          { type: 'file', data: 'https://x.test/a.jpg', mediaType: 'image/jpeg' },
          { type: 'image', image: bytes, mediaType: 'image/png' },
        ],
      },
    ];
    const [m] = fromModelMessages(history);
    expect(m!.parts.map((p) => p.type)).toEqual(['text', 'image', 'image', 'image']);
    expect(m!.parts[2]).toMatchObject({
      type: 'image',
      url: 'https://x.test/a.jpg',
      mediaType: 'image/jpeg',
    });
    // 12 characters of text + three images (4,800 characters' worth each), not 40,000 of base64 each.
    expect(createChars4Counter().countMessage(m!)).toBe(Math.ceil((12 + 3 * 4800) / 4));
    const [back] = toModelMessages([m!]);
    expect(back).toEqual(history[0]);
    const files = (back!.content as { data?: unknown; image?: unknown }[]).slice(1);
    expect(files.map((f) => (f.data ?? f.image) instanceof Uint8Array)).toEqual([true, false, true]);
  });

  it('gives multi-part results, denials and approvals from elsewhere their AI SDK parts, and leaves foreign items out', () => {
    const { user, call, tool } = foreignHistory();
    const out = toModelMessages([
      user,
      call,
      {
        ...tool,
        parts: [
          { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'response', approved: true },
          ...tool.parts,
        ],
      },
      {
        id: 'd',
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'c2',
            name: 'rm',
            output: 'Tool execution denied: no',
            denied: true,
          },
        ],
      },
    ]);
    expect(out[1]!.content).toEqual([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} },
      { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
    ]);
    expect(out[2]!.content).toEqual([
      { type: 'tool-approval-response', approvalId: 'ap1', approved: true },
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'the page' },
            { type: 'image-url', url: 'https://x.test/p.png' },
          ],
        },
      },
    ]);
    expect(out[3]!.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'rm',
        output: { type: 'execution-denied', reason: 'no' },
      },
    ]);
    expect(JSON.stringify(out)).not.toMatch(/\[(web_search_call|file)\]/);
  });

  it('turns a truncated multi-part output into a text output when a stage changed it', () => {
    const [, , tool] = fromModelMessages([
      { role: 'user', content: 'look' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: { type: 'content', value: [{ type: 'text', text: 'a long page' }] },
          },
        ],
      },
    ]);
    const part = tool!.parts[0]!;
    if (part.type !== 'tool-result') throw new Error('expected a result');
    const [out] = toModelMessages([{ ...tool!, parts: [{ ...part, output: 'a long…' }] }]);
    expect(out!.content).toEqual([
      { type: 'tool-result', toolCallId: 'c1', toolName: 'shot', output: { type: 'text', value: 'a long…' } },
    ]);
  });

  it('returns generated AI SDK messages unchanged when converted to neutral and back', () => {
    const po = fc.option(
      fc.dictionary(
        fc.constantFrom('anthropic', 'openai', 'google', 'custom'),
        fc.dictionary(fc.string(), fc.string()),
        {
          maxKeys: 2,
        },
      ),
      { nil: undefined },
    );
    const withPo = <T extends object>(part: T, o: object | undefined) =>
      o ? { ...part, providerOptions: o } : part;
    const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as JSONValue);
    const output = fc.oneof(
      fc.record({ type: fc.constant('text' as const), value: fc.string() }),
      fc.record({ type: fc.constant('json' as const), value: json }),
      fc.record({ type: fc.constant('error-text' as const), value: fc.string() }),
      fc.record({ type: fc.constant('error-json' as const), value: json }),
      fc.record({ type: fc.constant('execution-denied' as const), reason: fc.string() }),
      fc.record({
        type: fc.constant('content' as const),
        value: fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text' as const), text: fc.string() }),
            fc.record({
              type: fc.constant('image-data' as const),
              data: fc.base64String({ maxLength: 12 }),
              mediaType: fc.constant('image/png'),
            }),
            fc.record({
              type: fc.constant('file-data' as const),
              data: fc.base64String({ maxLength: 12 }),
              mediaType: fc.constantFrom('application/pdf', 'image/png'),
            }),
            fc.record({ type: fc.constant('file-id' as const), fileId: fc.string() }),
          ),
          { maxLength: 3 },
        ),
      }),
    );
    const id = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const assistantPart = fc.oneof(
      fc.tuple(fc.string(), po).map(([text, o]) => withPo({ type: 'text' as const, text }, o)),
      fc.tuple(fc.string(), po).map(([text, o]) => withPo({ type: 'reasoning' as const, text }, o)),
      fc
        .tuple(
          id,
          fc.string(),
          fc.dictionary(fc.string(), fc.string()),
          po,
          fc.option(fc.boolean(), { nil: undefined }),
        )
        .map(([toolCallId, toolName, input, o, pe]) =>
          withPo(
            {
              type: 'tool-call' as const,
              toolCallId,
              toolName,
              input,
              ...(pe === undefined ? {} : { providerExecuted: pe }),
            },
            o,
          ),
        ),
      fc.tuple(id, id).map(([approvalId, toolCallId]) => ({
        type: 'tool-approval-request' as const,
        approvalId,
        toolCallId,
      })),
      po.map((o) => withPo({ type: 'custom' as const, kind: 'openai.x' as const }, o)),
      fc
        .uint8Array({ maxLength: 20 })
        .map((data) => ({ type: 'reasoning-file' as const, data, mediaType: 'audio/wav' })),
    );
    const toolPart = fc.oneof(
      fc
        .tuple(id, fc.string(), output, po)
        .map(([toolCallId, toolName, out, o]) =>
          withPo({ type: 'tool-result' as const, toolCallId, toolName, output: out }, o),
        ),
      fc
        .tuple(id, fc.boolean(), fc.option(fc.boolean(), { nil: undefined }))
        .map(([approvalId, approved, pe]) => ({
          type: 'tool-approval-response' as const,
          approvalId,
          approved,
          ...(pe === undefined ? {} : { providerExecuted: pe }),
        })),
    );
    const userPart = fc.oneof(
      fc.tuple(fc.string(), po).map(([text, o]) => withPo({ type: 'text' as const, text }, o)),
      fc.webUrl().map((image) => ({ type: 'image' as const, image, mediaType: 'image/png' })),
      fc.uint8Array({ maxLength: 20 }).map((image) => ({ type: 'image' as const, image })),
      fc
        .tuple(fc.uint8Array({ maxLength: 20 }), fc.constantFrom('application/pdf', 'image/png'), po)
        .map(([data, mediaType, o]) => withPo({ type: 'file' as const, data, mediaType }, o)),
      fc
        .webUrl()
        .map((data) => ({ type: 'file' as const, data, mediaType: 'image/jpeg', filename: 'a.jpg' })),
    );
    const message = fc.oneof(
      fc.string().map((content): ModelMessage => ({ role: 'system', content })),
      fc.string().map((content): ModelMessage => ({ role: 'user', content })),
      fc.array(userPart, { maxLength: 3 }).map((content): ModelMessage => ({ role: 'user', content })),
      // AI SDK 7's `custom` and `reasoning-file` parts among them (this repository builds with AI SDK 6).
      fc
        .array(assistantPart, { maxLength: 4 })
        .map((content) => ({ role: 'assistant', content }) as ModelMessage),
      fc
        .array(toolPart, { minLength: 1, maxLength: 3 })
        .map((content): ModelMessage => ({ role: 'tool', content })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (messages) => {
        const neutral = fromModelMessages(messages);
        expect(toModelMessages(neutral)).toEqual(messages);
        // Through JSON (a persisted state) too, and never a stand-in text for a part.
        expect(toModelMessages(structuredClone(neutral))).toEqual(messages);
        const texts = neutral.flatMap((m) => m.parts.filter((p) => p.type === 'text'));
        expect(texts.every((p) => p.type === 'text' && p.provider?.framework?.part === undefined)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
