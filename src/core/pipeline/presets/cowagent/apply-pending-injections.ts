/**
 * Applies CowAgent's background summaries (SEED-RULES §1.8) planned by `cowagent-trim` in an earlier
 * run: the target user message's first text part becomes
 * `[System: Previous conversation summary — {D} turns were compacted]\n\n{summary}\n\nThe recent
 * conversation continues below.\n\n---\n\n{original_text}`. Runs first in the `cowagent` preset, so a
 * summary planned in run N shows from run N+1 on. Idempotent: a part that already carries the text is
 * left alone. An injection leaves the state once applied, or when its target is gone.
 */
import type { Message, Part } from '../../../messages/types.ts';
import { journalEntry, report, sumTokens } from '../../stages/compaction-support.ts';
import type { JournalEntry, PendingInjection, PipelineEvent, Stage, StageResult } from '../../types.ts';

const NAME = 'apply-pending-injections';

export function injectionText(p: PendingInjection & { summary: string }): string {
  return `[System: Previous conversation summary — ${p.turnsCompacted} turns were compacted]\n\n${p.summary.trim()}\n\nThe recent conversation continues below.\n\n---\n\n${p.originalText}`;
}

export function applyPendingInjections(_options: Record<string, never> = {}): Stage {
  return {
    name: NAME,
    run(input, ctx): StageResult {
      const tokens = sumTokens(input, ctx.counter);
      const pending = ctx.state.pendingInjections;
      if (pending.length === 0)
        return {
          messages: input as Message[],
          report: report(NAME, 'noop', tokens, tokens),
          journal: [],
          events: [],
        };
      const index = new Map(input.map((m, i) => [m.id, i]));
      let out: Message[] | undefined;
      const keep: PendingInjection[] = [];
      const journal: JournalEntry[] = [];
      const events: PipelineEvent[] = [];
      for (const p of pending) {
        const i = index.get(p.targetId);
        if (i === undefined) continue; // target trimmed away: nothing to apply any more
        if (p.summary === undefined || p.summary.trim() === '') {
          keep.push(p); // still computing
          continue;
        }
        const m = (out ?? input)[i]!;
        const pi = m.parts.findIndex((x) => x.type === 'text');
        const part = m.parts[pi];
        // Applied already or edited since: done with it. Applied now: done too, it leaves the state.
        if (part?.type !== 'text' || part.text !== p.originalText) continue;
        const text = injectionText({ ...p, summary: p.summary });
        const parts: Part[] = m.parts.map((x, j) => (j === pi ? { ...part, text } : x));
        const next: Message = { ...m, parts };
        out ??= [...input];
        out[i] = next;
        journal.push(
          journalEntry(NAME, 'replaced', m, ctx.counter, { tokensAfter: ctx.counter.countMessage(next) }),
        );
        events.push({ type: 'summary-applied', stage: NAME, targetId: p.targetId });
      }
      const state = keep.length === pending.length ? undefined : { ...ctx.state, pendingInjections: keep };
      if (!out) {
        const r: StageResult = {
          messages: input as Message[],
          report: report(NAME, 'noop', tokens, tokens),
          journal: [],
          events: [],
        };
        if (state) r.state = state;
        return r;
      }
      const result: StageResult = {
        messages: out,
        report: report(NAME, 'applied', tokens, sumTokens(out, ctx.counter), {
          detail: `${events.length} summary injected`,
        }),
        journal,
        events,
      };
      if (state) result.state = state;
      return result;
    },
  };
}
