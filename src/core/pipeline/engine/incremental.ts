/**
 * Cheap early exits for the stages that run on every pre-flight. A session's next pre-flight sees the
 * working context the previous one returned plus the messages that arrived since. When a stage did
 * nothing to that prefix and the new messages cannot give it anything to do, running it again would
 * scan the whole history for nothing: `prefixStable` returns the same no-op straight away, so a
 * pre-flight costs work in the new messages only.
 *
 * Each predicate is conservative: `true` (run the stage) whenever the new messages might matter.
 */
import type { Message } from '../../messages/types.ts';
import type { Stage, StageContext, StageResult } from '../types.ts';

/** Whether `input` (which extends the previous no-op input, `previousLength` messages long) may need the stage. */
export type AffectsPredicate = (input: readonly Message[], previousLength: number) => boolean;

/**
 * A predicate with memory: it keeps an index of the input it last saw (e.g. dedup's signatures and
 * paths), so that it can tell from the new messages alone whether they give the stage anything to do.
 */
export interface PrefixWatch {
  /**
   * As {@link AffectsPredicate}. When it answers `false` the watch has taken in the new messages:
   * its index now covers `input`.
   */
  affects(input: readonly Message[], previousLength: number): boolean;
  /** The stage ran in full on `input` and changed nothing: index `input` from scratch. */
  learn(input: readonly Message[], ctx: StageContext): void;
}

function extendsPrefix(input: readonly Message[], previous: readonly Message[]): boolean {
  if (input.length < previous.length) return false;
  for (let i = previous.length - 1; i >= 0; i--) if (input[i] !== previous[i]) return false;
  return true;
}

/** Wraps a stage that is a pure function of the messages (no state, no budget) with the early exit. */
export function prefixStable(stage: Stage, watch: AffectsPredicate | PrefixWatch): Stage {
  const affects = typeof watch === 'function' ? watch : watch.affects.bind(watch);
  const learn = typeof watch === 'function' ? undefined : watch.learn.bind(watch);
  let last: { input: readonly Message[]; excludeTools: ReadonlySet<string> } | undefined;
  return {
    name: stage.name,
    ...(stage.ahead && { ahead: stage.ahead }),
    async run(input: readonly Message[], ctx: StageContext): Promise<StageResult> {
      // A run that releases the prompt cache (a compaction, a cold cache) applies what was deferred:
      // the stage runs in full.
      const release = ctx.cache?.release !== undefined;
      if (!release && last && last.excludeTools === ctx.excludeTools && extendsPrefix(input, last.input)) {
        const previousLength = last.input.length;
        if (input.length === previousLength || !affects(input, previousLength)) {
          const added = input.length - previousLength;
          last = { input, excludeTools: ctx.excludeTools };
          return {
            messages: input as Message[],
            report: {
              stage: stage.name,
              status: 'noop',
              tokensBefore: 0,
              tokensAfter: 0,
              detail: `unchanged (${added} new message(s) checked)`,
            },
            journal: [],
            events: [],
          };
        }
      }
      const result = await stage.run(input, ctx);
      last = result.messages === input ? { input, excludeTools: ctx.excludeTools } : undefined;
      if (last) learn?.(input, ctx);
      return result;
    },
  };
}

function lastUserText(messages: readonly Message[], end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && m.parts.some((p) => p.type === 'text')) return i;
  }
  return -1;
}

/** A result that the historical truncation might cut (strings by length, anything else: maybe). */
function mayExceed(m: Message, maxChars: number): boolean {
  for (const p of m.parts)
    if (p.type === 'tool-result' && (typeof p.output !== 'string' || p.output.length > maxChars)) return true;
  return false;
}

/**
 * Historical truncation: only results that were current (after the old boundary) and became
 * historical can change, and only if they are longer than the limit. `co-cli`'s boundary moves with
 * every message (the last `protectLast` are current); `cowagent`'s only with a user text message, so
 * its watch remembers whether the current turn holds a result that may be over the limit, and a
 * pre-flight without a new user message costs nothing however long the turn has grown.
 */
export function historicalAffects(
  mode: 'cowagent' | 'co-cli',
  maxChars: number,
  protectLast: number,
): AffectsPredicate | PrefixWatch {
  if (mode === 'co-cli')
    return (input, from) => {
      for (let i = Math.max(0, from - protectLast); i < input.length; i++)
        if (mayExceed(input[i]!, maxChars)) return true;
      return false;
    };
  /** A result after the last user text message may be over the limit. */
  let longInTurn = true;
  const isUserText = (m: Message) => m.role === 'user' && m.parts.some((p) => p.type === 'text');
  return {
    affects(input, from) {
      for (let i = from; i < input.length; i++) {
        const m = input[i]!;
        if (isUserText(m)) {
          if (longInTurn) return true;
        } else if (mayExceed(m, maxChars)) longInTurn = true;
      }
      return false;
    },
    learn(input) {
      const boundary = lastUserText(input, input.length);
      longInTurn = false;
      for (let i = Math.max(0, boundary + 1); i < input.length && !longInTurn; i++)
        longInTurn = mayExceed(input[i]!, maxChars);
    },
  };
}
