/** `ctxkit/adapters`: OpenAI Chat Completions and Anthropic Messages to and from ctxkit messages. */
export type * from '../messages/types.ts';
export * from './anthropic.ts';
export * from './openai.ts';
