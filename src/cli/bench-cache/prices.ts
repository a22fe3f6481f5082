/**
 * The price tables `ctxcheck bench cache` prices each send with: the provider's cache rules (the
 * core's cost model, `CACHE_RULES`), its uncached input price and its output price in dollars per
 * million tokens. The agent's own answers are the same for every manager (the recorded ones) and are not
 * priced; the output price prices a summarizer's answer (the compaction's own call, `SummaryCall`).
 */
import { CACHE_RULES, type CacheRules, cacheRulesFor, type Dialect } from '../../core/index.ts';

export interface PriceTable {
  id: 'anthropic' | 'openai' | 'gpt-5.6';
  /** The model whose list price is used, for the report. */
  model: string;
  /** The model ctxkit is told it sends to (`PrepareInput.model`: its family's cache rules). */
  modelId?: string;
  /** The dialect ctxkit runs with when priced by this table (its cache rules follow). */
  dialect: Dialect;
  rules: CacheRules;
  /** Uncached input, dollars per million tokens. */
  inputPerMillion: number;
  /** Output, dollars per million tokens. */
  outputPerMillion: number;
}

/**
 * List prices, 2026-11: Claude Sonnet 4.5 ($3 input, $3.75 5-minute write, $0.30 read, $15 output); GPT-5
 * ($1.25, $0.125 cached, $10 output); GPT-5.6 Terra ($2.50, writes 1.25×, reads 0.1×, $15 output), on
 * request only (`--tables`).
 */
export const PRICE_TABLES: Record<PriceTable['id'], PriceTable> = {
  anthropic: {
    id: 'anthropic',
    model: 'Claude Sonnet 4.5',
    dialect: 'anthropic',
    rules: CACHE_RULES.anthropic,
    inputPerMillion: 3,
    outputPerMillion: 15,
  },
  openai: {
    id: 'openai',
    model: 'GPT-5',
    dialect: 'openai',
    rules: CACHE_RULES.openai,
    inputPerMillion: 1.25,
    outputPerMillion: 10,
  },
  'gpt-5.6': {
    id: 'gpt-5.6',
    model: 'GPT-5.6 Terra',
    modelId: 'gpt-5.6-terra',
    dialect: 'openai',
    rules: cacheRulesFor('openai', {}, 'gpt-5.6-terra'),
    inputPerMillion: 2.5,
    outputPerMillion: 15,
  },
};

export const TABLE_IDS = Object.keys(PRICE_TABLES) as Array<PriceTable['id']>;
/** The tables a run prices by default (the README's figures). */
export const DEFAULT_TABLES: ReadonlyArray<PriceTable['id']> = ['anthropic', 'openai'];

/** Dollars of `units` uncached-input-token units. */
export function dollars(units: number, table: PriceTable): number {
  return (units * table.inputPerMillion) / 1_000_000;
}
