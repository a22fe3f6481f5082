/**
 * fast-check arbitraries of conversation histories for the property tests: turns of a user message
 * (plain, CJK, with an image, sometimes pinned) followed by assistant steps with parallel tool calls
 * (ids drawn from a small pool when `reuseIds`, so ids repeat across the conversation as in τ-bench),
 * their results (short, CJK, JSON, huge, errors), and provider usage on some assistant messages.
 * Assistant steps carry reasoning as each provider sends it: plain (Chat Completions), signed
 * Anthropic thinking, Responses reasoning items with `encrypted_content` (their calls tagged with the
 * item), Gemini thoughts with a `thoughtSignature` on the first call; some steps hold only reasoning
 * (as a trimmed or aborted turn leaves them), and some call ids are not accepted by Anthropic
 * (`functions.bash:0`, `kimi!…!2`).
 * Histories are valid for the neutral rules: every call has its result in the tool messages right
 * after it.
 */
import fc from 'fast-check';
import { hashText } from '../../src/core/messages/digest.ts';
import type {
  Extra,
  JsonValue,
  Message,
  Part,
  ToolCallPart,
  ToolResultPart,
} from '../../src/core/messages/types.ts';

export const TOOL_NAMES = [
  'file_read',
  'grep',
  'glob',
  'bash',
  'file_edit',
  'file_write',
  'web_fetch',
  'memory_get',
];
export const PATHS = ['src/a.ts', 'src/b.ts', 'README.md', 'docs/x.md'];

const LATIN = ['fix the bug', 'run the tests', 'why does it fail?', 'ok', 'refactor the parser', 'ship it'];
const CJK = ['修复这个错误', '运行测试并报告结果', 'テストを実行してください', '파서를 리팩터링해 주세요'];

export interface HistoryOptions {
  /** @default 8 */
  maxTurns?: number;
  /**
   * Include what only the neutral model and its own dialect adapters carry: opaque pass-through parts,
   * multi-part and denied results, reasoning metadata in `extra`, and the `extra` slot on every part
   * and message. @default true
   */
  frameworkData?: boolean;
  /** Draw call ids from a pool of 3 so that they repeat across the conversation. @default true */
  reuseIds?: boolean;
  /** Allow results of 20K–31K characters. @default true */
  huge?: boolean;
}

type Output = { kind: 'short' | 'cjk' | 'json' | 'huge' | 'lines'; size: number };

const outputArb = (huge: boolean): fc.Arbitrary<Output> =>
  fc.record({
    kind: huge
      ? fc.constantFrom<Output['kind']>('short', 'short', 'cjk', 'json', 'lines', 'lines', 'huge')
      : fc.constantFrom<Output['kind']>('short', 'cjk', 'json', 'lines'),
    size: fc.integer({ min: 1, max: 40 }),
  });

function renderOutput(o: Output, seed: number): string | JsonValue {
  switch (o.kind) {
    case 'short':
      return `result ${seed}: ok`;
    case 'cjk':
      return '结果：文件已更新。'.repeat(o.size);
    case 'json':
      return { ok: true, items: Array.from({ length: o.size }, (_, i) => `item-${seed}-${i}`) };
    case 'lines':
      return Array.from({ length: o.size * 20 }, (_, i) => `line ${i} of output ${seed}`).join('\n');
    case 'huge':
      return `${'0123456789abcdef '.repeat(400 + o.size * 5)}\n`.repeat(3); // 20–31K chars
  }
}

interface CallSpec {
  tool: number;
  path: number;
  output: Output;
  error: boolean;
  result: 'plain' | 'multi' | 'denied';
}

/** `framework`: reasoning metadata riding in the parts' `extra`, as a framework's provider options carry it. */
type Reasoning = 'none' | 'plain' | 'anthropic' | 'responses' | 'gemini' | 'framework';

interface StepSpec {
  text: boolean;
  calls: CallSpec[];
  usage: number;
  reasoning: Reasoning;
  reasoningOnly: boolean;
  foreignIds: boolean;
  /** A hosted tool's item (an opaque pass-through part) before the step's calls. */
  hosted: boolean;
}

interface TurnSpec {
  text: number;
  cjk: boolean;
  image: boolean;
  /** An opaque file reference in the user message. */
  file: boolean;
  pinned: boolean;
  steps: StepSpec[];
  reply: boolean;
}

