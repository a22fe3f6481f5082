import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createTool } from '@mastra/core/tools';
import { Agent, tool as agentTool } from '@openai/agents';
import { tool as langChainTool } from 'langchain';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { PipelineRun } from '../../src/core/index.ts';
import { ctxkitMiddleware, langChainToolDefinitions } from '../../src/frameworks/langchain/index.ts';
import { ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';
import { agentToolDefinitions, ctxkitInputFilter } from '../../src/frameworks/openai-agents/index.ts';

// A tool whose schema is worth counting: a few described fields.
const shape = {
  pattern: z.string().describe('a regular expression to search the files of the repository for'),
  path: z.string().optional().describe('the folder to search in, relative to the repository root'),
  limit: z.number().int().min(1).max(1000).optional().describe('the most matches to return'),
};

type Json = { name?: string; parameters?: { properties?: object } };

describe('langChainToolDefinitions', () => {
  it('gives the JSON Schema of a zod tool and the function of a tool dict', () => {
    const grep = langChainTool(async () => '', {
      name: 'grep',
      description: 'Search',
      schema: z.object(shape),
    });
    const dict = { type: 'function', function: { name: 'read', parameters: { type: 'object' } } };
    const [a, b] = langChainToolDefinitions([grep, dict]) as Json[];
    expect(a!.name).toBe('grep');
    expect(Object.keys(a!.parameters!.properties!)).toEqual(['pattern', 'path', 'limit']);
    expect(b).toEqual({ name: 'read', parameters: { type: 'object' } });
  });
});

describe('ctxkitMiddleware (LangChain)', () => {
  it('counts the tools of the model call in the estimate when the call has tools', async () => {
    const estimate = async (tools: unknown[]) => {
      let run: PipelineRun | undefined;
      const mw = ctxkitMiddleware({ budget: { contextWindow: 8_000 }, onRun: (r) => (run = r) });
      await mw.wrapModelCall!(
        {
          messages: [new HumanMessage('find the bug')],
          systemPrompt: '',
          tools,
          state: {},
          runtime: {},
        } as never,
        async () => new AIMessage('ok'),
      );
      return run!.estimate.before;
    };
    const grep = langChainTool(async () => '', {
      name: 'grep',
      description: 'Search',
      schema: z.object(shape),
    });
    expect(await estimate([grep])).toBeGreaterThan((await estimate([])) + 40);
  });
});

describe('ctxkitInputFilter (Agents SDK)', () => {
  const grep = agentTool({
    name: 'grep',
    description: 'Search',
    parameters: z.object(shape),
    execute: () => '',
  });

  it('gives the JSON Schema the SDK made of a zod tool', () => {
    const [a] = agentToolDefinitions([grep]) as Json[];
    expect(Object.keys(a!.parameters!.properties!)).toEqual(['pattern', 'path', 'limit']);
  });

  it("counts the agent's tools in the estimate when the agent has tools", async () => {
    const estimate = async (tools: (typeof grep)[]) => {
      let run: PipelineRun | undefined;
      const filter = ctxkitInputFilter({ budget: { contextWindow: 8_000 }, onRun: (r) => (run = r) });
      await filter({
        modelData: { input: [{ role: 'user', content: 'find the bug' }], instructions: 'Be brief.' },
        agent: new Agent({ name: 'a', tools }),
        context: undefined,
      } as never);
      return run!.estimate.before;
    };
    expect(await estimate([grep])).toBeGreaterThan((await estimate([])) + 40);
  });
});

describe('ctxkitProcessor (Mastra)', () => {
  it("counts the step's tools in the estimate when Mastra hands them to processInputStep", async () => {
    const grep = createTool({
      id: 'grep',
      description: 'Search',
      inputSchema: z.object(shape),
      execute: async () => '',
    });
    const estimate = async (tools: Record<string, unknown> | undefined) => {
      let run: PipelineRun | undefined;
      const p = ctxkitProcessor({ contextWindow: 8_000, onRun: (r) => (run = r) });
      const state: Record<string, unknown> = {};
      await p.processInputStep({ tools, state } as never);
      await p.processLLMRequest({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'find the bug' }] }],
        state,
      } as never);
      return run!.estimate.before;
    };
    expect(await estimate({ grep })).toBeGreaterThan((await estimate(undefined)) + 40);
  });
});
