import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { PipelineRun } from '../../src/core/index.ts';
import { ctxkitPrepareStep, toolDefinitions } from '../../src/frameworks/ai-sdk/index.ts';

const tools = {
  grep: tool({
    description: 'Search files',
    inputSchema: z.object({
      pattern: z.string().describe('a regular expression'),
      path: z.string().optional(),
    }),
  }),
  read: tool({ inputSchema: jsonSchema({ type: 'object', properties: { file: { type: 'string' } } }) }),
};

describe('toolDefinitions', () => {
  it('gives the JSON Schema of zod and jsonSchema() input schemas', async () => {
    const [grep, read] = (await toolDefinitions(tools)) as {
      name: string;
      parameters: { properties: object };
    }[];
    expect(grep!.name).toBe('grep');
    expect(Object.keys(grep!.parameters.properties)).toEqual(['pattern', 'path']);
    expect(read!.parameters).toEqual({ type: 'object', properties: { file: { type: 'string' } } });
  });
});

describe('ctxkitPrepareStep', () => {
  it('counts the tool set in the estimate when tools are given', async () => {
    const estimate = async (withTools: boolean) => {
      let run: PipelineRun | undefined;
      const hook = ctxkitPrepareStep({
        contextWindow: 8_000,
        ...(withTools ? { tools } : {}),
        onRun: (r) => (run = r),
      });
      await hook({ messages: [{ role: 'user', content: 'find the bug' }] });
      return run!.estimate.before;
    };
    expect(await estimate(true)).toBeGreaterThan((await estimate(false)) + 20);
  });

  it('throws a CtxError naming contextWindow when it is not a usable window', () => {
    expect(() => ctxkitPrepareStep({ contextWindow: 12 })).toThrow(/contextWindow/);
  });
});
