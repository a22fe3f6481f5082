/**
 * Score-based pruning of old tool results into placeholders (002 §4.3, HEAD semantics as recommended).
 * Protects everything from the 2nd user message from the end on, and the most recent `protectTokens`
 * of tool output before it (walking back, stopping at a system message, `ceil(code points / 3.2)` per
 * result). Older results are candidates; they are scored (tool priority minus references from later
 * assistant messages, floor 0), sorted by score descending, and pruned in that order only until the
 * savings reach `minSavings` (each candidate is added before the check, so `0` prunes every one).
 * Nothing happens when all candidates together save less than that; a run that replaces nothing is `noop`.
 *
 * `kosmokrator` mode emits 002's five placeholder strings exactly (with recall on, each ends with
 * `; whole: reread('m…')]`); `default` mode's placeholders name the tool, its target, the size and where
 * to get the content back, and also know Claude Code's names.
 */
import * as z from 'zod/mini';
import { messageText, outputText } from '../../messages/text.ts';
import type { JsonValue, Message, ToolResultPart } from '../../messages/types.ts';
import { rereadHint } from '../../recall/ref.ts';
import { formatCount, headCodePoints } from '../../text/trim.ts';
import { codePointLength } from '../../tokens/text-stats.ts';
import { LIMITS } from '../limits.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import { isClearedResult, pathBasename } from './dedup.ts';
import { closeWithRef, recallRef } from './recall-hints.ts';
import {
  applied,
  indexToolCalls,
  isUntouchable,
  noop,
  parseOptions,
  replaceParts,
  resultArgs,
  resultToolName,
  SESSION_LOG_LOCATION,
  type SyncStage,
  sessionLogRecover,
} from './stage-kit.ts';

export const PRUNE_PLACEHOLDER = '[Old tool result content cleared]';
export const PRUNE_SHELL_PLACEHOLDER =
  '[Old shell output cleared; inspect truncation storage or rerun targeted commands if needed]';

/** 002 HEAD priorities: higher = pruned first. */
export const PRUNE_PRIORITIES: Readonly<Record<string, number>> = {
  bash: 70,
  shell_read: 65,
  web_fetch: 55,
  grep: 50,
  web_search: 40,
  file_read: 30,
  glob: 20,
  file_edit: 10,
  file_write: 10,
};
export const PRUNE_OTHER_PRIORITY = 25;

/** Claude Code names → 002 names (default mode). */
export const DEFAULT_PRUNE_ALIASES: Readonly<Record<string, string>> = {
  Read: 'file_read',
  Grep: 'grep',
  Glob: 'glob',
  Bash: 'bash',
  Edit: 'file_edit',
  MultiEdit: 'file_edit',
  Write: 'file_write',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
};

export const pruningOptionsSchema = z.strictObject({
  /** `kosmokrator`: 002's exact placeholders and names. @default 'default' */
  mode: z.optional(z.enum(['default', 'kosmokrator'])),
  /** Tokens of recent tool output (before the protected turns) never pruned. @default 40000 */
  protectTokens: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.tokens))),
  /** Prune only when at least this many tokens can go, and stop once they have. @default 20000 */
  minSavings: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.tokens))),
  /** Tool name → priority; replaces the 002 table. */
  priorities: z.optional(
    z.record(z.string(), z.number().check(z.gte(-LIMITS.priority), z.lte(LIMITS.priority))),
  ),
  /** Tool name → 002 name. @default Claude Code names in `default` mode, none in `kosmokrator` */
  aliases: z.optional(z.record(z.string(), z.string())),
});

export type PruningOptions = z.input<typeof pruningOptionsSchema>;

export const PRUNING_DEFAULTS = { protectTokens: 40000, minSavings: 20000 } as const;

/** 002's estimate of one result: `ceil(mb_strlen / 3.2)`. */
export function pruneTokens(text: string): number {
  return text === '' ? 0 : Math.ceil(codePointLength(text) / 3.2);
}

/** 002's placeholder for a pruned result. */
export function kosmokratorPlaceholder(tool: string, args: Readonly<Record<string, JsonValue>>): string {
  const path = typeof args.path === 'string' ? args.path : '';
  if (tool === 'file_read' && path !== '') return `[Old file_read output cleared for ${path}]`;
  if (tool === 'grep' && path !== '') return `[Old grep output cleared for ${path}]`;
  if (tool === 'glob') return '[Old glob output cleared]';
  if (tool === 'bash' || tool === 'shell_read') return PRUNE_SHELL_PLACEHOLDER;
  return PRUNE_PLACEHOLDER;
}

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

function pathOf(args: Readonly<Record<string, JsonValue>>): string {
  return str(args.path) || str(args.file_path);
}

