/**
 * What a preset does when the provider answers "context too long" (000 §1.10, 002 §4.10, 003 §5.4):
 * the `overflow-recovery` stage decides per preset and attempt; the runner retries when it changed the
 * messages, and clears the history when CowAgent gives up (or on its "message format" error). Every
 * message that leaves is journaled; the session log keeps them all.
 */
import { isPinned } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import { SESSION_LOG } from './journal.ts';
import type { Recorder } from './runner.ts';
import { type OverflowVerdict, recoverFromOverflow } from './stages/overflow.ts';
import { isContextOverflowError, isMessageFormatError } from './stages/overflow-errors.ts';
import type { Stage } from './types.ts';

export interface OverflowOutcome {
  retry: boolean;
  cleared: boolean;
}

/** Clears everything but pinned messages (000's give-up path). */
const clearHistory: Stage = {
  name: 'overflow-clear',
  run(messages, ctx) {
    const kept = messages.filter((m) => isPinned(m));
    const count = (list: readonly Message[]) => list.reduce((n, m) => n + ctx.counter.countMessage(m), 0);
    const changed = kept.length !== messages.length;
    return {
      messages: changed ? kept : (messages as Message[]),
      report: {
        stage: 'overflow-clear',
        status: changed ? 'applied' : 'noop',
        tokensBefore: count(messages),
        tokensAfter: count(kept),
        detail: 'history cleared; the user is asked to restate the request',
      },
      journal: messages
        .filter((m) => !isPinned(m))
        .map((m) => ({
          stage: 'overflow-clear',
          action: 'removed' as const,
          messageId: m.id,
          tokensBefore: ctx.counter.countMessage(m),
          tokensAfter: 0,
          location: SESSION_LOG,
          recover: `read message ${m.id} back from the session log`,
        })),
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
