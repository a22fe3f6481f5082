/**
 * A conservative view of a counter, for budgets that must not be exceeded: counts become the
 * counter's upper bound (the calibrated estimator's estimate × (1 + its cross-validated p95 error)),
 * or the plain count times `margin` for counters that have no bound of their own.
 */
import type { Message } from '../messages/types.ts';
import type { TokenCounter } from '../ports.ts';

interface Bounded extends TokenCounter {
  upperBound(text: string): number;
  upperBoundMessage(message: Message): number;
}

function isBounded(counter: TokenCounter): counter is Bounded {
  const c = counter as Partial<Bounded>;
  return typeof c.upperBound === 'function' && typeof c.upperBoundMessage === 'function';
}

/** @param margin Scale for counters without an upper bound. @default 1.15 */
export function conservativeCounter(counter: TokenCounter, margin = 1.15): TokenCounter {
  if (isBounded(counter))
    return {
      name: `${counter.name}+upper`,
      countText: (text) => counter.upperBound(text),
      countMessage: (message) => counter.upperBoundMessage(message),
    };
  return {
    name: `${counter.name}+margin`,
    countText: (text) => Math.ceil(counter.countText(text) * margin),
    countMessage: (message) => Math.ceil(counter.countMessage(message) * margin),
  };
}
