/** Budgets the presets build from the configured one (SEED-RULES §4.5, §1.7, §5.4). */
import { BUDGET_DEFAULTS, type BudgetConfig, type ContextBudget, createBudget } from '../../budget/budget.ts';
import { budgetOf } from '../../budget/levels.ts';
import { CtxError, isCtxError } from '../../errors.ts';

/** `default` and `co-cli`: buffers scale with a window smaller than the 200K they were set for. */
export function scaledBudget(budget: Partial<BudgetConfig>): Partial<BudgetConfig> {
  const window = budget.contextWindow;
  if (window === undefined || window >= BUDGET_DEFAULTS.contextWindow) return budget;
  const f = window / BUDGET_DEFAULTS.contextWindow;
  const scale = (k: Exclude<keyof BudgetConfig, 'contextWindow'>) =>
    budget[k] ?? Math.round(BUDGET_DEFAULTS[k] * f);
  return {
    contextWindow: window,
    reserveOutput: scale('reserveOutput'),
    warningBuffer: scale('warningBuffer'),
    autoCompactBuffer: scale('autoCompactBuffer'),
    blockingBuffer: scale('blockingBuffer'),
  };
}

/** `createBudget`, with a window too small for the preset's reserve reported under the preset's name. */
export function presetBudget(name: string, b: Partial<BudgetConfig>): ContextBudget {
  try {
    return createBudget(b);
  } catch (e) {
    if (!isCtxError(e, 'invalid_config')) throw e;
    throw new CtxError('invalid_config', `preset ${name}: ${e.message}`, { cause: e });
  }
}

/** A budget whose every level sits at `limit` (systems with one threshold). */
export function singleLimit(limit: number, warning = 0): ContextBudget {
  // Not createBudget: 003's "no limit" (Number.MAX_SAFE_INTEGER) lies outside the caller's bounds.
  return budgetOf({
    contextWindow: limit,
    reserveOutput: 0,
    warningBuffer: warning,
    autoCompactBuffer: 0,
    blockingBuffer: 0,
  });
}
