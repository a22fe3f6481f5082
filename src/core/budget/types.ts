/** The budget model's shapes, shared by the configuration (budget.ts) and the levels (levels.ts). */

export type BudgetLevel = 'ok' | 'warn' | 'compact' | 'block';

export interface BudgetConfig {
  /** Model context window in tokens. @default 200000 */
  contextWindow: number;
  /** Tokens reserved for the model's answer. @default 16000 */
  reserveOutput: number;
  /** Warning level sits this far below usable input. @default 24000 */
  warningBuffer: number;
  /** Auto-compaction level sits this far below usable input. @default 12000 */
  autoCompactBuffer: number;
  /** Blocking level sits this far below usable input. @default 3000 */
  blockingBuffer: number;
}

export interface ContextBudget extends Readonly<BudgetConfig> {
  /** `max(1, window − reserveOutput)`. */
  readonly usable: number;
  readonly warning: number;
  readonly autoCompact: number;
  readonly blocking: number;
  level(tokens: number): BudgetLevel;
  /** `max(0, round((usable − tokens) / usable × 100))`. */
  percentLeft(tokens: number): number;
}
