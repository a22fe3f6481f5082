/**
 * One hook object serving many conversations (a module-level agent in a server): each conversation
 * keeps its own context, so switching between them neither restarts a context nor summarizes again.
 */
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createDeterministicSummarizer, type Summarizer } from '../../src/core/index.ts';
import { ctxkitMiddleware as aiSdkMiddleware, ctxkitPrepareStep } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitMiddleware as langChainMiddleware } from '../../src/frameworks/langchain/index.ts';
import { ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';
import { ctxkitInputFilter } from '../../src/frameworks/openai-agents/index.ts';

/** A conversation of `n` user/assistant turns of about 300 tokens each, its words its own. */
function turns(name: string, n: number): Array<{ role: 'user' | 'assistant'; text: string }> {
  const out: Array<{ role: 'user' | 'assistant'; text: string }> = [];
  for (let i = 0; i < n; i++) {
    const filler = `${name} detail ${i} `.repeat(60);
    out.push({ role: 'user', text: `${name} question ${i}: ${filler}` });
    out.push({ role: 'assistant', text: `${name} answer ${i}: ${filler}` });
  }
  return out;
}

type Turn = ReturnType<typeof turns>[number];
const WINDOW = 8192;

/** Each hook, called with a history rebuilt from plain data on every call (as a server loads it). */
const hooks: Record<string, (summarizer: Summarizer) => (history: readonly Turn[]) => unknown> = {
  ctxkitPrepareStep: (summarizer) => {
    const hook = ctxkitPrepareStep({ contextWindow: WINDOW, summarizer });
    return (h) => hook({ messages: h.map((t): ModelMessage => ({ role: t.role, content: t.text })) });
  },
  'ctxkitMiddleware (AI SDK)': (summarizer) => {
    const mw = aiSdkMiddleware({ contextWindow: WINDOW, summarizer });
    return (h) =>
      mw.transformParams!({
        type: 'generate',
        params: { prompt: h.map((t) => ({ role: t.role, content: [{ type: 'text', text: t.text }] })) },
        model: { provider: 'anthropic.messages' },
      } as never);
  },
  ctxkitProcessor: (summarizer) => {
    const p = ctxkitProcessor({ contextWindow: WINDOW, summarizer });
    return (h) =>
      p.processLLMRequest({
        prompt: h.map((t) => ({ role: t.role, content: [{ type: 'text', text: t.text }] })),
        state: {},
      } as never);
  },
  'ctxkitMiddleware (LangChain)': (summarizer) => {
    const mw = langChainMiddleware({ contextWindow: WINDOW, summarizer });
    return (h) =>
      mw.wrapModelCall!(
        {
          messages: h.map(
            (t): BaseMessage => (t.role === 'user' ? new HumanMessage(t.text) : new AIMessage(t.text)),
          ),
          systemPrompt: '',
          tools: [],
          state: {},
          runtime: {},
        } as never,
        async () => new AIMessage('ok'),
      );
  },
  ctxkitInputFilter: (summarizer) => {
    const filter = ctxkitInputFilter({ contextWindow: WINDOW, summarizer });
    return (h) =>
      filter({
        modelData: {
          input: h.map((t) =>
            t.role === 'user'
              ? { role: 'user' as const, content: t.text }
              : {
                  role: 'assistant' as const,
                  status: 'completed' as const,
                  content: [{ type: 'output_text' as const, text: t.text }],
                },
          ),
          instructions: undefined,
        },
        agent: undefined,
        context: undefined,
      } as never);
  },
};

describe.each(Object.keys(hooks))('%s', (name) => {
  it('summarizes once per conversation when one hook serves two conversations in turn', async () => {
    const inner = createDeterministicSummarizer();
    let calls = 0;
    const summarizer: Summarizer = {
      name: 'counting',
      summarize: (request) => {
        calls++;
        return inner.summarize(request);
      },
    };
    const call = hooks[name]!(summarizer);
    const a = turns('alpha', 24);
    const b = turns('beta', 24);
    // Each history is far over the window the first time (one summary each), then grows by one turn.
    for (const n of [40, 42, 44, 46]) {
      await call(a.slice(0, n));
      await call(b.slice(0, n));
    }
    expect(calls).toBe(2);
  });
});
