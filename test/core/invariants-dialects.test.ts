import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  fromGemini,
  fromOpenAI,
  fromResponses,
  type Message,
  repairMessages,
  toAnthropic,
  toResponses,
} from '../../src/core/index.ts';

const sample = (name: string) =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, `../fixtures/dialects/${name}`), 'utf8'));
const RESPONSES = sample('responses-agent-loop.json').input;
const GEMINI = sample('gemini-3-parallel-calls.json').request;

const rules = (ms: readonly Message[], o?: Parameters<typeof checkInvariants>[1]) =>
  checkInvariants(ms, o).map((v) => `${v.rule}@${v.messageId}`);

describe('the samples', () => {
  it('pass every dialect’s rules as they come', () => {
    for (const dialect of ['openai', 'anthropic', 'responses', 'gemini'] as const) {
      expect(
        rules(fromResponses(RESPONSES), { dialect }).filter((r) => !r.startsWith('system-not-first')),
      ).toEqual([]);
      expect(rules(fromGemini(GEMINI), { dialect })).toEqual([]);
    }
  });
});

describe('Responses: a call travels with its reasoning item', () => {
  const messages = fromResponses(RESPONSES);
  const loop = messages.findIndex(
    (m) => m.parts[0]?.type === 'reasoning' && m.parts[1]?.type === 'tool-call',
  );
  const stripped = messages.map((m, i) =>
    i === loop ? { ...m, parts: m.parts.filter((p) => p.type !== 'reasoning') } : m,
  );

  it('reports a call whose reasoning item was removed, in every dialect and without one', () => {
    expect(rules(stripped)).toEqual([
      `reasoning-separated@${messages[loop]!.id}`,
      `reasoning-separated@${messages[loop]!.id}`,
    ]);
    expect(rules(stripped, { dialect: 'responses' })).toContain(`reasoning-separated@${messages[loop]!.id}`);
  });

  it('repairs it by sending the call without the item id that needs the reasoning, and says so', () => {
    const { messages: fixed, repairs } = repairMessages(stripped, { dialect: 'responses' });
    expect(repairs.map((r) => r.kind)).toEqual([
      'detached-call-from-reasoning',
      'detached-call-from-reasoning',
    ]);
    expect(rules(fixed, { dialect: 'responses' })).toEqual([]);
    const calls = toResponses(fixed).filter((i) => i.type === 'function_call');
    expect(calls[0]).toStrictEqual({
      type: 'function_call',
      status: 'completed',
      arguments: '{"path":"src/parser.ts","start_line":1,"end_line":80}',
      call_id: 'call_Tn2dMjQ8uWv1pX6cB0rK4sLe',
      name: 'read_file',
    });
  });

  it('reports and drops a reasoning item with nothing after it', () => {
    const last = messages.findIndex((m) => m.parts[0]?.type === 'reasoning' && m.parts[1]?.type === 'text');
    const cut = messages.map((m, i) => (i === last ? { ...m, parts: [m.parts[0]!] } : m));
    const id = messages[last]!.id;
    expect(rules(cut, { dialect: 'responses' })).toEqual([`reasoning-only-message@${id}`]);
    const withText: Message[] = cut.map((m, i) =>
      i === last ? { ...m, parts: [{ type: 'text', text: 'x' }, m.parts[0]!] } : m,
    );
    expect(rules(withText, { dialect: 'responses' })).toEqual([`reasoning-not-followed@${id}`]);
    const fixed = repairMessages(withText, { dialect: 'responses' });
    expect(fixed.repairs.map((r) => r.kind)).toEqual(['dropped-unfollowed-reasoning']);
    expect(fixed.messages.find((m) => m.id === id)!.parts).toEqual([{ type: 'text', text: 'x' }]);
    const dropped = repairMessages(cut, { dialect: 'responses' });
    expect(dropped.repairs.map((r) => `${r.kind}@${r.messageId}`)).toEqual([
      `dropped-reasoning-only-message@${id}`,
    ]);
    expect(dropped.messages.some((m) => m.id === id)).toBe(false);
  });

  it('reports encrypted reasoning that a stage changed or dropped from a message it kept', () => {
    const changed = messages.map((m, i) => {
      if (i !== loop) return m;
      const r = m.parts[0]!;
      const item = { ...(r.provider!.responses!.item as object), encrypted_content: 'gAAAAB-tampered' };
      return { ...m, parts: [{ ...r, provider: { responses: { item } } }, ...m.parts.slice(1)] } as Message;
    });
    expect(rules(changed, { before: messages })).toEqual([`reasoning-changed@${messages[loop]!.id}`]);
    // A summary rewrite keeps the encrypted content: accepted.
    const summarised = messages.map((m, i) =>
      i === loop ? ({ ...m, parts: [{ ...m.parts[0]!, text: 'short' }, ...m.parts.slice(1)] } as Message) : m,
    );
    expect(rules(summarised, { before: messages })).toEqual([]);
  });
});

