/**
 * Provider error classification for overflow recovery: 000 §1.10 markers, 002 §4.10 rules, and a
 * `CtxError('context_overflow')`. Also 000's "message format error" (broken tool pairing → clear the
 * history) and a sanitiser for the `Error: …` message 002 appends when it gives up.
 */
import { isCtxError } from '../../errors.ts';

/** 000 §1.10, lower-cased. */
export const COWAGENT_OVERFLOW_MARKERS = [
  '[context_overflow]',
  'context length exceeded',
  'maximum context length',
  'prompt is too long',
  'context overflow',
  'context window',
  'too large',
  'exceeds model context',
  'request_too_large',
  'request exceeds the maximum size',
] as const;

/** 002 §4.10, lower-cased. */
export const KOSMOKRATOR_OVERFLOW_MARKERS = [
  'max length',
  'max tokens',
  'context length',
  'context_length_exceeded',
  'context window',
  'too many tokens',
  'too long',
  'token limit',
  'input is too long',
  'request too large',
  'prompt is too long',
  'reduced context',
  'input_length_exceeded',
] as const;

/** Other providers' wordings (docs/proxy.md), lower-cased; the two lists above are the seeds'. */
export const PROVIDER_OVERFLOW_MARKERS = [
  'exceed context limit',
  'exceeds the maximum number of tokens',
  'exceeds the available context size',
  'exceed_context_size_error',
  'configured context size',
  "longer than the model's context length",
  'exceeded max context length',
  'maximum context length',
] as const;

/** The text a classifier looks at: a string, or an error's message, code, status and cause. */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; status?: unknown; type?: unknown };
    const extra = [e.code, e.status, e.type].filter((x) => x !== undefined).map(String);
    const cause = e.cause !== undefined && e.cause !== error ? errorText(e.cause) : '';
    return [e.message, ...extra, cause].filter((s) => s !== '').join(' ');
  }
  if (error && typeof error === 'object') {
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error ?? '');
}

/** True when the provider said the request does not fit the model's context. */
export function isContextOverflowError(error: unknown): boolean {
  if (isCtxError(error, 'context_overflow')) return true;
  const text = errorText(error).toLowerCase();
  if (text === '') return false;
  if (COWAGENT_OVERFLOW_MARKERS.some((m) => text.includes(m))) return true;
  if (KOSMOKRATOR_OVERFLOW_MARKERS.some((m) => text.includes(m))) return true;
  if (PROVIDER_OVERFLOW_MARKERS.some((m) => text.includes(m))) return true;
  if (text.includes('content filter') && text.includes('length')) return true;
  return /\b(400|413)\b/.test(text) && /token|context|length|input|request/.test(text);
}

/** 000: a 400 / invalid-request error about tool pairing (history is cleared, no trim). */
export function isMessageFormatError(error: unknown): boolean {
  const text = errorText(error).toLowerCase();
  if (!/\b400\b/.test(text) && !text.includes('invalid_request') && !text.includes('invalid request'))
    return false;
  return /tool_use|tool_result|tool_call|tool call|tool result|tool_use_id|function call|must be followed by/.test(
    text,
  );
}

/** Strips paths under home directories, stack traces, API keys and bearer tokens (002 `ErrorSanitizer` in spirit). */
export function sanitizeErrorMessage(message: string): string {
  return message
    .replace(/\/(Users|home)\/[^/\s]+/g, '/***')
    .replace(/\n(#\d+\s|\s*at\s).*$/gm, '')
    .replace(/\nStack trace:[\s\S]*$/, '')
    .replace(/\bsk-[A-Za-z0-9_-]{8,}\b/g, '[REDACTED_KEY]')
    .replace(/\b(bearer\s+)[\w.-]+/gi, '$1[REDACTED]')
    .trim();
}
