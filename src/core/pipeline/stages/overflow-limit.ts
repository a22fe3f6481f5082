/**
 * The numbers in a provider's context-length error: the window it enforces, the size it measured, the
 * output it set aside, or how far over the request was. Overflow recovery shrinks to what the provider
 * said rather than to what ctxkit assumed; docs/proxy.md lists every wording with its test.
 */
import { errorText } from './overflow-errors.ts';

/** What a context-length error states; each field only when the provider said it. */
export interface OverflowLimit {
  /** The window the provider enforces, in its own tokens. */
  limit?: number;
  /** The size of the rejected request's input, in the provider's own tokens. */
  measured?: number;
  /** The output tokens the provider counted against the window with the input. */
  output?: number;
  /** How many tokens over the window the request was (Ollama states only this). */
  excess?: number;
}

type Field = keyof OverflowLimit;

interface Wording {
  /** Who says it; docs/proxy.md's table is keyed by this. */
  provider: string;
  pattern: RegExp;
  /** The pattern's capture groups, in order; `null` for a number read but not kept (a total). */
  fields: readonly (Field | null)[];
}

const n = '(\\d[\\d,]*)';

/** Most specific first: the first wording that matches wins. */
export const OVERFLOW_WORDINGS: readonly Wording[] = [
  {
    provider: 'vLLM (input + output)',
    pattern: new RegExp(
      `maximum context length is ${n} tokens\\. However, you requested ${n} tokens \\(${n} in the messages, ${n} in the completion\\)`,
      'i',
    ),
    fields: ['limit', null, 'measured', 'output'],
  },
  {
    provider: 'vLLM (newer)',
    pattern: new RegExp(
      `maximum context length is ${n} tokens and your request has ${n} input tokens \\(${n} >`,
      'i',
    ),
    fields: ['limit', 'measured', 'output'],
  },
  {
    provider: 'OpenRouter',
    pattern: new RegExp(
      `maximum context length is ${n} tokens\\. However, you requested about ${n} tokens \\(${n} of text input(?:, ${n} of tool input)?, ${n} in the output\\)`,
      'i',
    ),
    fields: ['limit', null, 'measured', null, 'output'],
  },
  {
    provider: 'OpenAI Chat Completions, vLLM',
    pattern: new RegExp(
      `maximum context length is ${n} tokens\\. However, (?:your messages resulted in|you requested(?: about)?) ${n} tokens`,
      'i',
    ),
    fields: ['limit', 'measured'],
  },
  {
    provider: 'Anthropic',
    pattern: new RegExp(`prompt is too long: ${n} tokens > ${n} maximum`, 'i'),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'Anthropic (input + max_tokens)',
    pattern: new RegExp(`input length and \`?max_tokens\`? exceed context limit: ${n} \\+ ${n} > ${n}`, 'i'),
    fields: ['measured', 'output', 'limit'],
  },
  {
    provider: 'Gemini',
    pattern: new RegExp(
      `input token count \\(?${n}\\)? exceeds the maximum number of tokens allowed \\(?${n}\\)?`,
      'i',
    ),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'llama.cpp',
    pattern: new RegExp(
      `request \\(${n} tokens\\) exceeds the available context size \\(${n} tokens\\)`,
      'i',
    ),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'llama.cpp (error fields)',
    pattern: new RegExp(`"?n_prompt_tokens"?\\s*[:=]?\\s*${n}[^\\d]+?"?n_ctx"?\\s*[:=]?\\s*${n}`, 'i'),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'Ollama',
    pattern: new RegExp(`exceeded max context length by ${n} tokens`, 'i'),
    fields: ['excess'],
  },
  {
    provider: 'Mistral',
    pattern: new RegExp(
      `prompt contains ${n} tokens.*?too large for model with ${n} maximum context length`,
      'i',
    ),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'Together',
    pattern: new RegExp(
      `input \\(${n} tokens\\) is longer than the model's context length \\(${n} tokens\\)`,
      'i',
    ),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'LM Studio, llama.cpp-based servers',
    pattern: new RegExp(`prompt has ${n} tokens, but the configured context size is ${n} tokens`, 'i'),
    fields: ['measured', 'limit'],
  },
  {
    provider: 'OpenAI-compatible (limit only)',
    pattern: new RegExp(`maximum context length (?:is|of) ${n}`, 'i'),
    fields: ['limit'],
  },
];

/** The numbers a context-length error states, or `undefined` when it states none. */
export function overflowLimit(error: unknown): OverflowLimit | undefined {
  const text = errorText(error);
  for (const w of OVERFLOW_WORDINGS) {
    const m = w.pattern.exec(text);
    if (!m) continue;
    const out: OverflowLimit = {};
    w.fields.forEach((field, i) => {
      const raw = m[i + 1];
      if (field === null || raw === undefined) return;
      const value = Number(raw.replaceAll(',', ''));
      if (Number.isSafeInteger(value) && value > 0) out[field] = value;
    });
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return undefined;
}

/**
 * The window, in the caller's own estimate, that the stated limit allows: the provider's limit scaled
 * by how its measure of the rejected request compares with `sentEstimate` (ctxkit's estimate of the
 * same request). `undefined` when the error states neither a limit nor an excess.
 */
export function learnedWindow(stated: OverflowLimit, sentEstimate: number): number | undefined {
  const ratio =
    stated.measured !== undefined && sentEstimate > 0
      ? Math.min(8, Math.max(0.25, stated.measured / sentEstimate))
      : 1;
  let window: number | undefined;
  if (stated.limit !== undefined) window = stated.limit / ratio;
  else if (stated.excess !== undefined && sentEstimate > 0)
    window = (sentEstimate * ratio - stated.excess) / ratio;
  return window !== undefined && window >= 1 ? Math.floor(window) : undefined;
}
