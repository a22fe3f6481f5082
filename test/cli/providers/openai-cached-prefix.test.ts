/**
 * `createOpenAISummarizer({ prefix: 'cached' })` against a local Chat Completions server: a
 * compaction's summary is asked on the agent's last send (its messages, tool schemas with tool choice
 * `none`, the agent's model and cache key), so the provider serves that send from its prompt cache.
 */
import { describe, expect, it } from 'vitest';
import {
  assistant,
  isCtxError,
  type Message,
  type Summarizer,
  type ToolDefinition,
  toOpenAI,
  user,
} from '../../../src/core/index.ts';
import { KOSMOKRATOR_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/kosmokrator.ts';
import { createOpenAISummarizer, type OpenAISummarizerOptions } from '../../../src/providers/index.ts';
import { clockedContext, codingSession, sendPoints } from '../../core/pipeline/prompt-cache-helpers.ts';
import { useFakeOpenAIServer } from '../../support/fake-openai-server.ts';

const SYSTEM = 'You are a coding agent.';
const CHAT_TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'Bash',
      description: 'Run a shell command',
      parameters: { type: 'object', properties: {} },
    },
  },
];
const ANSWER = '{"summary": "## Goal\\nFix the tokenizer bug", "memories": []}';

const server = useFakeOpenAIServer();

function make(options: Partial<OpenAISummarizerOptions> = {}): Summarizer {
  return createOpenAISummarizer({
    baseURL: server.baseURL,
    model: 'agent-model',
    summarizationModel: 'cheap-model',
    timeoutMs: 2000,
    maxRetries: 0,
    ...options,
  });
}

/** Replays `codingSession(40)` at 16K with `summarizer`; each summary call's body and the agent's send before it. */
async function replay(summarizer: Summarizer, tools: ToolDefinition[] = CHAT_TOOLS) {
  server.script(...Array.from({ length: 20 }, () => ({ kind: 'answer' as const, content: ANSWER })));
  const history = codingSession(40);
  const { ctx, clock } = clockedContext({ summarizer, dialect: 'openai' });
  let previous: Message[] = [];
  const calls: Array<{ body: Record<string, unknown>; before: Message[] }> = [];
  for (const i of sendPoints(history)) {
    clock.advance(15_000);
    const seen = server.requests.length;
    const run = await ctx.prepare(history.slice(0, i), { system: SYSTEM, tools });
    for (const r of server.requests.slice(seen)) calls.push({ body: r.body, before: previous });
    expect(run.events.some((e) => e.type === 'compaction-end' && e.error !== undefined)).toBe(false);
    previous = run.send;
  }
  return calls;
}

describe("createOpenAISummarizer with prefix: 'cached'", () => {
  it("asks on the agent's last send, with its tools, its model and its cache key", async () => {
    const summarizer = make({ prefix: 'cached', promptCacheKey: 'session-42' });
    expect(summarizer.prefix).toBe('cached');
    const calls = await replay(summarizer);
    expect(calls.length).toBeGreaterThan(0);
    for (const { body, before } of calls) {
      const sent = toOpenAI(before, { system: SYSTEM });
      const messages = body.messages as Array<{ role: string; content: unknown }>;
      // The prefix the provider cached, byte for byte, then the instruction.
      expect(JSON.stringify(messages.slice(0, sent.length))).toBe(JSON.stringify(sent));
      expect(messages).toHaveLength(sent.length + 1);
      expect(messages.at(-1)!.role).toBe('user');
      expect(String(messages.at(-1)!.content)).toMatch(/^The conversation above is being compacted\./);
      expect(body.tools).toEqual(CHAT_TOOLS);
      expect(body.tool_choice).toBe('none');
      expect(body.model).toBe('agent-model');
      expect(body.prompt_cache_key).toBe('session-42');
    }
  });

  it('wraps neutral tool schemas as functions', async () => {
    const neutral = [{ name: 'Bash', description: 'Run a shell command', parameters: { type: 'object' } }];
    const calls = await replay(make({ prefix: 'cached' }), neutral);
    expect(calls.length).toBeGreaterThan(0);
    for (const { body } of calls) {
      expect(body.tools).toEqual([{ type: 'function', function: neutral[0] }]);
      expect(body).not.toHaveProperty('prompt_cache_key');
    }
  });

  it('asks on a transcript, with the summarization model and no tools, when the option is left out', async () => {
    const summarizer = make();
    expect(summarizer.prefix).toBeUndefined();
    const calls = await replay(summarizer);
    expect(calls.length).toBeGreaterThan(0);
    for (const { body } of calls) {
      expect((body.messages as unknown[])[0]).toEqual({ role: 'system', content: KOSMOKRATOR_SYSTEM_PROMPT });
      expect(body.model).toBe('cheap-model');
      expect(body).not.toHaveProperty('tools');
      expect(body).not.toHaveProperty('tool_choice');
    }
    // A request that carries the last send anyway is still asked on a transcript.
    server.script({ kind: 'answer', content: ANSWER });
    const messages: Message[] = [user('hello', { id: 'u' }), assistant('hi', [], { id: 'a' })];
    server.requests.length = 0;
    await summarizer.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages,
      sent: { messages, upTo: 2, system: SYSTEM, tools: CHAT_TOOLS },
    });
    expect(server.requests[0]!.body.messages[0]).toEqual({
      role: 'system',
      content: KOSMOKRATOR_SYSTEM_PROMPT,
    });
    expect(server.requests[0]!.body).not.toHaveProperty('tools');
  });

  it('rejects a bad prefix or cache key, naming the option', () => {
    const path = (options: Partial<OpenAISummarizerOptions>) => {
      try {
        make(options);
      } catch (error) {
        return isCtxError(error) && error.code === 'invalid_config' ? error.path : 'other error';
      }
      return 'accepted';
    };
    expect(path({ prefix: 'warm' as 'cached' })).toBe('options.prefix');
    expect(path({ promptCacheKey: 'k'.repeat(65) })).toBe('options.promptCacheKey');
    expect(path({ promptCacheKey: 'k'.repeat(64) })).toBe('accepted');
  });
});
