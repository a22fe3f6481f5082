/**
 * The reference index of a stretch of conversation: every path, file name, identifier and tool-argument
 * key, ranked by `scoreReferences` and listed by worth per length. The deterministic summarizer builds
 * its index sections from it, and the `default` compaction tops up any summary with it — an LLM's too —
 * so that the exact names an agent reaches for next survive a paraphrase.
 */
import { isRequest, messageText, outputText } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import { extractReferences, type ReferenceKind, type ScoredReference } from '../text/references.ts';
import { createNameIndex, type NameIndex, textPositions, trigram, trigramStep } from './name-index.ts';
import { rankSources, type ScoredSource } from './reference-scores.ts';

/**
 * The index lists references by score per length^this (0: by score alone): a reference's cost in a
 * summary grows with its length, so a long path must score higher than a short name to go first.
 */
export const REFERENCE_LENGTH_EXPONENT = 0.25;

/** References as comma-separated lines of about this many characters (a bullet each costs more tokens). */
const REFERENCE_LINE_CHARS = 160;

/** Title of the block `appendReferenceIndex` adds under a summary. */
export const REFERENCE_INDEX_TITLE = '## References (verbatim)';

/** String values and keys (`file_path`, `old_string`) of tool arguments (nested), for reference extraction. */
function argStrings(args: unknown, out: string[] = []): string[] {
  if (typeof args === 'string') out.push(args.length > 2000 ? args.slice(0, 2000) : args);
  else if (Array.isArray(args)) for (const a of args) argStrings(a, out);
  else if (args && typeof args === 'object')
    for (const [k, v] of Object.entries(args)) {
      out.push(k);
      argStrings(v, out);
    }
  return out;
}

export interface RankOptions {
  /** Messages whose text is not a source (the deterministic summarizer parses earlier summaries apart). */
  skip?: (message: Message) => boolean;
}

/**
 * What a message gives the index: its source text (its text, tool-call arguments and tool outputs) and
 * the references read from it, kept per parts array. A compaction ranks what it folds twice (the
 * summarizer, then the index under the summary): the second pass reads nothing again, and builds no text.
 * A hit needs the same picture of what the source was built from — the parts array, its length, and per
 * part the part, its type and its content field (`text`, `args`, `output`), all compared with `===` — so
 * a message edited in place (a text or an output replaced, a part added) is read again. Not seen: a value
 * changed in place inside a tool call's `args` object (stages build new messages, never edit in place).
 * The source is built from the parts alone, so a copy sharing them (an archived result, a message
 * given new meta) is not read again. The entry lives as long as the parts array does.
 */
interface Read {
  parts: Message['parts'];
  picture: unknown[];
  source: string;
  refs: ReadonlyMap<string, ReferenceKind>;
}
const extracted = new WeakMap<Message['parts'], Read>();

function contentOf(p: Message['parts'][number]): unknown {
  return p.type === 'text'
    ? p.text
    : p.type === 'tool-call'
      ? p.args
      : p.type === 'tool-result'
        ? p.output
        : p;
}

function picture(m: Message): unknown[] {
  const out: unknown[] = [];
  for (const p of m.parts) out.push(p, p.type, contentOf(p));
  return out;
}

function same(hit: Read, m: Message): boolean {
  if (hit.parts !== m.parts || hit.picture.length !== m.parts.length * 3) return false;
  const pic = hit.picture;
  for (let i = 0, k = 0; i < m.parts.length; i++, k += 3) {
    const p = m.parts[i]!;
    if (pic[k] !== p || pic[k + 1] !== p.type || pic[k + 2] !== contentOf(p)) return false;
  }
  return true;
}

/**
 * The text `m` gives the index: its text, then each tool call's argument strings and tool output,
 * joined by newlines. When only one of them holds text (a tool result, a plain reply), that text
 * itself, not a copy with newlines around it: a newline starts or ends no reference, as the start and
 * end of a text do not, so the references are the same (`extractReferences` is tested for it).
 */
