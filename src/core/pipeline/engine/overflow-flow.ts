/**
 * What a preset does when the provider answers "context too long" (000 §1.10, 002 §4.10, 003 §5.4):
 * the `overflow-recovery` stage decides per preset and attempt; the runner retries when it changed the
 * messages, and clears the history when CowAgent gives up (or on its "message format" error). Every
 * message that leaves is journaled; the session log keeps them all.
 */
import { pairToolCalls } from '../../invariants/pairing.ts';
import { verifiedKey } from '../../invariants/reasoning.ts';
import { isPinned } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import { type OverflowVerdict, recoverFromOverflow } from '../stages/overflow.ts';
import { isContextOverflowError, isMessageFormatError } from '../stages/overflow-errors.ts';
import { recallRef } from '../stages/recall-hints.ts';
import type { JournalEntry, Stage } from '../types.ts';
import { callerRecover, SESSION_LOG } from './journal.ts';
import type { Recorder } from './runner.ts';

export interface OverflowOutcome {
  retry: boolean;
  cleared: boolean;
}

/**
 * What survives clearing the history (000's give-up path): pinned messages, and `excludeTools` results
 * with their calls — the calling assistant message reduced to those calls (text and other calls go).
 * Reasoning stays with the calls it belongs to: the reduced message keeps its reasoning parts, any part
 * holding verified reasoning, and the call carrying the step's Gemini `thoughtSignature` (with its
 * result), so no kept call loses the signature or reasoning item the provider checks it against.
 */
function survivors(messages: readonly Message[], exclude: ReadonlySet<string>): Map<number, Message> {
  const kept = new Map<number, Message>();
  messages.forEach((m, i) => {
    if (isPinned(m)) kept.set(i, m);
  });
  if (exclude.size === 0) return kept;
  const pairs = pairToolCalls(messages).pairs;
  const calls = new Map<number, Set<number>>(); // message index → part indices of kept calls
  const keepCall = (ref: { message: number; part: number }) => {
    const set = calls.get(ref.message) ?? new Set<number>();
    set.add(ref.part);
    calls.set(ref.message, set);
  };
  for (const pair of pairs) if (exclude.has(pair.name) && pair.result) keepCall(pair.call);
  for (const pair of pairs)
    if (pair.result && calls.has(pair.call.message)) {
      const part = messages[pair.call.message]!.parts[pair.call.part]!;
      if (verifiedKey(part) !== undefined) keepCall(pair.call);
    }
  const results = new Map<number, Set<number>>(); // message index → part indices of kept results
  for (const pair of pairs) {
    if (!pair.result || !calls.get(pair.call.message)?.has(pair.call.part)) continue;
    const set = results.get(pair.result.message) ?? new Set<number>();
    set.add(pair.result.part);
    results.set(pair.result.message, set);
  }
  for (const [i, parts] of calls) {
    const m = messages[i]!;
    const keep = m.parts.filter(
      (p, pi) =>
        parts.has(pi) || p.type === 'reasoning' || (p.type !== 'tool-call' && verifiedKey(p) !== undefined),
    );
    kept.set(i, isPinned(m) || keep.length === m.parts.length ? m : { ...m, parts: keep });
  }
  // A kept tool message may also hold results of other calls: keep only what pairs with kept calls.
  for (const [i, parts] of results) {
    const m = messages[i]!;
    if (isPinned(m)) continue;
    const keep = m.parts.filter((p, pi) => p.type !== 'tool-result' || parts.has(pi));
    kept.set(i, keep.length === m.parts.length ? m : { ...m, parts: keep });
  }
  return kept;
}

/** Clears everything but pinned messages and `excludeTools` chains (000's give-up path). */
const clearHistory: Stage = {
  name: 'overflow-clear',
  run(messages, ctx) {
    const kept = survivors(messages, ctx.excludeTools);
    const out = [...kept.entries()].sort((x, y) => x[0] - y[0]).map(([, m]) => m);
    const count = (list: readonly Message[]) => list.reduce((n, m) => n + ctx.counter.countMessage(m), 0);
    const changed = out.length !== messages.length || out.some((m, i) => m !== messages[i]);
    const journal: JournalEntry[] = [];
    messages.forEach((m, i) => {
      const now = kept.get(i);
      if (now === m) return;
      const entry: JournalEntry = {
        stage: 'overflow-clear',
        action: now ? 'replaced' : 'removed',
        messageId: m.id,
        tokensBefore: ctx.counter.countMessage(m),
        tokensAfter: now ? ctx.counter.countMessage(now) : 0,
        location: SESSION_LOG,
        recover: callerRecover(m.id),
      };
      // Nothing stands for a cleared message; with recall on, its entry names the ref reread answers.
      const ref = recallRef(ctx, [m]);
      if (ref !== undefined) entry.ref = ref;
      journal.push(entry);
    });
    return {
      messages: changed ? out : (messages as Message[]),
      report: {
        stage: 'overflow-clear',
        status: changed ? 'applied' : 'noop',
        tokensBefore: count(messages),
        tokensAfter: count(out),
        detail:
          'history cleared (pinned messages and excluded tools kept); the user is asked to restate the request',
      },
      journal,
      events: [],
    };
  },
};

export async function runOverflow(
  r: Recorder,
  preset: string,
  attempt: number,
  error: unknown,
): Promise<OverflowOutcome> {
  if (preset === 'cowagent' && isMessageFormatError(error) && !isContextOverflowError(error)) {
    r.skip('overflow-recovery', 'message format error: history cleared without trimming (000 §1.10)');
    await r.run(clearHistory);
    return { retry: false, cleared: true };
  }
  if (!isContextOverflowError(error)) {
    r.skip('overflow-recovery', 'not a context-overflow error');
    return { retry: false, cleared: false };
  }
  const seen: { verdict: OverflowVerdict } = { verdict: 'give-up' };
  await r.run({
    name: 'overflow-recovery',
    async run(messages, ctx) {
      const { verdict: v, ...result } = await recoverFromOverflow(messages, ctx, { preset, attempt, error });
      seen.verdict = v;
      return result;
    },
  });
  if (seen.verdict === 'clear-history') {
    await r.run(clearHistory);
    return { retry: false, cleared: true };
  }
  return { retry: seen.verdict === 'retry', cleared: false };
}
