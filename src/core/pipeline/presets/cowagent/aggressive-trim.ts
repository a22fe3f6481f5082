/**
 * CowAgent's `_aggressive_trim_for_overflow` (SEED-RULES §1.10): tool results over 10000 chars are cut
 * to 10000 + `\n\n[Truncated for context recovery: {len} -> 10000 chars]`; tool calls whose JSON input
 * is over 10000 chars get each string argument over 1000 chars cut to 1000 + `... [truncated {len} chars]`;
 * user text over 10000 chars is cut to 10000 + `\n\n[Message truncated for context recovery: {len} -> 10000 chars]`;
 * only the last 5 turns are kept. The current turn is included. Pinned messages and `excludeTools`
 * results are left alone (and kept). With recall on, each notice ends with the call that reads the
 * whole message back (`[Truncated for context recovery: … chars; whole: reread('m…')]`).
 */
import { isPinned } from '../../../messages/text.ts';
import { segmentTurns } from '../../../messages/turns.ts';
import type { JsonValue, Message, Part } from '../../../messages/types.ts';
import { headCodePoints } from '../../../text/trim.ts';
import { pyJsonDumps } from '../../../tokens/py-json.ts';
import { codePointLength } from '../../../tokens/text-stats.ts';
import {
  journalEntry,
  leadingSystemCount,
  protectedIndices,
  safeCuts,
} from '../../stages/compaction-support.ts';
import { closeWithRef, recallRef } from '../../stages/recall-hints.ts';
import type { JournalEntry, StageContext } from '../../types.ts';

export interface AggressiveTrimOptions {
  /** @default 5 */
  keepTurns?: number;
  /** @default 10000 */
  resultChars?: number;
  /** @default 10000 */
  userChars?: number;
  /** Tool-call inputs whose JSON is longer get their long string arguments cut. @default 10000 */
  inputJsonChars?: number;
  /** @default 1000 */
  argChars?: number;
  /** Apply the caps only, keep every turn. @default false */
  capsOnly?: boolean;
}

export interface AggressiveTrimResult {
  messages: Message[];
  changed: boolean;
  journal: JournalEntry[];
  turnsRemoved: number;
  truncated: number;
}

function capPart(
  p: Part,
  role: Message['role'],
  o: Required<AggressiveTrimOptions>,
  exclude: ReadonlySet<string>,
  ref: string | undefined,
): Part {
  if (p.type === 'tool-result' && typeof p.output === 'string' && !(p.name && exclude.has(p.name))) {
    const len = codePointLength(p.output);
    if (len > o.resultChars)
      return {
        ...p,
        output: `${headCodePoints(p.output, o.resultChars)}\n\n${closeWithRef(`[Truncated for context recovery: ${len} -> ${o.resultChars} chars]`, ref)}`,
      };
  } else if (
    p.type === 'tool-call' &&
    !exclude.has(p.name) &&
    p.args &&
    typeof p.args === 'object' &&
    !Array.isArray(p.args)
  ) {
    if (codePointLength(pyJsonDumps(p.args)) <= o.inputJsonChars) return p;
    let changed = false;
    const args: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(p.args)) {
      const len = typeof v === 'string' ? codePointLength(v) : 0;
      if (typeof v === 'string' && len > o.argChars) {
        args[k] = `${headCodePoints(v, o.argChars)}... ${closeWithRef(`[truncated ${len} chars]`, ref)}`;
        changed = true;
      } else args[k] = v;
    }
    return changed ? { ...p, args } : p;
  } else if (p.type === 'text' && role === 'user') {
    const len = codePointLength(p.text);
    if (len > o.userChars)
      return {
        ...p,
        text: `${headCodePoints(p.text, o.userChars)}\n\n${closeWithRef(`[Message truncated for context recovery: ${len} -> ${o.userChars} chars]`, ref)}`,
      };
  }
  return p;
}

export function aggressiveTrim(
  messages: readonly Message[],
  ctx: Pick<StageContext, 'counter' | 'excludeTools' | 'recall'>,
  options: AggressiveTrimOptions = {},
  stage = 'overflow-recovery',
): AggressiveTrimResult {
  const o: Required<AggressiveTrimOptions> = {
    keepTurns: 5,
    resultChars: 10_000,
    userChars: 10_000,
    inputJsonChars: 10_000,
    argChars: 1_000,
    capsOnly: false,
    ...options,
  };
  const journal: JournalEntry[] = [];
  let truncated = 0;
  let out: Message[] = messages.map((m) => {
    if (isPinned(m)) return m;
    // With recall on, each notice ends with the call that reads the whole message back.
    const ref = recallRef(ctx, [m]);
    const parts = m.parts.map((p) => capPart(p, m.role, o, ctx.excludeTools, ref));
    if (parts.every((p, i) => p === m.parts[i])) return m;
    const next = { ...m, parts };
    truncated++;
    journal.push(
      journalEntry(stage, 'truncated', m, ctx.counter, { tokensAfter: ctx.counter.countMessage(next), ref }),
    );
    return next;
  });
  let turnsRemoved = 0;
  if (!o.capsOnly) {
    const lead = leadingSystemCount(out);
    const turns = segmentTurns(out.slice(lead)).map((t) => t.start + lead);
    if (turns.length > o.keepTurns) {
      const safe = safeCuts(out);
      let k = turns.length - o.keepTurns;
      while (k > 0 && !safe[turns[k]!]) k--;
      if (k > 0) {
        const cut = turns[k]!;
        const range = Array.from({ length: cut - lead }, (_, i) => lead + i);
        const keep = protectedIndices(out, range, ctx.excludeTools);
        for (const i of range)
          if (!keep.has(i))
            journal.push(
              // The ref of the message as it came in (what the archive keeps), not of its capped copy.
              journalEntry(stage, 'removed', out[i]!, ctx.counter, { ref: recallRef(ctx, [messages[i]!]) }),
            );
        out = out.filter((_, i) => i < lead || i >= cut || keep.has(i));
        turnsRemoved = k;
      }
    }
  }
  const changed = truncated > 0 || turnsRemoved > 0;
  return { messages: changed ? out : (messages as Message[]), changed, journal, turnsRemoved, truncated };
}