const callArb = (huge: boolean): fc.Arbitrary<CallSpec> =>
  fc.record({
    tool: fc.integer({ min: 0, max: TOOL_NAMES.length - 1 }),
    path: fc.integer({ min: 0, max: PATHS.length - 1 }),
    output: outputArb(huge),
    error: fc.boolean(),
    result: fc.constantFrom<CallSpec['result']>('plain', 'plain', 'plain', 'multi', 'denied'),
  });

const stepArb = (huge: boolean): fc.Arbitrary<StepSpec> =>
  fc.record({
    text: fc.boolean(),
    calls: fc.array(callArb(huge), { minLength: 0, maxLength: 3 }),
    usage: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 50, max: 40_000 })),
    reasoning: fc.constantFrom<Reasoning>(
      'none',
      'none',
      'plain',
      'anthropic',
      'responses',
      'gemini',
      'framework',
    ),
    reasoningOnly: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    foreignIds: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    hosted: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  });

const turnArb = (huge: boolean): fc.Arbitrary<TurnSpec> =>
  fc.record({
    text: fc.integer({ min: 0, max: LATIN.length - 1 }),
    cjk: fc.boolean(),
    image: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    file: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    pinned: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    steps: fc.array(stepArb(huge), { minLength: 0, maxLength: 3 }),
    reply: fc.boolean(),
  });

export interface History {
  messages: Message[];
  /** Whether call ids repeat. */
  reusedIds: boolean;
}

/** Builds the message list from a spec; ids `m0…`, call ids from a pool or unique. */
function build(system: boolean, turns: TurnSpec[], reuseIds: boolean, rich: boolean): Message[] {
  const out: Message[] = [];
  let n = 0;
  let callSeq = 0;
  const id = () => `m${n++}`;
  if (system)
    out.push({ id: id(), role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] });
  turns.forEach((t, ti) => {
    const text = t.cjk ? CJK[t.text % CJK.length]! : LATIN[t.text]!;
    const parts: Part[] = [{ type: 'text', text: `${text} (${ti})` }];
    if (t.image) parts.push({ type: 'image', url: `https://example.com/${ti}.png` });
    if (t.file && rich)
      parts.push({
        type: 'opaque',
        source: 'responses',
        kind: 'input_file',
        value: { type: 'input_file', file_id: `file-${ti}` },
        provider: { responses: { inMessage: true } },
      });
    const u: Message = { id: id(), role: 'user', parts };
    if (t.pinned) u.meta = { pinned: true };
    out.push(u);
    for (const s of t.steps) {
      const step = n;
      const aParts: Part[] = [];
      const thought = reasoningPart(!rich && s.reasoning === 'framework' ? 'plain' : s.reasoning, step);
      if (thought) aParts.push(thought);
      if (s.reasoningOnly && thought) {
        out.push({ id: id(), role: 'assistant', parts: aParts });
        continue;
      }
      if (s.hosted && rich)
        aParts.push({
          type: 'opaque',
          source: 'responses',
          kind: 'web_search_call',
          value: { type: 'web_search_call', id: `ws_${step}`, status: 'completed' },
        });
      if (s.text || s.calls.length === 0) aParts.push({ type: 'text', text: `Working on step ${step}.` });
      const calls: ToolCallPart[] = s.calls.map((c, ci) => {
        const name = TOOL_NAMES[c.tool]!;
        const seq = reuseIds ? ci : callSeq++;
        const callId = s.foreignIds
          ? ci % 2 === 0
            ? `functions.${name}:${seq}`
            : `kimi!7f3a${seq}!${ci}`
          : `call_${seq}`;
        const call: ToolCallPart = {
          type: 'tool-call',
          id: callId,
          name,
          args: { path: PATHS[c.path]!, pattern: 'foo' },
        };
        if (s.reasoning === 'responses')
          call.provider = {
            responses: {
              item: { type: 'function_call', id: `fc_${step}_${ci}`, status: 'completed' },
              reasoning: `rs_${step}`,
            },
          };
        if (s.reasoning === 'gemini' && ci === 0)
          call.provider = { gemini: { part: { thoughtSignature: `CiQB${step}sig` } } };
        if (s.reasoning === 'framework' && ci === 0 && rich)
          call.extra = { providerOptions: { google: { thoughtSignature: `CiQB${step}fw` } } };
        return call;
      });
      if (s.reasoning === 'gemini' && calls.length === 0) {
        const last = aParts.at(-1)!;
        aParts[aParts.length - 1] = {
          ...last,
          provider: { gemini: { part: { thoughtSignature: `EpYB${step}` } } },
        } as Part;
      }
      aParts.push(...calls);
      // A call that needed approval and was denied: the request rides with the call (AI SDK shape).
      if (rich)
        s.calls.forEach((c, ci) => {
          if (c.result === 'denied')
            aParts.push({
              type: 'tool-approval',
              callId: calls[ci]!.id,
              approvalId: `ap_${step}_${ci}`,
              phase: 'request',
            });
        });
      const a: Message = { id: id(), role: 'assistant', parts: aParts };
      if (s.usage > 0) a.usage = { inputTokens: s.usage, outputTokens: 20 };
      out.push(a);
      s.calls.forEach((c, ci) => {
        const call = calls[ci]!;
        const output = renderOutput(c.output, n);
        const part: ToolResultPart = { type: 'tool-result', callId: call.id, name: call.name, output };
        if (c.error && c.output.kind === 'short') part.isError = true;
        if (!rich) {
          // plain results only
        } else if (c.result === 'denied') {
          part.output = 'Tool execution denied by the user.';
          part.denied = true;
        } else if (c.result === 'multi' && typeof output === 'string') {
          // Text and a screenshot: `output` is the text of the content parts.
          part.content = [
            { type: 'text', text: output },
            { type: 'image', data: 'iVBORw0KGgo'.repeat(200), mediaType: 'image/png' },
          ];
        }
        const approval: Part[] =
          rich && c.result === 'denied'
            ? [
                {
                  type: 'tool-approval',
                  callId: call.id,
                  approvalId: `ap_${step}_${ci}`,
                  phase: 'response',
                  approved: false,
                  reason: 'not now',
                },
              ]
            : [];
        out.push({ id: id(), role: 'tool', parts: [...approval, part], meta: { kind: 'tool_result' } });
      });
    }
    if (t.reply)
      out.push({ id: id(), role: 'assistant', parts: [{ type: 'text', text: `Done with turn ${ti}.` }] });
  });
  return out;
}

