/**
 * One option shape for every framework entry: the window as `contextWindow` (documented) or
 * `budget.contextWindow`, required, the same validation, and an unknown key a `CtxError` naming it.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MemorySession } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { type ContextRun, isCtxError } from '../../src/core/index.ts';
import { ctxkitMiddleware as aiSdkMiddleware, ctxkitPrepareStep } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitMiddleware as langChainMiddleware } from '../../src/frameworks/langchain/index.ts';
import { ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';
import { ctxkitInputFilter, ctxkitSession } from '../../src/frameworks/openai-agents/index.ts';

/** A user message of about 10,000 tokens: over any 8K window, far under the default 200K. */
const BIG = 'the quick brown fox jumps over the lazy dog '.repeat(1100);

type Options = Record<string, unknown>;
/** Each entry made with `options` and run once on a one-message history; resolves to the run. */
const entries: Record<string, (options: Options) => Promise<ContextRun>> = {
  ctxkitPrepareStep: async (options) => {
    let run: ContextRun | undefined;
    await ctxkitPrepareStep({ ...options, onRun: (r: ContextRun) => (run = r) } as never)({
      messages: [{ role: 'user', content: BIG }],
    });
    return run!;
  },
  'ctxkitMiddleware (AI SDK)': async (options) => {
    let run: ContextRun | undefined;
    const mw = aiSdkMiddleware({ ...options, onRun: (r: ContextRun) => (run = r) } as never);
    await mw.transformParams!({
      type: 'generate',
      params: { prompt: [{ role: 'user', content: [{ type: 'text', text: BIG }] }] },
      model: { provider: 'anthropic.messages' },
    } as never);
    return run!;
  },
  ctxkitProcessor: async (options) => {
    let run: ContextRun | undefined;
    await ctxkitProcessor({ ...options, onRun: (r: ContextRun) => (run = r) } as never).processLLMRequest({
      prompt: [{ role: 'user', content: [{ type: 'text', text: BIG }] }],
      state: {},
    } as never);
    return run!;
  },
  'ctxkitMiddleware (LangChain)': async (options) => {
    let run: ContextRun | undefined;
    await langChainMiddleware({ ...options, onRun: (r: ContextRun) => (run = r) } as never).wrapModelCall!(
      { messages: [new HumanMessage(BIG)], systemPrompt: '', tools: [], state: {}, runtime: {} } as never,
      async () => new AIMessage('ok'),
    );
    return run!;
  },
  ctxkitInputFilter: async (options) => {
    let run: ContextRun | undefined;
    await ctxkitInputFilter({ ...options, onRun: (r: ContextRun) => (run = r) } as never)({
      modelData: { input: [{ role: 'user', content: BIG }], instructions: 'Be brief.' },
      agent: undefined,
      context: undefined,
    } as never);
    return run!;
  },
  ctxkitSession: async (options) => {
    let run: ContextRun | undefined;
    const session = ctxkitSession(new MemorySession(), {
      ...options,
      onRun: (r: ContextRun) => (run = r),
    } as never);
    await session.addItems([{ role: 'user', content: BIG }]);
    await session.getItems();
    return run!;
  },
};

const thrown = async (f: () => Promise<unknown>) => {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
};

describe.each(Object.keys(entries))('%s', (name) => {
  const make = entries[name]!;

  it('runs at the given window when it is given as contextWindow or as budget.contextWindow', async () => {
    for (const options of [{ contextWindow: 8192 }, { budget: { contextWindow: 8192 } }]) {
      const run = await make(options);
      expect(run.estimate.before).toBeGreaterThan(8192);
      expect(run.estimate.level).toBe('block');
    }
    // The same message under a large window is nowhere near a level: the window given is the one used.
    expect((await make({ contextWindow: 200_000 })).estimate.level).toBe('ok');
  });

  it('throws a CtxError naming contextWindow when no window is given', async () => {
    for (const options of [{}, { budget: {} }, { preset: 'default' }]) {
      const e = await thrown(() => make(options));
      expect(isCtxError(e, 'invalid_config')).toBe(true);
      expect((e as Error).message).toMatch(/^contextWindow: .*context window is required/);
    }
  });

  it('throws a CtxError naming the key, with the nearest known one, when an option is unknown', async () => {
    const e = await thrown(() => make({ contextWindw: 32_000 }));
    expect(isCtxError(e, 'invalid_config')).toBe(true);
    expect((e as Error).message).toContain('unknown option "contextWindw"; did you mean "contextWindow"?');
    const far = await thrown(() => make({ contextWindow: 32_000, retries: 3 }));
    expect((far as Error).message).toMatch(/^retries: .*unknown option "retries" \(known: /);
  });

  it('throws when the two spellings disagree or the window is out of range', async () => {
    const both = await thrown(() => make({ contextWindow: 32_000, budget: { contextWindow: 64_000 } }));
    expect((both as Error).message).toContain('disagree');
    // Equal is fine.
    await make({ contextWindow: 8192, budget: { contextWindow: 8192, reserveOutput: 1000 } });
    for (const contextWindow of [12, 1.5, '32000', 20_000_000]) {
      const e = await thrown(() => make({ contextWindow }));
      expect((e as Error).message).toMatch(/^contextWindow: .*from 1024 to 10,000,000/);
    }
  });

  it('throws naming budget when a budget key is unknown', async () => {
    const e = await thrown(() => make({ contextWindow: 32_000, budget: { reserve: 100 } }));
    expect(isCtxError(e, 'invalid_config')).toBe(true);
    expect((e as Error).message).toMatch(/budget/);
  });
});
