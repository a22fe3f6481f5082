/**
 * `summarizerFrom(fn)`: a `Summarizer` from any text-generating function — an AI SDK `generateText`
 * wrapper, a LangChain `model.invoke`, a fetch to your own endpoint — so summaries come from the model
 * the application already has, with the preset's own prompts (`buildPrompt`) and answer parsers.
 * No SDK is imported: the function is the only effect. Its answer is checked (a non-string or an
 * empty answer is `CtxError('provider_error')`), and a throw from it becomes one too, which the
 * pipeline's stages report as `failed` and answer with their deterministic fallback.
 */
import type { OpenAIMessage } from '../adapters/openai.ts';
import { CtxError } from '../errors.ts';
import type { ToolDefinition } from '../messages/types.ts';
import type {
  SentPrefix,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  SummaryPurpose,
  TokenCounter,
} from '../ports.ts';
import { createChars4Counter } from '../tokens/estimators.ts';
import { CACHED_PREFIX_FAMILY, cachedPrefixInstruction } from './prompts/cached-prefix.ts';
import { buildPrompt } from './prompts/index.ts';
import { stripThinking } from './prompts/parse-answer.ts';
import { planText } from './prompts/plan-text.ts';
import { type PlanAnswer, runPromptPlan } from './prompts/run-prompt-plan.ts';
import type { PromptOptions, PromptPlan } from './prompts/types.ts';

/** One summarisation call, as handed to the function of `summarizerFrom`. */
export interface SummarizerCall {
  /** The prompt family's system prompt. */
  system: string;
  /** The user prompt: the conversation to summarise and the instructions (co-cli's history as a transcript). */
  prompt: string;
  /**
   * The same call as OpenAI Chat Completions messages, system first (co-cli's history as real chat
   * turns; with `prefix: 'cached'`, the agent's last send and then the instruction).
   */
  messages: OpenAIMessage[];
  /**
   * With `prefix: 'cached'`, the agent's tool schemas: send them (with tool choice `none`) so that the
   * call's prefix is the one the provider cached; they also let a provider accept the tool calls in
   * `messages`.
   */
  tools?: readonly ToolDefinition[];
  /**
   * With `prefix: 'cached'`, the agent's last send in ctxkit's form (to convert with the adapter the
   * agent uses, e.g. `toAnthropic`) and the instruction to send after it as one user message.
   */
  sent?: SentPrefix;
  instruction?: string;
  /** Output cap: the family's own (CowAgent 500), else the `maxOutputTokens` option. */
  maxOutputTokens: number;
  /** Set only when the family fixes one (CowAgent 0). */
  temperature?: number;
  /** Aborted when the pipeline run is; pass it on (`abortSignal` in the AI SDK, `signal` in LangChain). */
  signal?: AbortSignal;
  purpose: SummaryPurpose;
  preset: string;
  /** Prompt family: `kosmokrator`, `tiancai-checkpoint`, `co-cli`, `cowagent`, … (logs, model routing). */
  family: string;
}

/**
 * What the function answers: the text, or the text with the model and usage it reports (the AI SDK's
 * `{ text, usage }` fits as it is; a usage it leaves out is estimated).
 */
export type SummarizerAnswer =
  | string
  | {
      text: string;
      model?: string | undefined;
      usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined;
    };

export type SummarizerFn = (call: SummarizerCall) => Promise<SummarizerAnswer> | SummarizerAnswer;

export interface SummarizerFromOptions {
  /** Name in reports and journals. @default 'custom' */
  name?: string;
  /** Output cap when the prompt family sets none. @default 4096 */
  maxOutputTokens?: number;
  /** 002 memories in the summary call or in a second, best-effort call. @default 'same-call' */
  memoryExtraction?: PromptOptions['memoryExtraction'];
  /** Recorded as the result's `model` when the answer names none. */
  model?: string;
  /** Estimates usage the answer does not report. @default chars/4 over code points */
  counter?: TokenCounter;
  /**
   * `cached`: a compaction's summary is asked on the agent's last send (`call.messages` starts with
   * it, `call.tools` has its tool schemas), the prefix the provider holds in its prompt cache, instead
   * of on a transcript. Send the call to the agent's own model. @default transcript
   */
  prefix?: 'cached';
}

export const SUMMARIZER_FROM_DEFAULTS = {
  name: 'custom',
  maxOutputTokens: 4096,
  memoryExtraction: 'same-call',
} as const satisfies SummarizerFromOptions;

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object without a string "text"' : typeof value;
}

