/**
 * A call's prompt-cache line, from the usage the upstream reported: the input tokens it read from its
 * cache and wrote to it beside those it billed in full. Empty when the provider reported neither.
 */
import type { Usage } from '../core/messages/types.ts';
import { fmt } from './html.ts';

/** `12,304 cached (96%) · 512 written` — or '' when the usage says nothing of the cache. */
export function cacheLine(usage: Usage | undefined): string {
  if (!usage || (usage.cacheReadTokens === undefined && usage.cacheWriteTokens === undefined)) return '';
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const input = usage.inputTokens + read + written;
  const share = input > 0 ? ` (${Math.round((read / input) * 100)}%)` : '';
  return `${fmt(read)} cached${share}${usage.cacheWriteTokens !== undefined ? ` · ${fmt(written)} written` : ''}`;
}

/** ` (2 tool rounds included)` after a call's usage when the proxy answered tool rounds first; else ''. */
export function roundsNote(toolRounds: number | undefined): string {
  if (!toolRounds || toolRounds < 1) return '';
  return ` (${fmt(toolRounds)} tool round${toolRounds === 1 ? '' : 's'} included)`;
}
