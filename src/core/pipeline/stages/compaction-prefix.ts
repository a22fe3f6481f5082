/**
 * The agent's last send, for a summarizer that asks for a compaction's summary on the provider's
 * cached prefix (`Summarizer.prefix: 'cached'`, `SummarizeRequest.sent`). The run's input started
 * with `ctx.cache.carried.count` messages the last send carried; their model view is what the
 * provider holds. It is offered only while that prefix is still cached (not idle past the TTL, the
 * same system prompt and tool schemas) and holds every message the summary stands for.
 */

import type { Message } from '../../messages/types.ts';
import { toModelView } from '../../messages/visibility.ts';
import type { SentPrefix } from '../../ports.ts';
import type { StageContext } from '../types.ts';

/** `sent` for a summary of `folded` (messages of the stage's input), or undefined when it does not apply. */
export function sentPrefix(folded: readonly Message[], ctx: StageContext): SentPrefix | undefined {
  const cache = ctx.cache;
  const carried = cache?.carried;
  if (ctx.summarizer.prefix !== 'cached' || !carried || carried.count <= 0) return undefined;
  if (cache!.release === 'cold' || cache!.release === 'overhead') return undefined;
  // The previous send as the provider holds it: this run's input before its stages changed any of it
  // (a dedup marker riding on this compaction stands where the provider has the whole result). The
  // folded messages are found in it by id (stages replace a message one for one, keeping its id).
  const prefix = carried.messages.slice(0, carried.count);
  const at = new Map<string, number>();
  for (let i = 0; i < prefix.length; i++) at.set(prefix[i]!.id, i);
  let last = -1;
  for (const m of folded) {
    const i = at.get(m.id);
    if (i === undefined) return undefined;
    last = Math.max(last, i);
  }
  const sent: SentPrefix = {
    messages: toModelView(prefix),
    upTo: toModelView(prefix.slice(0, last + 1)).length,
  };
  if (ctx.system !== undefined) sent.system = ctx.system;
  if (ctx.tools !== undefined) sent.tools = ctx.tools;
  return sent;
}