/** Default mode: `[Old grep output cleared for src/x.ts — 1,234 tokens; recover: …]`. */
export function contextPlaceholder(
  tool: string,
  args: Readonly<Record<string, JsonValue>>,
  tokens: number,
  messageId: string,
  callId: string,
  ref?: string,
): string {
  let target = pathOf(args);
  const extra = str(args.pattern) || str(args.query) || str(args.command) || str(args.url);
  if (target !== '' && extra !== '' && extra !== target) target = `${target} (${extra})`;
  else if (target === '') target = extra;
  if (codePointLength(target) > 80) target = `${headCodePoints(target, 79)}…`;
  const what = target === '' ? `[Old ${tool} output cleared` : `[Old ${tool} output cleared for ${target}`;
  if (ref !== undefined) return `${what} — ${formatCount(tokens)} tokens; whole: ${rereadHint(ref)}]`;
  return `${what} — ${formatCount(tokens)} tokens; recover: call ${callId} is kept in the session log as message ${messageId}]`;
}

interface Candidate {
  msg: number;
  part: number;
  tokens: number;
  score: number;
  quote: string;
  tool: string;
  path: string;
  placeholder: string;
}

const DECISION_PHRASES = ['based on', "i'll use", 'the issue is'];

/** Output text and 002 token estimate per result part (parts are never mutated, so this is safe). */
const measured = new WeakMap<ToolResultPart, { text: string; tokens: number; quote: string }>();
function measure(part: ToolResultPart): { text: string; tokens: number; quote: string } {
  let m = measured.get(part);
  if (!m) {
    const text = outputText(part.output);
    const length = codePointLength(text);
    // 002 looks for the result's first 20 characters in later assistant messages (results > 20 chars).
    const quote = length > 20 ? headCodePoints(text, 20).toLowerCase() : '';
    m = { text, tokens: text === '' ? 0 : Math.ceil(length / 3.2), quote };
    measured.set(part, m);
  }
  return m;
}

const lowered = new WeakMap<Message, string>();
function lowerText(message: Message): string {
  let t = lowered.get(message);
  if (t === undefined) {
    t = messageText(message).toLowerCase();
    lowered.set(message, t);
  }
  return t;
}

/**
 * The assistant messages before the boundary, for reference scoring in about O(text) per distinct
 * needle instead of O(candidates × messages): lower-cased texts joined by NUL with their offsets.
 */
class References {
  readonly index: number[] = [];
  private readonly texts: string[] = [];
  private readonly starts: number[] = [];
  private readonly joined: string;
  private readonly phraseSuffix: Int32Array;
  private readonly byNeedle = new Map<string, Int32Array>();

  constructor(messages: readonly Message[], boundary: number) {
    let offset = 0;
    for (let j = 0; j < boundary; j++) {
      const m = messages[j]!;
      if (m.role !== 'assistant') continue;
      const text = lowerText(m);
      this.index.push(j);
      this.texts.push(text);
      this.starts.push(offset);
      offset += text.length + 1;
    }
    this.joined = this.texts.join('\u0000');
    this.phraseSuffix = this.suffix((k) => DECISION_PHRASES.some((p) => this.texts[k]!.includes(p)));
  }

  private suffix(has: (k: number) => boolean): Int32Array {
    const out = new Int32Array(this.texts.length + 1);
    for (let k = this.texts.length - 1; k >= 0; k--) out[k] = out[k + 1]! + (has(k) ? 1 : 0);
    return out;
  }

