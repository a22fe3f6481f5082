import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/worker/proxy/anthropic-messages.ts';
import { openAIChat } from '../../src/worker/proxy/openai-chat.ts';
import { openAIResponses } from '../../src/worker/proxy/openai-responses.ts';

const tool = {
  type: 'function',
  function: {
    name: 'grep',
    parameters: { type: 'object', properties: { q: { type: 'string', enum: ['a', null] } }, required: ['q'] },
  },
};

describe('requestToolsSchema', () => {
  it('gives each protocol the tools as the body carried them when they are an array', () => {
    const body = JSON.parse(JSON.stringify({ model: 'm', tools: [tool, tool] }));
    expect(openAIChat.parse({ ...body, messages: [{ role: 'user', content: 'hi' }] }).tools).toEqual([
      tool,
      tool,
    ]);
    expect(openAIResponses.parse({ ...body, input: 'hi' }).tools).toEqual([tool, tool]);
    expect(
      anthropicMessages.parse({ ...body, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).tools,
    ).toEqual([tool, tool]);
  });

  it('refuses tools that are not an array, naming the field', () => {
    expect(() =>
      openAIChat.parse({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: { grep: tool } }),
    ).toThrow(expect.objectContaining({ path: 'tools' }));
  });
});
