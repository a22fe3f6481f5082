/**
 * The offline default summarizer: extractive and deterministic (no clock, no randomness, no model).
 * For compaction purposes it builds structured sections from the messages themselves — `## Goal`,
 * `## User Requests`, `## Key Decisions` (sentences that name what they decide), `## Files Changed`,
 * `## Errors`, `## Done`, `## In Progress`, `## Other Tool Calls` (`work-log.ts`), `## Relevant
 * Files`, `## User Constraints`, `## Identifiers` — merging a previous summary (passed, or found among the messages) instead of
 * starting over. It keeps references (`extractReferences`: paths, file names, identifiers, tool-argument
 * keys) ranked by `scoreReferences` (ln(1 + mentions) + 3 × recency + 1 when the agent wrote it + 1 when
 * the task spells it out in code) per length^¼ (`REFERENCE_LENGTH_EXPONENT`): prose
 * sections take at most `PROSE_SHARE` of `maxOutputChars` and the references fill the rest, best first
 * (a reference inside a better-ranked one, `table.py` in `src/table.py`, is left out).
 * `memory-flush` gives 000's rule-based lines; `tool-result` / `tool-batch`
 * give 003's heuristic texts. Memories: user constraints and decisions of the summarised messages.
 */
import { isModelSummary, isRequest, messageText } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import type { ExtractedMemory, SummarizeRequest, SummarizeResult, Summarizer } from '../ports.ts';

import { clip, decisionSentences, harnessNotice, oneLine } from './extract.ts';
import { flushLabels, memoryFlushFallback } from './flush-fallback.ts';
import { sharedNameIndex } from './name-index.ts';
import { rankMessageReferences } from './reference-index.ts';
import { createSentenceMemo, type SentenceMemo } from './sentence-memo.ts';
import { empty, fitToLength, type Key, OLD_TITLES, type Sections, TITLES } from './summary-sections.ts';
import { workLog } from './work-log.ts';

export { MIN_GOAL_CHARS, PROSE_SHARE } from './summary-sections.ts';

import { toolTexts } from './tool-texts.ts';

export const DETERMINISTIC_SUMMARIZER_DEFAULTS = {
  maxOutputChars: 6000,
  maxFiles: 1000,
  maxIdentifiers: 1000,
  maxDecisions: 10,
  maxConstraints: 10,
  maxAccomplished: 30,
  maxRequests: 10,
  maxErrors: 12,
} as const;

export interface DeterministicSummarizerOptions {
  /** Used when the request gives no `maxOutputChars`. @default 6000 */
  maxOutputChars?: number;
  /** @default 1000 */
  maxFiles?: number;
  /** @default 1000 */
  maxIdentifiers?: number;
  /** @default 10 */
  maxDecisions?: number;
  /** @default 10 */
  maxConstraints?: number;
  /** @default 30 */
  maxAccomplished?: number;
  /** Later user requests listed (the first is the goal). @default 10 */
  maxRequests?: number;
  /** Failed tool calls listed, most recent last. @default 12 */
  maxErrors?: number;
}

/** Adds `items` keeping the first occurrence order but moving repeats to the end (most recent last). */
function pushRecent(list: string[], ...items: string[]): void {
  for (const it of items) {
    const i = list.indexOf(it);
    if (i >= 0) list.splice(i, 1);
    list.push(it);
  }
}

/** A summary written by a model (ctxkit's, or a harness's such as Claude Code's): parsed, not read as turns. */
const isSummaryMessage = isModelSummary;

/** Parses `## Title` sections of an earlier summary (ours or anyone's). */
export function parseSummary(text: string): Sections {
  const out = empty();
  const byTitle = new Map<string, Key>([
    ...Object.entries(OLD_TITLES),
    ...Object.entries(TITLES).map(([k, t]): [string, Key] => [t.toLowerCase(), k as Key]),
  ]);
  let current: Key | undefined;
  let sawSection = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const h = /^#{2,3}\s+(.+)$/.exec(line);
    if (h) {
      current = byTitle.get(h[1]!.trim().toLowerCase());
      if (current) sawSection = true;
      continue;
    }
    if (!current || line === '' || line.startsWith('<!--')) continue;
    const item = line.replace(/^[-*]\s+/, '');
    if (current === 'files' || current === 'identifiers')
      out[current].push(...item.split(/,\s+/).filter((x) => x !== ''));
    else out[current].push(item);
  }
  if (!sawSection) {
    const body = oneLine(text.replace(/^\[[^\]]*\]\s*/, ''));
    if (body !== '') out.earlier.push(clip(body, 1500));
  }
  return out;
}