function sourceOf(m: Message): string {
  const seen = [messageText(m)];
  for (const p of m.parts) {
    if (p.type === 'tool-call') seen.push(argStrings(p.args).join('\n'));
    else if (p.type === 'tool-result') seen.push(outputText(p.output).slice(0, 20_000));
  }
  let only: string | undefined;
  for (const x of seen) {
    if (x === '') continue;
    if (only !== undefined) return seen.join('\n');
    only = x;
  }
  return only ?? seen.join('\n');
}

/**
 * References by source text, for a message rebuilt with the same content (a stage's spread, tool
 * archiving): its text is built again, not read. `extractReferences` is a function of the text alone.
 * Bounded: at most `BY_CONTENT_MAX_CHARS` characters of keys, oldest out first.
 */
const byContent = new Map<string, ReadonlyMap<string, ReferenceKind>>();
const BY_CONTENT_MAX_CHARS = 4_000_000;
let byContentChars = 0;

function referencesOf(source: string): ReadonlyMap<string, ReferenceKind> {
  const hit = byContent.get(source);
  if (hit) return hit;
  const refs = extractReferences(source);
  if (source.length > BY_CONTENT_MAX_CHARS / 8) return refs;
  byContent.set(source, refs);
  byContentChars += source.length;
  for (const key of byContent.keys()) {
    if (byContentChars <= BY_CONTENT_MAX_CHARS) break;
    byContent.delete(key);
    byContentChars -= key.length;
  }
  return refs;
}

function readMessage(m: Message): Read {
  const hit = extracted.get(m.parts);
  if (hit && same(hit, m)) return hit;
  const source = sourceOf(m);
  const read: Read = { parts: m.parts, picture: picture(m), source, refs: referencesOf(source) };
  extracted.set(m.parts, read);
  return read;
}

/**
 * Reads `messages` ahead of a compaction: their references are kept (per message, as `rankMessageReferences`
 * keeps them), so a later ranking of them reads nothing again. Pure with respect to results: a ranking
 * after it is the same as without it.
 */
export function readReferences(messages: Iterable<Message>): void {
  for (const m of messages) readMessage(m);
}

/**
 * The references of `messages`, best first: scored by `scoreReferences` (mentions, recency, written by
 * the agent, spelled out in code by the task — the first request, unless an earlier summary precedes
 * it), then ordered by score per length^¼. Tool-call ids are left out: placeholders and recovery hints
 * name them, but they are plumbing, not names the agent works with.
 */
export function rankMessageReferences(
  messages: readonly Message[],
  options: RankOptions = {},
): ScoredReference[] {
  const sources: ScoredSource[] = [];
  let requests = 0;
  let skipped = false;
  for (const [at, m] of messages.entries()) {
    if (options.skip?.(m)) {
      skipped = true;
      continue;
    }
    const request = isRequest(m);
    if (request) requests++;
    const task = request && requests === 1 && !skipped;
    const { source, refs } = readMessage(m);
    sources.push({ text: source, refs, at, agent: m.role === 'assistant', task });
  }
  // Every tool call's id (each call is a pair of `pairToolCalls`, answered or not).
  const callIds = new Set<string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') callIds.add(p.id);
  return rankSources(sources, callIds, REFERENCE_LENGTH_EXPONENT);
}

/** `referenceLines(refs).length`, without building the text. */
export function referenceLinesLength(refs: readonly string[]): number {
  let total = 0;
  let lines = 0;
  let line = 0; // length of the current line; 0 exactly when it is empty
  for (const r of refs) {
    if (line !== 0 && line + r.length + 2 > REFERENCE_LINE_CHARS) {
      total += line;
      lines++;
      line = 0;
    }
    line = line === 0 ? r.length : line + 2 + r.length;
  }
  if (line !== 0) {
    total += line;
    lines++;
  }
  return lines === 0 ? 0 : total + lines - 1;
}

