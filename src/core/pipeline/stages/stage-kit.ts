/**
 * Small helpers shared by the cheap (non-LLM) stages: option parsing, tool-name lookup, the
 * "never touch" rules (pinned messages, `excludeTools`), token totals and the result builders that
 * keep identity on no-op.
 */
import { parseOptions } from '../../messages/schema.ts';
import type { JsonValue, Message, ToolCallPart, ToolResultPart } from '../../messages/types.ts';
import { estimateContext } from '../../tokens/context.ts';
import { callerRecover, SESSION_LOG } from '../engine/journal.ts';
import type { JournalEntry, PipelineEvent, Stage, StageContext, StageResult } from '../types.ts';

/** Journal location of content that only left the context: the session store keeps every message. */
export const SESSION_LOG_LOCATION = SESSION_LOG;

/** Stage options are validated as every configuration is (`CtxError('invalid_config')` naming `stage.field`). */
export { parseOptions };

/**
 * How to read back a message the run left out, as the pipeline alone can say it (`callerRecover`); a
 * session layer rewrites it for where it keeps the log (`journalFor`).
 */
export function sessionLogRecover(messageId: string): string {
  return callerRecover(messageId);
}

/** Every tool call by id (the last one wins when an id is reused). */
export function indexToolCalls(messages: readonly Message[]): Map<string, ToolCallPart> {
  const calls = new Map<string, ToolCallPart>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') calls.set(p.id, p);
  return calls;
}

/** A result's tool name: its own, else its call's. */
export function resultToolName(
  part: ToolResultPart,
  calls: ReadonlyMap<string, ToolCallPart>,
): string | undefined {
  return part.name ?? calls.get(part.callId)?.name;
}

/** The arguments of the call a result answers, when they are an object. */
export function resultArgs(
  part: ToolResultPart,
  calls: ReadonlyMap<string, ToolCallPart>,
): Readonly<Record<string, JsonValue>> {
  const args = calls.get(part.callId)?.args;
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? args : {};
}

/** True when a stage must leave this result alone: its message is pinned or its tool is excluded. */
export function isUntouchable(
  message: Message,
  part: ToolResultPart,
  calls: ReadonlyMap<string, ToolCallPart>,
  ctx: Pick<StageContext, 'excludeTools'>,
): boolean {
  if (message.meta?.pinned === true) return true;
  const name = resultToolName(part, calls);
  return name !== undefined && ctx.excludeTools.has(name);
}

/** System prompt + tool schemas + messages, by the stage's counter (no usage anchor). */
export function stageTokens(messages: readonly Message[], ctx: StageContext): number {
  const input: Parameters<typeof estimateContext>[0] = { messages };
  if (ctx.system !== undefined) input.system = ctx.system;
  if (ctx.tools !== undefined) input.tools = ctx.tools;
  return estimateContext(input, ctx.counter, { anchor: false }).tokens;
}

/**
 * The context estimate a trigger compares: anchored to the reported usage the run trusts
 * (`ctx.anchor`), else the count; an anchor never lowers the count.
 */
export function anchoredTokens(messages: readonly Message[], ctx: StageContext): number {
  const pure = stageTokens(messages, ctx);
  if (!ctx.anchor) return pure;
  const input: Parameters<typeof estimateContext>[0] = { messages };
  if (ctx.system !== undefined) input.system = ctx.system;
  if (ctx.tools !== undefined) input.tools = ctx.tools;
  const e = estimateContext(input, ctx.counter);
  if (e.anchorId !== ctx.anchor.id) return pure;
  return Math.max(e.tokens, pure);
}

/** A `noop` result that returns the input array itself. */
export function noop(
  stage: string,
  messages: readonly Message[],
  ctx: StageContext,
  detail: string,
): StageResult {
  const tokens = stageTokens(messages, ctx);
  return {
    messages: messages as Message[],
    report: { stage, status: 'noop', tokensBefore: tokens, tokensAfter: tokens, detail },
    journal: [],
    events: [],
  };
}

/** An `applied` result. */
export function applied(
  stage: string,
  input: readonly Message[],
  output: Message[],
  ctx: StageContext,
  journal: JournalEntry[],
  detail: string,
  events: PipelineEvent[] = [],
): StageResult {
  return {
    messages: output,
    report: {
      stage,
      status: 'applied',
      tokensBefore: stageTokens(input, ctx),
      tokensAfter: stageTokens(output, ctx),
      detail,
    },
    journal,
    events,
  };
}

/** A copy of `message` with the tool-result parts at the given indices replaced. */
export function replaceParts(message: Message, replacements: ReadonlyMap<number, ToolResultPart>): Message {
  return { ...message, parts: message.parts.map((p, i) => replacements.get(i) ?? p) };
}

/** A stage whose `run` is synchronous (no summarizer, no blob store). */
export interface SyncStage extends Stage {
  run(messages: readonly Message[], ctx: StageContext): StageResult;
}