describe('Gemini', () => {
  const messages = fromGemini(GEMINI);

  it('reports a thoughtSignature moved off its part or lost', () => {
    const at = messages.findIndex((m) => m.role === 'assistant' && m.parts.length === 3);
    const m = messages[at]!;
    const [thought, first, second] = m.parts;
    const moved = {
      ...m,
      parts: [thought!, { ...first!, provider: { gemini: {} } }, { ...second!, provider: first!.provider }],
    };
    const after = messages.map((x, i) => (i === at ? (moved as Message) : x));
    expect(rules(after, { before: messages })).toEqual([`reasoning-changed@${m.id}`]);
  });

  it('reports a model turn whose N calls are not answered by N responses, and the repair answers them', () => {
    const at = messages.findIndex((m) => m.role === 'tool');
    const short = messages.map((m, i) => (i === at ? { ...m, parts: m.parts.slice(0, 1) } : m));
    expect(rules(short, { dialect: 'gemini' })).toEqual([
      `call-without-result@${messages[at - 1]!.id}`,
      `response-count-mismatch@${messages[at - 1]!.id}`,
    ]);
    const { messages: fixed, repairs } = repairMessages(short, { dialect: 'gemini' });
    expect(repairs.map((r) => r.kind)).toEqual(['synthesized-result']);
    expect(rules(fixed, { dialect: 'gemini' })).toEqual([]);
  });

  it('puts a user turn before a function call turn that opens the request, and says so', () => {
    const at = messages.findIndex(
      (m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'tool-call'),
    );
    const trimmed = [messages[0]!, ...messages.slice(at)];
    expect(rules(trimmed, { dialect: 'gemini' })).toEqual([`call-turn-position@${messages[at]!.id}`]);
    expect(rules(trimmed, { dialect: 'anthropic' })).toEqual([]);
    const { messages: fixed, repairs } = repairMessages(trimmed, { dialect: 'gemini' });
    expect(repairs.map((r) => `${r.kind}@${r.messageId}`)).toEqual([
      `inserted-user-turn@${messages[at]!.id}`,
    ]);
    expect(fixed[1]).toMatchObject({ role: 'user', meta: { kind: 'repair', repaired: true } });
    expect(rules(fixed, { dialect: 'gemini' })).toEqual([]);
    // An assistant message from elsewhere merges into the model turn before it: no new turn needed.
    const neutral: Message[] = [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Looking.' }] },
      { id: 'a2', role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name: 'ls', args: {} }] },
      { id: 't', role: 'tool', parts: [{ type: 'tool-result', callId: 'c', output: 'a.ts' }] },
    ];
    expect(rules(neutral, { dialect: 'gemini' })).toEqual([]);
  });

  it('reports and drops a model turn holding only thoughts', () => {
    const thoughts = [
      ...messages,
      { id: 'z', role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm' }] } as Message,
    ];
    expect(rules(thoughts, { dialect: 'gemini' })).toEqual(['reasoning-only-message@z']);
    expect(rules(thoughts)).toEqual([]);
    expect(repairMessages(thoughts, { dialect: 'gemini' }).messages.at(-1)!.id).not.toBe('z');
  });
});

