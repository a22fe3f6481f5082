/**
 * `ctxkit/langchain`: ctxkit inside LangChain.js 1.x (`langchain`, `@langchain/core` and
 * `@langchain/langgraph`, optional peers). See docs/frameworks.md.
 */
export * from './from-langchain.ts';
export * from './middleware.ts';
export * from './recall-tools.ts';
export * from './to-langchain.ts';
export * from './tools.ts';
