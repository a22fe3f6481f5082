import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitProcessor, THREAD_STATE_KEY } from '../../src/frameworks/mastra/index.ts';
import {
  calls,
  countingSummarizer,
  HAVE_DATA,
  loadReplay,
  NO_DATA,
  promptViolations,
  type Replay,
  verifiedKeys,
} from './support/replay.ts';

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };
type AgentConfig = ConstructorParameters<typeof Agent>[0];
const THREAD = { thread: 'long', resource: 'user-1' };

/**
 * A process: its own mock model (answering with recorded steps `from`…`from + steps − 1`, then `done`),
 * memory and processor, over the storage the processes share. `passMemory` gives the processor the
 * memory as an option; otherwise it finds it in Mastra's run state.
 */
function process(replay: Replay, storage: InMemoryStore, from: number, steps: number, passMemory = false) {
  const summarizer = countingSummarizer();
  const recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
  const violations: string[] = [];
  const prompts: ModelMessage[][] = [];
  let k = 0;
  const model = new MastraLanguageModelV2Mock({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
      prompts.push(prompt as ModelMessage[]);
      violations.push(
        ...promptViolations(fromModelMessages(prompt as ModelMessage[]), 'anthropic', recorded),
      );
      const step = k < steps ? replay.steps[from + k++] : undefined;
      if (!step)
        return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
      const content = calls(step).map((c) => ({
        type: 'tool-call',
        toolCallId: c.id,
        toolName: c.name,
        input: JSON.stringify(c.args),
      }));
      return { content, finishReason: 'tool-calls', usage, warnings: [] };
    },
  } as ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]);
  const tools = Object.fromEntries(
    replay.tools.map((name) => [
      name,
      createTool({
        id: name,
        description: name,
        inputSchema: z.looseObject({}),
        execute: async (_input, ctx) => replay.outputs.get(ctx?.agent?.toolCallId ?? '') ?? '',
      }),
    ]),
  );
  const memory = new MockMemory({ storage, options: { lastMessages: 10_000 } });
  const agent = new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'You are a coding agent.',
    model: model as unknown as AgentConfig['model'],
    tools,
    memory,
    inputProcessors: [
      ctxkitProcessor({ contextWindow: 32_000, summarizer, ...(passMemory ? { memory } : {}) }),
    ],
  } as AgentConfig);
  return { agent, memory, summarizer, violations, prompts };
}

describe('ctxkitProcessor with Mastra memory', () => {
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
  it.skipIf(!HAVE_DATA)(
    'saves its state in the thread metadata, so a second process on the same storage resumes with 0 summarizer calls',
    async () => {
      const replay = loadReplay(10);
      const storage = new InMemoryStore();
      const history = toModelMessages(replay.history);
      const promptText = replay.prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

      const a = process(replay, storage, 0, 3);
      await a.agent.generate([...history, { role: 'user', content: promptText }], {
        memory: THREAD,
        maxSteps: 10,
      });
      expect(a.summarizer.calls).toBe(1);
      expect(a.violations).toEqual([]);
      const saved = (await a.memory.getThreadById({ threadId: THREAD.thread }))?.metadata;
      expect(saved?.[THREAD_STATE_KEY]).toMatchObject({ version: 1 });

      // A new process (new memory object, agent and processor) on the same storage resumes the thread.
      const b = process(replay, storage, 3, 3, true);
      await b.agent.generate('Go on.', { memory: THREAD, maxSteps: 10 });
      expect(b.prompts.length).toBe(4);
      expect(b.summarizer.calls).toBe(0);
      expect(b.violations).toEqual([]);
      const raw = JSON.stringify(b.prompts[0]).length;
      expect(raw).toBeLessThan(JSON.stringify(history).length / 4);

      // Without the saved state the same stored thread is reduced again from its raw history.
      await a.memory.updateThread({
        id: THREAD.thread,
        metadata: { ...saved, [THREAD_STATE_KEY]: undefined },
      });
      const c = process(replay, storage, 6, 1);
      await c.agent.generate('And one more.', { memory: THREAD, maxSteps: 10 });
      expect(c.summarizer.calls).toBe(1);
      expect(c.violations).toEqual([]);
    },
  );
});

describe('ctxkitProcessor prompts', () => {
  it('takes a prompt holding two equal messages as two messages when Mastra sends both', async () => {
    const p = ctxkitProcessor({ contextWindow: 32_000 });
    const done = { role: 'assistant', content: [{ type: 'text', text: 'done' }] };
    const prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
      done,
      { role: 'user', content: [{ type: 'text', text: 'And one more.' }] },
      { ...done },
    ];
    const out = await p.processLLMRequest({ prompt } as never);
    expect(out?.prompt).toEqual(prompt);
  });
});