/** References as comma-separated lines of about `REFERENCE_LINE_CHARS`. */
export function referenceLines(refs: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const r of refs) {
    if (line !== '' && line.length + r.length + 2 > REFERENCE_LINE_CHARS) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? r : `${line}, ${r}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

/**
 * The references worth listing, best first: those `text` does not already spell out, and none inside a
 * better-ranked one (`table.py` in `astropy/table/table.py`). `names`: an index kept between calls (a
 * summarizer's, a compaction stage's), so that names listed before are not indexed again; a fresh one
 * by default. Any index gives the same answer.
 */
export function distinctReferences(
  ranked: readonly string[],
  text: string,
  names: NameIndex = createNameIndex(),
): string[] {
  // A reference inside one the text spells out is spelled out too: only the rest need comparing.
  const spelled = inText(text, ranked.length);
  const rest = ranked.filter((r) => !spelled(r));
  const { heldBefore } = names.containment(rest);
  return rest.filter((_, i) => !heldBefore(i));
}

/**
 * `(r) => text.includes(r)`, for `queries` lookups. Many lookups in a long text go through a trigram
 * index of the text (the positions of the rarest trigram of `r`, each checked in place), so that
 * listing thousands of names against a summary of 24,000 characters does not scan it thousands of times.
 */
function inText(text: string, queries: number): (r: string) => boolean {
  if (queries * text.length < 1_000_000) return (r) => text.includes(r);
  const { positions, start, find } = textPositions(text);
  return (r) => {
    if (r.length < 3) return text.includes(r);
    let best = -1;
    let offset = 0;
    for (let o = 0, step = trigramStep(r); o + 3 <= r.length; o += step) {
      const d = find(trigram(r, o));
      if (d < 0) return false;
      if (best < 0 || start[d + 1]! - start[d]! < start[best + 1]! - start[best]!) {
        best = d;
        offset = o;
      }
    }
    for (let k = start[best]!, end = start[best + 1]!; k < end; k++) {
      const p = positions[k]!;
      if (p >= offset && text.startsWith(r, p - offset)) return true;
    }
    return false;
  };
}

/**
 * The longest prefix of `refs` (in order) whose rendering fits `max` characters, with a reference dropped
 * when a longer one chosen with it contains it. `names` as for `distinctReferences`; `length`, the
 * rendering's length without the rendering (the search measures a dozen prefixes, and builds one).
 */
export function fitReferences(
  refs: readonly string[],
  max: number,
  render: (refs: string[]) => string,
  names: NameIndex = createNameIndex(),
  /** The length of the rendering of the references at `picked` (indices into `refs`, in order). */
  length: (picked: readonly number[]) => number = (picked) => render(picked.map((i) => refs[i]!)).length,
): string {
  // refs[i] leaves the first k exactly when its first longer container is among them. Asked only of
  // the references a measured prefix holds (the search's first prefix is half the list, and a summary's
  // room takes a fraction of it), once each.
  const { firstLonger } = names.containment(refs);
  const container = new Int32Array(refs.length).fill(-1);
  const pick = (k: number) => {
    const head: number[] = [];
    for (let i = 0; i < k; i++) {
      if (container[i]! < 0) container[i] = firstLonger(i);
      if (container[i]! >= k) head.push(i);
    }
    return head;
  };
  let lo = 0;
  let hi = refs.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (length(pick(mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  return render(pick(lo).map((i) => refs[i]!));
}

/**
 * `summary` topped up, within `maxChars`, with a block of the references of `messages` it leaves out,
 * best first. The summary is returned as it is when it already fills `maxChars` or names them all.
 * `names` as for `distinctReferences`.
 */
export function appendReferenceIndex(
  summary: string,
  messages: readonly Message[],
  maxChars: number,
  names: NameIndex = createNameIndex(),
): string {
  const room = maxChars - summary.length - REFERENCE_INDEX_TITLE.length - 3;
  if (room <= 0) return summary;
  const refs = distinctReferences(
    rankMessageReferences(messages).map((r) => r.ref),
    summary,
    names,
  );
  const lines = fitReferences(refs, room, referenceLines, names, (picked) =>
    referenceLinesLength(picked.map((i) => refs[i]!)),
  );
  return lines === '' ? summary : `${summary}\n\n${REFERENCE_INDEX_TITLE}\n${lines}`;
}