  /** First assistant position after message index `i`. */
  after(i: number): number {
    let lo = 0;
    let hi = this.index.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.index[mid]! <= i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  phrases(from: number): number {
    return this.phraseSuffix[from]!;
  }

  /** Messages at positions ≥ `from` whose text contains `needle`, scanning once (for one-off needles). */
  countFrom(needle: string, from: number): number {
    if (from >= this.texts.length) return 0;
    if (needle.includes('\u0000')) {
      let n = 0;
      for (let k = from; k < this.texts.length; k++) if (this.texts[k]!.includes(needle)) n++;
      return n;
    }
    let n = 0;
    for (let pos = this.joined.indexOf(needle, this.starts[from]!); pos !== -1; ) {
      const k = this.positionAt(pos);
      n++;
      const next = k + 1 < this.starts.length ? this.starts[k + 1]! : this.joined.length;
      pos = this.joined.indexOf(needle, next);
    }
    return n;
  }

  /** Messages at positions ≥ `from` whose text contains `needle`, cached per needle (for repeated needles). */
  containing(needle: string, from: number): number {
    let counts = this.byNeedle.get(needle);
    if (!counts) {
      const hit = new Uint8Array(this.texts.length);
      if (needle.includes('\u0000')) {
        for (let k = 0; k < this.texts.length; k++) hit[k] = this.texts[k]!.includes(needle) ? 1 : 0;
      } else
        for (let pos = this.joined.indexOf(needle); pos !== -1; ) {
          const k = this.positionAt(pos);
          hit[k] = 1;
          const next = k + 1 < this.starts.length ? this.starts[k + 1]! : this.joined.length;
          pos = this.joined.indexOf(needle, next);
        }
      counts = this.suffix((k) => hit[k] === 1);
      this.byNeedle.set(needle, counts);
    }
    return counts[from]!;
  }

  private positionAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

export function createPruning(options: PruningOptions = {}): SyncStage {
  const o = parseOptions(pruningOptionsSchema, options, 'pruning');
  const mode = o.mode ?? 'default';
  const protect = o.protectTokens ?? PRUNING_DEFAULTS.protectTokens;
  const minSavings = o.minSavings ?? PRUNING_DEFAULTS.minSavings;
  const priorities = o.priorities ?? PRUNE_PRIORITIES;
  const aliases = o.aliases ?? (mode === 'kosmokrator' ? {} : DEFAULT_PRUNE_ALIASES);
  const name = 'pruning';

  /** Priority minus 20 per later assistant message naming the basename, 10 per decision phrase, 20 per quote. */
  function score(refs: References, c: Candidate): number {
    let s = priorities[c.tool] ?? PRUNE_OTHER_PRIORITY;
    const from = refs.after(c.msg);
    const base = c.path !== '' ? pathBasename(c.path).toLowerCase() : '';
    if (base !== '') s -= 20 * refs.containing(base, from);
    s -= 10 * refs.phrases(from);
    if (c.quote !== '') s -= 20 * refs.countFrom(c.quote, from);
    return Math.max(0, s);
  }

  return {
    name,
    run(messages: readonly Message[], ctx: StageContext): StageResult {
      if (messages.length < 4) return noop(name, messages, ctx, 'fewer than 4 messages');
      let boundary = 0;
      for (let i = messages.length - 1, users = 0; i >= 0; i--)
        if (messages[i]!.role === 'user' && ++users >= 2) {
          boundary = i;
          break;
        }
      if (boundary <= 0) return noop(name, messages, ctx, 'fewer than 2 user turns');
      const calls = indexToolCalls(messages);
      const candidates: Candidate[] = [];
      let seen = 0;
      for (let i = boundary - 1; i >= 0; i--) {
        const m = messages[i]!;
        if (m.role === 'system') break;
        if (m.role !== 'tool' || m.meta?.agentVisible === false) continue;
        m.parts.forEach((p, pi) => {
          if (p.type !== 'tool-result') return;
          if (mode === 'kosmokrator' && typeof p.output !== 'string') return;
          const { text, tokens, quote } = measure(p);
          if (text === PRUNE_PLACEHOLDER || isClearedResult(text)) return;
          seen += tokens;
          if (seen <= protect || isUntouchable(m, p, calls, ctx)) return;
          const raw = resultToolName(p, calls) ?? 'unknown';
          const tool = aliases[raw] ?? raw;
          const args = resultArgs(p, calls);
          candidates.push({
            msg: i,
            part: pi,
            tokens,
            score: 0,
            quote,
            tool,
            path: mode === 'kosmokrator' ? str(args.path) : pathOf(args),
            placeholder:
              mode === 'kosmokrator'
                ? closeWithRef(kosmokratorPlaceholder(tool, args), recallRef(ctx, [m]))
                : contextPlaceholder(raw, args, tokens, m.id, p.callId, recallRef(ctx, [m])),
          });
        });
      }
      const total = candidates.reduce((n, c) => n + c.tokens, 0);
      if (candidates.length === 0)
        return noop(name, messages, ctx, `no tool result beyond the ${protect} protected tokens`);
      if (total < minSavings)
        return noop(name, messages, ctx, `candidates save ${total} < ${minSavings} tokens`);
      const refs = new References(messages, boundary);
      for (const c of candidates) c.score = score(refs, c);
      candidates.sort((a, b) => b.score - a.score); // stable: ties keep walk order (newest first)
      // 002 HEAD: add first, then stop once a positive minimum is reached; `minSavings: 0` prunes them all.
      const selected: Candidate[] = [];
      let saved = 0;
      for (const c of candidates) {
        selected.push(c);
        saved += c.tokens;
        if (minSavings > 0 && saved >= minSavings) break;
      }
      const byMessage = new Map<number, Map<number, ToolResultPart>>();
      for (const c of selected) {
        const part = messages[c.msg]!.parts[c.part] as ToolResultPart;
        const map = byMessage.get(c.msg) ?? new Map<number, ToolResultPart>();
        map.set(c.part, { ...part, output: c.placeholder });
        byMessage.set(c.msg, map);
      }
      const output = messages.slice();
      const journal: JournalEntry[] = [];
      for (const [mi, parts] of [...byMessage].sort((a, b) => a[0] - b[0])) {
        const m = messages[mi]!;
        const next = replaceParts(m, parts);
        output[mi] = next;
        journal.push({
          stage: name,
          action: 'replaced',
          messageId: m.id,
          tokensBefore: ctx.counter.countMessage(m),
          tokensAfter: ctx.counter.countMessage(next),
          location: SESSION_LOG_LOCATION,
          recover: sessionLogRecover(m.id),
          ...(ctx.recall ? { ref: recallRef(ctx, [m])! } : {}),
        });
      }
      return applied(
        name,
        messages,
        output,
        ctx,
        journal,
        `pruned ${selected.length} result(s), ~${saved} tokens`,
      );
    },
  };
}