function extract(
  messages: readonly Message[],
  o: Required<DeterministicSummarizerOptions>,
  memo: SentenceMemo,
): { now: Sections; earlier: Sections[]; rank: Map<string, number> } {
  const now = empty();
  const earlier: Sections[] = [];
  const requests: string[] = [];
  // Whether an assistant message follows the last request (what comes after it may be tool output
  // and digests of it, which answer nothing).
  let answered = false;
  for (const m of messages) {
    if (isSummaryMessage(m)) {
      earlier.push(parseSummary(messageText(m)));
      continue;
    }
    const text = messageText(m);
    // A harness's notice in the user's name (an interruption, a tag block, an observation) asks
    // nothing; the first request is the task whatever its form.
    if (isRequest(m) && (requests.length === 0 || !harnessNotice(text))) {
      const request = memo.requestOf(m, text);
      requests.push(request.line);
      pushRecent(now.constraints, ...request.constraints);
      answered = false;
    }
    if (m.role === 'assistant') {
      answered = true;
      pushRecent(now.decisions, ...memo.decisionsOf(m, text));
    }
  }
  // Tool calls: files changed, errors (and whether the same call later succeeded), work recorded as
  // done, calls still pending, and the rest with counts.
  const work = workLog(messages);
  now.changed = work.changed;
  now.errors = work.errors;
  now.done = work.done;
  now.inProgress.push(...work.pending);
  now.accomplished = work.other;
  // The requests between the task (the goal) and the last one (in progress), oldest first.
  now.requests = [...new Set(requests.slice(1, -1))].map((r) => clip(r, 200));
  if (requests[0] !== undefined) now.goal.push(requests[0]);
  const last = requests.at(-1);
  if (last !== undefined) {
    now.inProgress.unshift(`Last request${answered ? '' : ' (unanswered)'}: ${last}`);
  }
  const lastAssistant = [...messages]
    .reverse()
    .find((m) => m.role === 'assistant' && messageText(m).trim() !== '');
  if (lastAssistant)
    for (const s of decisionSentences(messageText(lastAssistant)).concat(
      messageText(lastAssistant)
        .split(/(?<=[.!?])\s+|\n+/)
        .filter((s) => /\b(next|todo|remaining|still need|not yet|will now)\b/i.test(s)),
    ))
      if (/\b(next|todo|remaining|still need|not yet|will now)\b/i.test(s))
        pushRecent(now.inProgress, clip(oneLine(s), 200));
  // References ranked by frequency, recency, authorship and the task, per length (the measure
  // compactions are judged by); earlier summaries are parsed apart.
  const ranked = rankMessageReferences(messages, { skip: isSummaryMessage });
  now.files = ranked
    .filter((r) => r.kind !== 'identifier')
    .map((r) => r.ref)
    .slice(0, o.maxFiles);
  now.identifiers = ranked
    .filter((r) => r.kind === 'identifier')
    .map((r) => r.ref)
    .slice(0, o.maxIdentifiers);
  now.decisions = now.decisions.slice(-o.maxDecisions);
  now.requests = now.requests.slice(-o.maxRequests);
  now.errors = now.errors.slice(-o.maxErrors);
  now.constraints = now.constraints.slice(-o.maxConstraints);
  now.accomplished = now.accomplished.slice(-o.maxAccomplished);
  const rank = new Map<string, number>();
  for (let i = 0; i < ranked.length; i++) rank.set(ranked[i]!.ref, i);
  return { now, earlier, rank };
}

