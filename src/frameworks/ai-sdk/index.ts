/**
 * `ctxkit/ai-sdk`: ctxkit inside the Vercel AI SDK (`ai` 7, an optional peer). See docs/frameworks.md.
 */

export * from './dialect.ts';
export * from './digest-bridge.ts';
export * from './from-model-messages.ts';
export * from './json-safe.ts';
export * from './middleware.ts';
export * from './prepare-step.ts';
export * from './recall-tools.ts';
export * from './to-model-messages.ts';
export * from './tool-definitions.ts';