function reasoningPart(kind: Reasoning, step: number): Part | undefined {
  const text = `Thinking about step ${step}: read the file, then run the tests.`;
  switch (kind) {
    case 'none':
      return undefined;
    case 'plain':
      return { type: 'reasoning', text };
    case 'anthropic':
      return { type: 'reasoning', text, signature: `EqQBCkYIBhgC${step}` };
    case 'responses':
      return {
        type: 'reasoning',
        text,
        provider: {
          responses: {
            item: {
              type: 'reasoning',
              id: `rs_${step}`,
              summary: [{ type: 'summary_text', text }],
              encrypted_content: `gAAAAABo${step}${'x'.repeat(40)}==`,
            },
          },
        },
      };
    case 'gemini':
      return { type: 'reasoning', text, provider: { gemini: { part: { thought: true } } } };
    case 'framework':
      return {
        type: 'reasoning',
        text,
        extra: {
          providerOptions: {
            openai: { itemId: `rs_${step}`, reasoningEncryptedContent: `gAAAAfw${step}==` },
          },
        },
      };
  }
}

/** A valid history with 1…`maxTurns` turns. */
export function historyArb(options: HistoryOptions = {}): fc.Arbitrary<History> {
  const huge = options.huge ?? true;
  return fc
    .record({
      system: fc.boolean(),
      turns: fc.array(turnArb(huge), { minLength: 1, maxLength: options.maxTurns ?? 8 }),
      reuse: options.reuseIds === false ? fc.constant(false) : fc.boolean(),
    })
    .map(({ system, turns, reuse }) => ({
      messages:
        options.frameworkData === false
          ? build(system, turns, reuse, false)
          : build(system, turns, reuse, true).map(marked),
      reusedIds: reuse,
    }));
}

/**
 * The opaque metadata every generated message and part carries (what a framework would put there),
 * derived from the content so that two parts that say the same carry the same (see `extraMark`).
 */
export function extraMark(content: unknown): Extra {
  return { mark: hashText(JSON.stringify(content)), cache_control: { type: 'ephemeral' } };
}

/** What a part says without the slots that ride along: the key of `extraMark`. */
export function partContent(p: Part): unknown {
  const { extra: _, provider: __, ...rest } = p;
  return rest;
}

function marked(m: Message): Message {
  return {
    ...m,
    parts: m.parts.map((p) => ({ ...p, extra: { ...p.extra, ...extraMark(partContent(p)) } }) as Part),
    extra: { providerOptions: { app: { origin: m.id } } },
  };
}

/** Deep-freezes a history so that any mutation by a stage throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
