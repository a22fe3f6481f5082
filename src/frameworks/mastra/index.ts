/**
 * `ctxkit/mastra`: ctxkit inside Mastra (`@mastra/core` 1.x, an optional peer). The messages are the AI
 * SDK's (Mastra's prompt is a `LanguageModelV2Prompt`): the `ctxkit/ai-sdk` adapters convert them.
 * See docs/frameworks.md.
 */
export * from './processor.ts';
export * from './recall-tools.ts';
