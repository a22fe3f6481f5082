import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { createChars4Counter, type Message } from '../../src/core/index.ts';
import {
  ctxkitMiddleware,
  fromLangChainMessages,
  toLangChainMessages,
} from '../../src/frameworks/langchain/index.ts';

/** 40,000 characters of base64: 10,000 tokens if it were counted as text (chars/4). */
const PNG = 'iVBORw0KGgo'.padEnd(40_000, 'A');

const call = () =>
  new AIMessage({
    id: 'a1',
    content: '',
    tool_calls: [{ id: 'c1', name: 'shot', args: {}, type: 'tool_call' }],
  });
const shot = () =>
  new ToolMessage({
    id: 't1',
    tool_call_id: 'c1',
    content: [
      { type: 'text', text: 'the page' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'file', mimeType: 'application/pdf', url: 'https://x.test/page.pdf' },
    ],
  });

/** Content, ids and metadata of LangChain messages, for comparing them. */
const lc = (messages: readonly BaseMessage[]) =>
  messages.map((m) => JSON.stringify([m.type, m.id, m.content, m.response_metadata, m.additional_kwargs]));

describe('fromLangChainMessages', () => {
  it('reads a multi-part ToolMessage as text, image and file parts', () => {
    const [, tool] = fromLangChainMessages([call(), shot()]);
    const result = tool!.parts[0]!;
    expect(result.type === 'tool-result' && result.output).toBe('the page');
    expect(result.type === 'tool-result' && result.content?.map((c) => c.type)).toEqual([
      'text',
      'image',
      'opaque',
    ]);
  });

  it('counts a ToolMessage with a base64 image as an image, not as 10,000 tokens of text', () => {
    const [, tool] = fromLangChainMessages([call(), shot()]);
    // chars4 charges an image 4,800 characters (1,200 tokens); the file is counted by its JSON.
    const tokens = createChars4Counter().countMessage(tool!);
    expect(tokens).toBeGreaterThan(1_200);
    expect(tokens).toBeLessThan(1_500);
  });

  it('gives back the same blocks when the result is handed back rebuilt', () => {
    const history = [call(), shot()];
    const back = toLangChainMessages(structuredClone(fromLangChainMessages(history)));
    expect(lc(back)).toEqual(lc(history));
  });
});

describe('toLangChainMessages', () => {
  it('writes no stand-in text for approvals and other dialects’ parts, and keeps them for the way back', () => {
    const messages: Message[] = [
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'tool-call', id: 'c1', name: 'rm', args: {} },
          { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'request' },
          {
            type: 'opaque',
            source: 'responses',
            kind: 'web_search_call',
            value: { type: 'web_search_call' },
          },
        ],
      },
      {
        id: 't1',
        role: 'tool',
        parts: [
          { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'response', approved: false },
          { type: 'tool-result', callId: 'c1', output: 'denied by the user', denied: true },
        ],
      },
    ];
    const out = toLangChainMessages(messages);
    const sent = JSON.stringify(out.map((m) => m.content));
    expect(sent).not.toMatch(/approval|approved|denied\]|web_search_call/);
    expect(fromLangChainMessages(out).map((m) => m.parts.map((p) => p.type))).toEqual([
      ['tool-call', 'tool-approval', 'opaque'],
      ['tool-approval', 'tool-result'],
    ]);
  });
});

describe('ctxkitMiddleware archiving', () => {
  /**
   * 21 tool steps between the warning and compaction levels of an 8K window, counted in characters / 4
   * (archiving, no summary); step 1 failed, step 2 answered nothing. Each output is under `default`'s
   * arrival limit at 8K (1.5 KB), which would otherwise cut it before it is first sent; the calibrated
   * counter's p95 margin makes a compaction due below the warning level at this window, so the test
   * counts in characters (no margin).
   */
  function history(): BaseMessage[] {
    const out: BaseMessage[] = [new HumanMessage({ id: 'u', content: 'Read the parts.' })];
    for (let i = 0; i < 21; i++) {
      out.push(
        new AIMessage({
          id: `a${i}`,
          content: '',
          tool_calls: [{ id: `c${i}`, name: 'read', args: { part: i }, type: 'tool_call' }],
        }),
      );
      out.push(
        new ToolMessage({
          id: `t${i}`,
          tool_call_id: `c${i}`,
          content:
            i === 2 ? '' : i === 1 ? `permission denied: part ${i}` : `part ${i}: ${'word '.repeat(280)}`,
          status: i === 1 ? 'error' : 'success',
          artifact: { part: i },
        }),
      );
    }
    return out;
  }

  it('sends an archived result with its ToolMessage status and leaves an empty result as it was', async () => {
    const sent: BaseMessage[][] = [];
    const mw = ctxkitMiddleware({ contextWindow: 8192, counter: createChars4Counter() });
    const h = history();
    await mw.wrapModelCall!(
      { messages: h, systemPrompt: '', tools: [], state: {}, runtime: {} } as never,
      async (request: { messages: BaseMessage[] }) => {
        sent.push(request.messages);
        return new AIMessage('ok');
      },
    );
    const tools = sent[0]!.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    const archived = tools.filter((t) => String(t.content).includes('archived'));
    expect(archived.length).toBeGreaterThan(0);
    // Every result still reaches the model with the status it had (the failed read is still a failure).
    for (const t of tools) {
      const original = h.find(
        (m) => ToolMessage.isInstance(m) && m.tool_call_id === t.tool_call_id,
      ) as ToolMessage;
      expect([t.tool_call_id, t.status]).toEqual([original.tool_call_id, original.status]);
    }
    // The empty result is not replaced by a longer stub: the caller's own object is sent.
    expect(tools.find((t) => t.tool_call_id === 'c2')).toBe(h.find((m) => m.id === 't2'));
  });
});
