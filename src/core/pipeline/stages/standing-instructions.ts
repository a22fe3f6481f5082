/**
 * Standing instructions: the sentences of user messages that constrain later work (requirements,
 * prohibitions, preferences, formats — "never touch migrations/", "use pnpm", "answer in French"),
 * found by a deterministic classifier and kept verbatim in a pinned section that the default
 * compaction inserts and never folds. The section is bounded (`maxTokens`); past it the weakest
 * matches go first (a mid-sentence "instead of" / "use X instead", which reports pasted by the user
 * also contain), then the oldest, each with a journal entry.
 */
import { isRequest, messageText } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { TokenCounter } from '../../ports.ts';
import type { JournalEntry } from '../types.ts';
import { journalEntry, textMessage } from './compaction-support.ts';

export const INSTRUCTIONS_KIND = 'standing-instructions';
export const INSTRUCTIONS_PREFIX = '[Standing instructions from the user]\n';

/** Longest sentence taken as an instruction (longer ones are pasted text, not a rule). */
const MAX_SENTENCE_CHARS = 300;

/** Imperative constraint patterns, matched case-insensitively against one sentence. */
const CONSTRAINT_PATTERNS: readonly RegExp[] = [
  /^(?:please\s+|and\s+|also\s+)?(?:never|always|do not|don't|dont|avoid|only|stop)\b/i,
  /\b(?:never|always)\s+(?:use|touch|edit|modify|change|run|write|commit|push|delete|add|call|answer|reply|respond|ask|include|put|keep|mention)\b/i,
  /\b(?:do not|don't|must not|mustn't|should not|shouldn't|may not|cannot|can't)\s+(?:use|touch|edit|modify|change|run|write|commit|push|delete|add|call|install|create|remove|rename|mention|include)\b/i,
  /\b(?:you|we)\s+must\b/i,
  /^must\b/i,
  /\b(?:[Aa]nswer|[Rr]eply|[Rr]espond|[Ww]rite)\s+(?:only\s+)?in\s+[A-Z][a-z]+\b/,
  /\b(?:from now on|going forward|for the rest of (?:this|the) (?:session|conversation)|at all times|every time you)\b/i,
  /\bmake sure (?:to|you|that)\b/i,
  /\bi (?:prefer|want you to|need you to)\b/i,
];

/**
 * Preferences that also match prose stating no rule (reports and logs pasted by the user say "… instead
 * of …"): a sentence matched by these alone is dropped before any other when the section is full.
 */
const WEAK_PATTERNS: readonly RegExp[] = [
  /\buse\s+\S+(?:\s+\S+)?\s+(?:instead|rather than)\b/i,
  /\binstead of\s+\S+/i,
];

/** Whether `s` is an instruction matched only by the weak patterns. */
export function isWeakInstruction(s: string): boolean {
  return !CONSTRAINT_PATTERNS.some((p) => p.test(s));
}

/** Blocks a harness adds to user messages (reminders, command echoes): not the user's words. */
const HARNESS_BLOCK = /<([a-z][\w-]*)>[\s\S]*?<\/\1>/g;

const memo = new WeakMap<Message, readonly string[]>();

/** The constraint sentences of one message, verbatim, in order (memoized per message). */
export function findInstructions(message: Message): readonly string[] {
  // A user's own request only: not a digest of tool output, a summary or a section ctxkit wrote.
  if (!isRequest(message) || message.meta?.isMeta === true) return [];
  const known = memo.get(message);
  if (known) return known;
  const text = messageText(message).replace(HARNESS_BLOCK, ' ');
  const found: string[] = [];
  for (const line of text.split(/\n+/))
    for (const raw of line.split(/(?<=[.!?;])\s+/)) {
      const s = raw.replace(/^[\s>*\-•\d.)]+/, '').trim();
      if (s.length < 8 || s.length > MAX_SENTENCE_CHARS) continue;
      const match = CONSTRAINT_PATTERNS.some((p) => p.test(s)) || WEAK_PATTERNS.some((p) => p.test(s));
      if (match && !found.includes(s)) found.push(s);
    }
  memo.set(message, found);
  return found;
}

/** The instructions a previous section carries (`meta.instructions`), else none. */
export function sectionInstructions(message: Message): string[] {
  const list = message.meta?.instructions;
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : [];
}

export function isInstructionsSection(message: Message): boolean {
  return message.meta?.kind === INSTRUCTIONS_KIND;
}

function sectionText(list: readonly string[]): string {
  return `${INSTRUCTIONS_PREFIX}${list.map((s) => `- ${s}`).join('\n')}`;
}

export interface PinnedSection {
  /** The pinned section message, or `undefined` when there is nothing to pin. */
  message: Message | undefined;
  journal: JournalEntry[];
  kept: string[];
  dropped: string[];
}

/**
 * The pinned section for `previous` instructions plus those of the `folded` messages (oldest
 * first, duplicates once), within `maxTokens`: the weak matches are dropped first, then the oldest,
 * each named in a `truncated` journal entry on the section.
 */
export function pinnedSection(
  id: string,
  stage: string,
  previous: readonly string[],
  folded: readonly Message[],
  maxTokens: number,
  counter: TokenCounter,
): PinnedSection {
  const all: string[] = [...previous];
  const sources = new Map<string, string>();
  for (const m of folded)
    for (const s of findInstructions(m))
      if (!all.includes(s)) {
        all.push(s);
        sources.set(s, m.id);
      }
  const kept = [...all];
  const dropped: string[] = [];
  const size = () => counter.countMessage(textMessage(id, 'user', sectionText(kept), INSTRUCTIONS_KIND));
  // Over the cap: the oldest weak match first, then the oldest of the others.
  while (kept.length > 0 && size() > maxTokens) {
    const weak = kept.findIndex(isWeakInstruction);
    dropped.push(kept.splice(Math.max(weak, 0), 1)[0]!);
  }
  if (kept.length === 0) return { message: undefined, journal: [], kept, dropped };
  const message: Message = {
    ...textMessage(id, 'user', sectionText(kept), INSTRUCTIONS_KIND),
    meta: { kind: INSTRUCTIONS_KIND, pinned: true, instructions: kept },
  };
  const entry = journalEntry(stage, 'inserted', message, counter);
  const fresh = kept.filter((s) => sources.has(s));
  entry.recover = `Standing instructions kept verbatim (a constraint pattern matched): ${kept.length} in force${
    fresh.length > 0 ? `, new from ${[...new Set(fresh.map((s) => sources.get(s)))].join(', ')}` : ''
  }; the section is pinned and never folded.`;
  const journal = [entry];
  for (const s of dropped) {
    const e = journalEntry(stage, 'truncated', message, counter, { tokensAfter: entry.tokensAfter });
    e.recover = `Standing instruction dropped (${isWeakInstruction(s) ? 'a weak match' : 'the oldest'}, section over its ${maxTokens}-token cap): "${s}"${
      sources.has(s) ? ` — stated in message ${sources.get(s)}` : ''
    }.`;
    journal.push(e);
  }
  return { message, journal, kept, dropped };
}
