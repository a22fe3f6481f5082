/**
 * Where the default compaction cuts, and how its summary is fitted: the start of the kept part
 * (`keepRecentCut`), the newest step that is never folded (`newestStepStart`), and a summary cut to
 * its leading lines within a token budget (`fitTokens`).
 */
import { startsTurn } from '../../messages/text.ts';
import { segmentTurns } from '../../messages/turns.ts';
import type { Message } from '../../messages/types.ts';
import type { TokenCounter } from '../../ports.ts';
import { safeCuts } from './compaction-support.ts';

/**
 * Start of the kept part: the earliest pairing-safe turn start whose suffix fits `keep` tokens; when
 * none fits (the last turn alone is too big), the earliest safe point before an assistant message
 * inside the turns that fits, else the last such point. Returns `lead` when nothing can be cut or
 * everything fits. `safe`: `safeCuts(messages)`, when the caller has it (these functions take it, so
 * that a compaction pairs the calls of its input once, not at each question).
 */
export function keepRecentCut(
  messages: readonly Message[],
  lead: number,
  keep: number,
  count: (m: Message) => number,
  safe: readonly boolean[] = safeCuts(messages),
): number {
  const n = messages.length;
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + count(messages[i]!);
  if (suffix[lead]! <= keep) return lead; // everything fits: nothing to compact
  const turns = segmentTurns(messages.slice(lead)).map((t) => t.start + lead);
  for (const s of turns) if (s > lead && safe[s] && suffix[s]! <= keep) return s;
  let last = lead;
  for (let i = lead + 1; i < n; i++) {
    if (!safe[i] || messages[i]!.role !== 'assistant') continue;
    if (suffix[i]! <= keep) return i;
    last = i;
  }
  const lastTurn = turns.filter((s) => s > lead && safe[s]).at(-1) ?? lead;
  return Math.max(last, lastTurn);
}

/**
 * Start of the newest step: the last pairing-safe point at or before the last assistant message (its
 * calls and their results come after it), or the end when there is no assistant message after `lead`.
 * Everything from there on stays verbatim.
 */
export function newestStepStart(
  messages: readonly Message[],
  lead: number,
  safe?: readonly boolean[],
): number {
  let last = -1;
  for (let i = messages.length - 1; i >= lead; i--)
    if (messages[i]!.role === 'assistant') {
      last = i;
      break;
    }
  if (last < 0) {
    // No model step yet in the compactable part: keep the trailing run of user messages.
    let i = messages.length;
    while (i > lead && messages[i - 1]!.role === 'user') i--;
    return i;
  }
  const cuts = safe ?? safeCuts(messages);
  let i = last;
  while (i > lead && !cuts[i]) i--;
  return i;
}

/** `[from, from + 1, …, to − 1]`. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/**
 * The kept part's start moved back into the folded range `[lead, cut)`, to the earliest pairing-safe
 * point before an assistant message or at a turn start, while what it takes back (`cost` per index)
 * fits `spare` tokens and what stays folded still weighs more than `floor` (the summary must stay
 * smaller than what it replaces). `cut` itself when nothing fits.
 */
export function widenCut(
  messages: readonly Message[],
  lead: number,
  cut: number,
  spare: number,
  cost: (i: number) => number,
  floor: number,
  safe: readonly boolean[] = safeCuts(messages),
): number {
  if (spare <= 0) return cut;
  let folded = 0;
  for (let i = lead; i < cut; i++) folded += cost(i);
  let best = cut;
  let taken = 0;
  for (let i = cut - 1; i > lead; i--) {
    taken += cost(i);
    folded -= cost(i);
    if (taken > spare || folded <= floor) break;
    if (safe[i] && (messages[i]!.role === 'assistant' || startsTurn(messages[i]!))) best = i;
  }
  return best;
}

/**
 * The text cut to its leading lines so that it counts at most `budget` tokens (summaries put their
 * least important lines last); a single line too long is clipped by characters.
 */
export function fitTokens(text: string, budget: number, counter: TokenCounter): string {
  if (counter.countText(text) <= budget) return text;
  const lines = text.split('\n');
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.countText(lines.slice(0, mid).join('\n')) <= budget) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) {
    // The next line's leading items (up to a `, ` or a space) fill what the whole lines leave.
    const head = lines.slice(0, lo).join('\n');
    const next = lines[lo] ?? '';
    const stops = [...next.matchAll(/,? /g)].map((m) => m.index);
    const upTo = (k: number) => `${head}\n${next.slice(0, stops[k - 1])}`;
    let a = 0;
    let b = stops.length;
    while (a < b) {
      const mid = Math.ceil((a + b) / 2);
      if (counter.countText(upTo(mid)) <= budget) a = mid;
      else b = mid - 1;
    }
    // A section title left with nothing under it is dropped.
    return (a > 0 ? upTo(a) : head).replace(/(\n#{2,3}(?: [^\n]*)?)+$/, '').trim();
  }
  let chars = text.length;
  while (chars > 0 && counter.countText(text.slice(0, chars)) > budget) chars = Math.floor(chars * 0.8);
  return text.slice(0, chars).trim();
}
