/**
 * A context-length error from the upstream, read for what it states. When the provider names its
 * window (and what it measured), the retry is prepared for that window — in ctxkit's own estimate,
 * scaled by how the provider's count of the rejected request compared with ctxkit's — instead of
 * trusting the model table; a session remembers the learned window for its later calls.
 */
import {
  isContextOverflowError,
  isCtxError,
  learnedWindow,
  overflowLimit,
  type Pipeline,
} from '../../core/index.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';
import type { Prepared } from './proxy-session.ts';

/** Number fields some servers put beside the message (llama.cpp). */
const NUMBER_FIELDS = ['n_prompt_tokens', 'n_ctx'] as const;

/** The provider's error text (message, type, code, stated sizes) when a failed answer is a context-length error. */
export function overflowText(status: number, text: string): string | undefined {
  if (status !== 400 && status !== 413) return undefined;
  let detail = text;
  try {
    const e = (JSON.parse(text) as { error?: Record<string, unknown> }).error ?? {};
    const parts = [e.message, e.type, e.code].filter((x) => typeof x === 'string');
    for (const k of NUMBER_FIELDS) if (typeof e[k] === 'number') parts.push(`${k}: ${e[k]}`);
    detail = parts.join(' ') || text;
  } catch {}
  return isContextOverflowError(detail) ? detail : undefined;
}

/**
 * The window the error states, in ctxkit's estimate, when it is smaller than `current` (the window
 * the call was prepared for); `undefined` when the error states none or nothing smaller.
 */
export function statedWindow(overflow: string, sentEstimate: number, current: number): number | undefined {
  const stated = overflowLimit(overflow);
  const window = stated ? learnedWindow(stated, sentEstimate) : undefined;
  return window !== undefined && window < current ? window : undefined;
}

/**
 * The stateless retry for a stated window: the client's history prepared again at that window.
 * `undefined` when the window is too small for the preset (its reserve leaves nothing to send).
 */
export async function prepareAtWindow(
  pipelineAt: (window: number) => Pipeline,
  window: number,
  request: ProxyRequest,
  protocol: Protocol,
  sentEstimate: number,
): Promise<(Prepared & { retry: boolean }) | undefined> {
  let pipeline: Pipeline;
  try {
    pipeline = pipelineAt(window);
  } catch (error) {
    if (isCtxError(error, 'invalid_config')) return undefined;
    throw error;
  }
  const run = await pipeline.prepare({
    messages: request.messages,
    system: request.systemText,
    ...(request.tools ? { tools: request.tools } : {}),
    dialect: protocol.dialect,
    model: request.model,
  });
  return { send: run.send, memory: '', estimate: run.estimate, retry: run.estimate.after < sentEstimate };
}
