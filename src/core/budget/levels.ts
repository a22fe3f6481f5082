import type { BudgetConfig, ContextBudget } from './types.ts';

/**
 * The levels of an already-checked configuration. Internal: presets use it for their "no limit"
 * budgets, which lie outside the bounds a caller may give.
 */
export function budgetOf(c: BudgetConfig): ContextBudget {
  const usable = Math.max(1, c.contextWindow - c.reserveOutput);
  const warning = Math.max(1, usable - c.warningBuffer);
  const autoCompact = Math.max(1, usable - c.autoCompactBuffer);
  const blocking = Math.max(1, usable - c.blockingBuffer);
  return {
    ...c,
    usable,
    warning,
    autoCompact,
    blocking,
    level(t) {
      if (t >= blocking) return 'block';
      if (t >= autoCompact) return 'compact';
      if (t >= warning) return 'warn';
      return 'ok';
    },
    percentLeft: (t) => Math.max(0, Math.round(((usable - t) / usable) * 100)),
  };
}
