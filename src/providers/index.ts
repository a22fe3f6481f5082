/**
 * LLM providers for ctxkit: the OpenAI-compatible summarizer (its prompts and configuration) and embedder.
 * Web-standard only (the `openai` SDK runs on Node, Deno and Workers); not part of the core.
 */
export * from './config.ts';
export * from './openai-embedder.ts';
export * from './openai-summarizer.ts';
export * from './options.ts';
export * from './parse.ts';
export * from './prompts/co-cli.ts';
export * from './prompts/cowagent.ts';
export * from './prompts/index.ts';
export * from './prompts/kosmokrator.ts';
export * from './prompts/tiancai.ts';
export * from './prompts/update.ts';
export * from './retry.ts';
export * from './text.ts';
export * from './with-fallback.ts';
