/**
 * `ctxkit/adapters`: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini
 * contents to and from ctxkit messages.
 */
export type * from '../messages/types.ts';
export * from './anthropic.ts';
export * from './gemini.ts';
export * from './openai.ts';
export type * from './request-types.ts';
export * from './responses.ts';
export * from './responses-out.ts';