function checkOptions(fn: unknown, options: SummarizerFromOptions): void {
  if (typeof fn !== 'function') throw new CtxError('invalid_config', 'must be a function', { path: 'fn' });
  const { name, maxOutputTokens: max, memoryExtraction } = options;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === ''))
    throw new CtxError('invalid_config', 'must be a non-empty string', { path: 'options.name' });
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > 1_000_000))
    throw new CtxError('invalid_config', 'must be a whole number from 1 to 1000000', {
      path: 'options.maxOutputTokens',
    });
  if (
    memoryExtraction !== undefined &&
    memoryExtraction !== 'same-call' &&
    memoryExtraction !== 'second-call'
  )
    throw new CtxError('invalid_config', 'must be same-call or second-call', {
      path: 'options.memoryExtraction',
    });
  if (options.prefix !== undefined && options.prefix !== 'cached')
    throw new CtxError('invalid_config', "must be 'cached' or left out", { path: 'options.prefix' });
}

/** A `Summarizer` that asks `fn` for each summary, with the preset's prompts and parsers. */
export function summarizerFrom(fn: SummarizerFn, options: SummarizerFromOptions = {}): Summarizer {
  checkOptions(fn, options);
  const o = {
    name: options.name ?? SUMMARIZER_FROM_DEFAULTS.name,
    maxOutputTokens: options.maxOutputTokens ?? SUMMARIZER_FROM_DEFAULTS.maxOutputTokens,
    memoryExtraction: options.memoryExtraction ?? SUMMARIZER_FROM_DEFAULTS.memoryExtraction,
    model: options.model,
  };
  const counter = options.counter ?? createChars4Counter({ unit: 'chars' });

  async function ask(plan: PromptPlan, request: SummarizeRequest): Promise<PlanAnswer> {
    const { system, prompt } = planText(plan);
    const call: SummarizerCall = {
      system,
      prompt,
      messages: plan.messages,
      maxOutputTokens: plan.maxTokens ?? o.maxOutputTokens,
      purpose: request.purpose,
      preset: request.preset,
      family: plan.family,
    };
    if (plan.temperature !== undefined) call.temperature = plan.temperature;
    if (request.signal) call.signal = request.signal;
    if (plan.family === CACHED_PREFIX_FAMILY && request.sent) {
      call.sent = request.sent;
      call.instruction = cachedPrefixInstruction(request.sent, request.instructions);
      if (request.sent.tools) call.tools = request.sent.tools;
    }
    let raw: unknown;
    try {
      raw = await fn(call);
    } catch (error) {
      const why = request.signal?.aborted
        ? 'aborted by the caller'
        : error instanceof Error
          ? error.message
          : String(error);
      throw new CtxError('provider_error', `summarizer ${o.name}: ${why}`, { cause: error });
    }
    const answer = typeof raw === 'string' ? { text: raw } : (raw as Exclude<SummarizerAnswer, string>);
    if (
      typeof raw !== 'string' &&
      (typeof raw !== 'object' || raw === null || typeof answer.text !== 'string')
    )
      throw new CtxError(
        'provider_error',
        `summarizer ${o.name}: the function answered ${describeValue(raw)}; expected a string or { text: string }`,
      );
    const text = stripThinking(answer.text);
    if (text.trim() === '') throw new CtxError('provider_error', `summarizer ${o.name}: empty answer`);
    const input = answer.usage?.inputTokens;
    const output = answer.usage?.outputTokens;
    return {
      text,
      model: typeof answer.model === 'string' && answer.model !== '' ? answer.model : o.model,
      usage: {
        inputTokens:
          typeof input === 'number' ? input : counter.countText(system) + counter.countText(prompt),
        outputTokens: typeof output === 'number' ? output : counter.countText(answer.text),
      },
    };
  }

  const summarizer: Summarizer = {
    name: o.name,
    summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      // Only a summarizer that asked for it reads the last send (the pipeline offers it to those).
      const asked = options.prefix === 'cached' ? request : withoutSent(request);
      const plan = buildPrompt(asked, { memoryExtraction: o.memoryExtraction });
      return runPromptPlan(plan, asked, (p) => ask(p, asked));
    },
  };
  return options.prefix === 'cached' ? { ...summarizer, prefix: 'cached' } : summarizer;
}

function withoutSent(request: SummarizeRequest): SummarizeRequest {
  if (request.sent === undefined) return request;
  const { sent: _sent, ...rest } = request;
  return rest;
}
