/**
 * What a preset does when the provider answers "context too long" (000 §1.10, 002 §4.10, 003 §5.4):
 * the `overflow-recovery` stage decides per preset and attempt; the runner retries when it changed the
 * messages, and clears the history when CowAgent gives up (or on its "message format" error). Every
 * message that leaves is journaled; the session log keeps them all.
 */
import { pairToolCalls } from '../invariants/pairing.ts';
import { isPinned } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import { SESSION_LOG } from './journal.ts';
import type { Recorder } from './runner.ts';
import { type OverflowVerdict, recoverFromOverflow } from './stages/overflow.ts';
import { isContextOverflowError, isMessageFormatError } from './stages/overflow-errors.ts';
import type { JournalEntry, Stage } from './types.ts';

export interface OverflowOutcome {
  retry: boolean;
  cleared: boolean;
}

/**
 * What survives clearing the history (000's give-up path): pinned messages, and `excludeTools` results
 * with their calls — the calling assistant message reduced to those calls (text and other calls go).
 */
function survivors(messages: readonly Message[], exclude: ReadonlySet<string>): Map<number, Message> {
  const kept = new Map<number, Message>();
  messages.forEach((m, i) => {
    if (isPinned(m)) kept.set(i, m);
  });
  if (exclude.size === 0) return kept;
  const calls = new Map<number, Set<number>>(); // message index → part indices of excluded calls kept
  for (const pair of pairToolCalls(messages).pairs) {
    if (!exclude.has(pair.name) || !pair.result) continue;
    kept.set(pair.result.message, messages[pair.result.message]!);
    const set = calls.get(pair.call.message) ?? new Set<number>();
    set.add(pair.call.part);
    calls.set(pair.call.message, set);
  }
  for (const [i, parts] of calls) {
    const m = messages[i]!;
    if (isPinned(m) || parts.size === m.parts.length) kept.set(i, m);
    else kept.set(i, { ...m, parts: m.parts.filter((_, pi) => parts.has(pi)) });
  }
  // A kept tool message may also hold results of other calls: keep only what pairs with kept calls.
  for (const [i, m] of kept) {
    if (m.role !== 'tool' || isPinned(m)) continue;
    const parts = m.parts.filter(
      (p) => p.type !== 'tool-result' || (p.name !== undefined && exclude.has(p.name)),
    );
    if (parts.length > 0 && parts.length !== m.parts.length) kept.set(i, { ...m, parts });
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
      journal.push({
        stage: 'overflow-clear',
        action: now ? 'replaced' : 'removed',
        messageId: m.id,
        tokensBefore: ctx.counter.countMessage(m),
        tokensAfter: now ? ctx.counter.countMessage(now) : 0,
        location: SESSION_LOG,
        recover: `read message ${m.id} back from the session log`,
      });
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