describe('Anthropic', () => {
  // Kimi K2 through an OpenAI-compatible endpoint: ids with ! and :.
  const kimi = fromOpenAI([
    { role: 'user', content: 'list the files' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'functions.bash:0', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } },
        { id: 'kimi!0b7c2f!2', type: 'function', function: { name: 'bash', arguments: '{"cmd":"pwd"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'functions.bash:0', content: 'a.ts b.ts' },
    { role: 'tool', tool_call_id: 'kimi!0b7c2f!2', content: '/work' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'functions_bash_0', type: 'function', function: { name: 'bash', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'functions_bash_0', content: 'again' },
  ]);

  it('reports tool_use ids outside ^[a-zA-Z0-9_-]+$', () => {
    expect(rules(kimi, { dialect: 'anthropic' })).toEqual(['invalid-call-id@m1', 'invalid-call-id@m1']);
    expect(rules(kimi, { dialect: 'openai' })).toEqual([]);
  });

  it('renames them in the same pass as reused ids, each call still matched with its result', () => {
    const { messages, repairs } = repairMessages(kimi, { dialect: 'anthropic' });
    expect(repairs.map((r) => `${r.kind}:${r.detail}`)).toEqual([
      // functions_bash_0 is taken by the later call: the renamed one must not collide with it.
      'renamed-call-id:id not accepted by Anthropic renamed to functions_bash_0_2',
      'renamed-call-id:id not accepted by Anthropic renamed to kimi_0b7c2f_2',
    ]);
    expect(rules(messages, { dialect: 'anthropic' })).toEqual([]);
    const request = toAnthropic(messages);
    const ids = JSON.stringify(request).match(/"(tool_use_id|id)":"[^"]+"/g);
    expect(ids).toEqual([
      '"id":"functions_bash_0_2"',
      '"id":"kimi_0b7c2f_2"',
      '"tool_use_id":"functions_bash_0_2"',
      '"tool_use_id":"kimi_0b7c2f_2"',
      '"id":"functions_bash_0"',
      '"tool_use_id":"functions_bash_0"',
    ]);
  });

  it('reports signed thinking of the last turn changed while its tool loop runs', () => {
    const history: Message[] = [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'I should list the files.', signature: 'EqQBCkYIBhgCKkDx' },
          { type: 'tool-call', id: 'toolu_01', name: 'bash', args: { cmd: 'ls' } },
        ],
      },
      { id: 't', role: 'tool', parts: [{ type: 'tool-result', callId: 'toolu_01', output: 'a.ts' }] },
    ];
    const trimmed = history.map((m) =>
      m.id === 'a'
        ? {
            ...m,
            parts: [
              { type: 'reasoning', text: 'I should list…', signature: 'EqQBCkYIBhgCKkDx' },
              m.parts[1]!,
            ],
          }
        : m,
    ) as Message[];
    expect(rules(trimmed, { before: history, dialect: 'anthropic' })).toEqual(['reasoning-changed@a']);
    const dropped = history.map((m) => (m.id === 'a' ? { ...m, parts: [m.parts[1]!] } : m));
    expect(rules(dropped, { before: history })).toEqual(['reasoning-changed@a']);
  });
});

describe('reasoning metadata riding in a framework’s provider options', () => {
  // As the AI SDK carries them: Gemini signatures and Responses encrypted reasoning in `providerOptions`.
  const history: Message[] = [
    { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Fix it.' }] },
    {
      id: 'a',
      role: 'assistant',
      parts: [
        {
          type: 'reasoning',
          text: 'Read the file first.',
          extra: { providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA==' } } },
        },
        {
          type: 'tool-call',
          id: 'c1',
          name: 'read',
          args: { path: 'a.ts' },
          provider: { framework: { providerOptions: { google: { thoughtSignature: 'CiQB' } } } },
        },
      ],
    },
    { id: 't', role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', output: 'x' }] },
  ];

  it('reports encrypted reasoning whose text a stage changed', () => {
    const edited = history.map((m) =>
      m.id === 'a'
        ? { ...m, parts: [{ ...m.parts[0]!, text: 'Read.' } as Message['parts'][0], m.parts[1]!] }
        : m,
    );
    expect(rules(edited, { before: history })).toEqual(['reasoning-changed@a']);
  });

  it('reports a signed call whose signature a stage dropped, and passes the history as it came', () => {
    const stripped = history.map((m) =>
      m.id === 'a'
        ? { ...m, parts: [m.parts[0]!, { ...m.parts[1]!, provider: {} } as Message['parts'][0]] }
        : m,
    );
    expect(rules(stripped, { before: history })).toEqual(['reasoning-changed@a']);
    expect(rules(history, { before: history, dialect: 'gemini' })).toEqual([]);
  });
});
