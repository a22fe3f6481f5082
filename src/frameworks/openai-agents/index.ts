/**
 * `ctxkit/openai-agents`: ctxkit inside the OpenAI Agents SDK (`@openai/agents` 0.20, an optional
 * peer). See docs/frameworks.md.
 */
export * from './from-agent-items.ts';
export * from './input-filter.ts';
export * from './recall-tools.ts';
export * from './session.ts';
export * from './to-agent-items.ts';
export * from './tools.ts';