function merge(previous: Sections[], now: Sections, o: Required<DeterministicSummarizerOptions>): Sections {
  const out = empty();
  const all = [...previous, now];
  out.goal = all.find((s) => s.goal.length > 0)?.goal.slice(0, 1) ?? [];
  const cat = (k: Key, cap: number) => {
    const list: string[] = [];
    for (const s of all) pushRecent(list, ...s[k]);
    return list.slice(-cap);
  };
  out.requests = cat('requests', o.maxRequests);
  out.decisions = cat('decisions', o.maxDecisions);
  out.errors = cat('errors', o.maxErrors);
  out.done = cat('done', o.maxAccomplished);
  // A file changed before and again now is listed once, with what the newest summary says of it.
  const byPath = new Map<string, string>();
  for (const s of all) for (const line of s.changed) byPath.set(line.replace(/ \([^()]*\)$/, ''), line);
  out.changed = [...byPath.values()].slice(-o.maxAccomplished);
  out.accomplished = cat('accomplished', o.maxAccomplished);
  out.constraints = cat('constraints', o.maxConstraints);
  out.earlier = cat('earlier', 3);
  out.inProgress = now.inProgress.length > 0 ? now.inProgress : (previous.at(-1)?.inProgress ?? []);
  const goal = out.goal[0];
  if (goal !== undefined)
    out.inProgress = out.inProgress.filter((x) => !/^Last request[^:]*: /.test(x) || !x.endsWith(goal));
  const firstSeen = (k: 'files' | 'identifiers', cap: number) => {
    const list = new Set<string>();
    for (const s of [now, ...[...previous].reverse()]) for (const x of s[k]) list.add(x);
    return [...list].slice(0, cap);
  };
  out.files = firstSeen('files', o.maxFiles);
  out.identifiers = firstSeen('identifiers', o.maxIdentifiers);
  return out;
}

function memoriesOf(now: Sections): ExtractedMemory[] {
  const out: ExtractedMemory[] = [];
  for (const c of now.constraints.slice(-5))
    out.push({ type: 'user', title: clip(c, 80), content: c, class: 'durable' });
  for (const d of now.decisions.slice(-5))
    out.push({ type: 'decision', title: clip(d, 80), content: d, class: 'working', expiresDays: 14 });
  return out;
}

export function createDeterministicSummarizer(options: DeterministicSummarizerOptions = {}): Summarizer {
  const o: Required<DeterministicSummarizerOptions> = { ...DETERMINISTIC_SUMMARIZER_DEFAULTS, ...options };
  // Messages read ahead, with the parts they were read from (a message edited in place is read again;
  // the memo itself checks the text, so this only saves the lookups).
  const readAhead = new WeakMap<Message, Message['parts']>();
  // The names this summarizer lists, indexed once (the next compaction lists most of them again): the
  // process's index, which the compaction stage lists its own names in too.
  const names = sharedNameIndex();
  // What it reads of each message's text (request lines, constraint and decision sentences), once.
  const memo = createSentenceMemo();
  return {
    name: 'deterministic',
    local: true,
    ahead(messages) {
      for (const m of messages) {
        if (readAhead.get(m) === m.parts) continue;
        readAhead.set(m, m.parts);
        if (isSummaryMessage(m)) continue;
        if (isRequest(m)) memo.requestOf(m, messageText(m));
        if (m.role === 'assistant') memo.decisionsOf(m, messageText(m));
      }
    },
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      if (request.signal?.aborted) throw new Error('aborted');
      const max = request.maxOutputChars ?? o.maxOutputChars;
      if (request.purpose === 'tool-result' || request.purpose === 'tool-batch') {
        const text = toolTexts(request);
        return { summary: request.maxOutputChars ? text.slice(0, max) : text, model: 'deterministic' };
      }
      const { now, earlier, rank } = extract(request.messages, o, memo);
      const memories = memoriesOf(now);
      if (request.purpose === 'memory-flush') {
        const result: SummarizeResult = {
          summary: memoryFlushFallback(request.messages, 10, flushLabels(request.preset)).slice(0, max),
          model: 'deterministic',
        };
        if (memories.length > 0) result.memories = memories;
        return result;
      }
      const previous = request.previousSummary
        ? [parseSummary(request.previousSummary), ...earlier]
        : earlier;
      const summary = fitToLength(merge(previous, now, o), max, rank, names);
      const result: SummarizeResult = { summary, model: 'deterministic' };
      if (memories.length > 0) result.memories = memories;
      return result;
    },
  };
}
