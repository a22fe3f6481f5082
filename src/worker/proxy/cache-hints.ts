/**
 * The proxy's prompt-cache hints, where the client set none (docs/cache.md):
 * - OpenAI (Chat Completions, Responses): `prompt_cache_key`, one per session, so that the provider
 *   routes the session's calls to the machines that hold its prefix;
 * - Anthropic: `cache_control` breakpoints — `toAnthropic` marks the summary, the end of the previous
 *   send and the last message, and the end of the system prompt the proxy composes is marked here.
 * A client that set its own (any `cache_control` in its system, tools or messages; its own
 * `prompt_cache_key`) has them forwarded untouched and gets none of ctxkit's.
 */
import { hashText, type JsonValue } from '../../core/index.ts';
import type { ProviderId } from './protocol.ts';

/** Whether the client's body holds a `cache_control` anywhere in its system, tools or messages. */
export function clientCacheControl(body: Record<string, unknown>): boolean {
  return ['system', 'tools', 'messages'].some((k) => holdsCacheControl(body[k], 0));
}

/** Depth-bounded search (a request is validated JSON; blocks nest a few levels). */
function holdsCacheControl(v: unknown, depth: number): boolean {
  if (depth > 6 || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => holdsCacheControl(x, depth + 1));
  if ('cache_control' in v) return true;
  return Object.values(v).some((x) => holdsCacheControl(x, depth + 1));
}

type Block = Record<string, JsonValue>;

/** The system prompt with a breakpoint on its last text block (as blocks: a string becomes one). */
export function systemWithBreakpoint(system: string | Block[]): Block[] {
  const blocks: Block[] = typeof system === 'string' ? [{ type: 'text', text: system }] : [...system];
  for (let i = blocks.length - 1; i >= 0; i--)
    if (blocks[i]!.type === 'text' && blocks[i]!.text !== '') {
      blocks[i] = { ...blocks[i]!, cache_control: { type: 'ephemeral' } };
      break;
    }
  return blocks;
}

/** The session's `prompt_cache_key`: a digest of tenant and session (neither is sent as such). */
export function promptCacheKey(tenant: string, session: string): string {
  return `ctxkit-${hashText(`${tenant}\n${session}`).slice(0, 16)}`;
}

/** The body to forward with the session's `prompt_cache_key` when the provider takes one and the client set none. */
export function withPromptCacheKey(
  provider: ProviderId,
  body: Record<string, unknown>,
  key: string | undefined,
): Record<string, unknown> {
  if (provider !== 'openai' || key === undefined || body.prompt_cache_key !== undefined) return body;
  return { ...body, prompt_cache_key: key };
}
