/**
 * The one option shape of every framework entry (`ctxkitPrepareStep`, the AI SDK and LangChain
 * `ctxkitMiddleware`, `ctxkitProcessor`, `ctxkitInputFilter`, `ctxkitSession`): the same names, the same
 * validation. The window is required — `contextWindow: 128_000` (documented), or `budget: { contextWindow }`
 * (the core's spelling, accepted) — and an option no entry knows is a `CtxError` naming it, so that a
 * misspelt or misplaced key never leaves the entry on default limits.
 */
import {
  type BudgetConfig,
  CONTEXT_KEYS,
  type ContextOptions,
  type ContextRun,
  CtxError,
  closestName,
  type Dialect,
} from '../core/index.ts';

/** What every entry takes. Entries add their own keys (`memory` in Mastra, `conversation` in `prepareStep`). */
export interface CtxkitOptions extends Omit<ContextOptions, 'budget'> {
  /** The model's context window in tokens, an integer from 1,024 to 10,000,000. Required (here or as `budget.contextWindow`). */
  contextWindow?: number;
  /**
   * The budget beyond the window: `reserveOutput`, `warningBuffer`, `autoCompactBuffer`,
   * `blockingBuffer` (docs/concepts.md). `budget.contextWindow` is another spelling of `contextWindow`.
   */
  budget?: Partial<BudgetConfig>;
  /**
   * Provider rules for what is sent, when the hook cannot tell them from the model.
   * @default the AI SDK entries and Mastra: the step's model, else neutral; LangChain `anthropic`;
   * the Agents SDK `responses`
   */
  dialect?: Dialect;
  /**
   * Instructions counted with the history when the framework does not hand them to the hook (AI SDK 6's
   * `prepareStep`, a `Session`); instructions the hook is handed come first.
   */
  system?: string;
  /** Called with every run (reports, journal, estimate before and after): tests, logging. */
  onRun?: (run: ContextRun) => void;
}

/** Every entry's keys: the context's, the window, and the hook's own. */
export const COMMON_KEYS: readonly string[] = [...CONTEXT_KEYS, 'contextWindow', 'system', 'tools', 'onRun'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The window an entry runs with: `contextWindow` or `budget.contextWindow`, checked. */
function windowOf(entry: string, options: Record<string, unknown>): number {
  const budget = options.budget;
  if (budget !== undefined && !isObject(budget))
    throw new CtxError('invalid_config', `${entry}: expected an object`, { path: 'budget' });
  const top = options.contextWindow;
  const nested = budget?.contextWindow;
  if (top !== undefined && nested !== undefined && top !== nested)
    throw new CtxError(
      'invalid_config',
      `${entry}: contextWindow ${String(top)} and budget.contextWindow ${String(nested)} disagree; give one`,
      { path: 'contextWindow' },
    );
  const window = top ?? nested;
  if (window === undefined)
    throw new CtxError(
      'invalid_config',
      `${entry}: the model's context window is required, e.g. ${entry}({ contextWindow: 128_000 })`,
      { path: 'contextWindow' },
    );
  if (typeof window !== 'number' || !Number.isInteger(window) || window < 1024 || window > 10_000_000)
    throw new CtxError(
      'invalid_config',
      `${entry}: expected an integer from 1024 to 10,000,000 tokens, got ${String(window)}`,
      { path: 'contextWindow' },
    );
  return window;
}

/** The options split into what `createContext` takes and what the hook keeps. */
export interface ResolvedOptions {
  context: ContextOptions;
  system: string | undefined;
  onRun: ((run: ContextRun) => void) | undefined;
}

/**
 * Validates an entry's options: an object, no key the entry does not know (a `CtxError` naming it, with
 * the nearest known key), the window given once. `own` are the entry's extra keys (read by the entry).
 */
export function resolveOptions(
  entry: string,
  options: unknown,
  own: readonly string[] = [],
): ResolvedOptions {
  if (!isObject(options))
    throw new CtxError(
      'invalid_config',
      `${entry}: expected an options object, e.g. ${entry}({ contextWindow: 128_000 })`,
    );
  const known = [...COMMON_KEYS, ...own];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = closestName(key, known);
    throw new CtxError(
      'invalid_config',
      `${entry}: unknown option "${key}"${near ? `; did you mean "${near}"?` : ''} (known: ${known.join(', ')})`,
      { path: key },
    );
  }
  const contextWindow = windowOf(entry, options);
  const { system, onRun } = options;
  if (system !== undefined && typeof system !== 'string')
    throw new CtxError('invalid_config', `${entry}: expected a string`, { path: 'system' });
  if (onRun !== undefined && typeof onRun !== 'function')
    throw new CtxError('invalid_config', `${entry}: expected a function`, { path: 'onRun' });
  const context: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) if (options[key] !== undefined) context[key] = options[key];
  context.budget = { ...(options.budget as Partial<BudgetConfig> | undefined), contextWindow };
  return {
    context: context as ContextOptions,
    system: system as string | undefined,
    onRun: onRun as ((run: ContextRun) => void) | undefined,
  };
}

/**
 * The name of the model a hook is about to call, where the framework hands it over: a name, or an
 * object's `modelId` (AI SDK), `model` or `modelName` (LangChain chat models); `{}` when there is none.
 * It picks the prompt-cache rules priced (`PrepareInput.model`).
 */
export function modelCall(model: unknown): { model?: string } {
  const o = typeof model === 'object' && model !== null ? (model as Record<string, unknown>) : undefined;
  const name = typeof model === 'string' ? model : (o?.modelId ?? o?.model ?? o?.modelName);
  return typeof name === 'string' && name !== '' && name.length <= 256 ? { model: name } : {};
}
