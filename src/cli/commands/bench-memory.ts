/**
 * `ctxcheck bench memory --locomo <file> [--embedder use-lite|hashing] [--json] [--no-adversarial]`:
 * evidence recall@5/@10 per LoCoMo category for keyword-only, vector-only and hybrid retrieval.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { type Embedder, hashingEmbedder } from '../../core/index.ts';
import { type CliEnv, CliError, type CliIo, EXIT } from '../io.ts';
import { LOCOMO_CATEGORIES, loadLocomo } from '../memory/locomo.ts';
import { type CategoryRow, type MemoryBenchResult, runMemoryBench } from '../memory/locomo-bench.ts';
import { loadUseLiteEmbedder } from '../memory/use-lite-embedder.ts';

export interface BenchMemoryOptions {
  locomo: string;
  /** `use-lite` falls back to `hashing` (and says so) when the model cannot load. @default 'use-lite' */
  embedder?: 'use-lite' | 'hashing';
  json?: boolean;
  /** @default true */
  adversarial?: boolean;
  /** Only the first N conversations. */
  limit?: number;
  /** Prefix each indexed turn with its session date. @default false */
  datePrefix?: boolean;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}`;

function renderRow(label: string, r: CategoryRow, modes: readonly string[]): string {
  const cells = modes.flatMap((m) => [pct(r.recall[m]?.at5 ?? 0), pct(r.recall[m]?.at10 ?? 0)]);
  return `| ${label} | ${r.questions} | ${cells.join(' | ')} |`;
}

export function renderMemoryBench(result: MemoryBenchResult): string {
  const lines = [
    `LoCoMo evidence recall (%), ${result.conversations} conversations, ${result.turns} turns, embedder ${result.embedder}`,
    '',
    `| category | questions | ${result.modes.flatMap((m) => [`${m} @5`, `${m} @10`]).join(' | ')} |`,
    `|---|---:|${result.modes.map(() => '---:|---:|').join('')}`,
  ];
  for (const r of result.rows.filter((x) => x.category !== 5))
    lines.push(renderRow(`${r.category} ${LOCOMO_CATEGORIES[r.category] ?? ''}`.trim(), r, result.modes));
  lines.push(renderRow('**1–4 all**', result.overall, result.modes));
  for (const r of result.rows.filter((x) => x.category === 5))
    lines.push(renderRow('5 adversarial (separate)', r, result.modes));
  if (result.skippedNoEvidence > 0)
    lines.push('', `${result.skippedNoEvidence} questions skipped: no evidence id names a turn.`);
  return lines.join('\n');
}

async function pickEmbedder(kind: 'use-lite' | 'hashing', io: CliIo): Promise<Embedder> {
  if (kind === 'hashing') return hashingEmbedder(512);
  try {
    return await loadUseLiteEmbedder();
  } catch (error) {
    io.err(`${(error as Error).message}\nFalling back to the hashing embedder (hashing-512).`);
    return hashingEmbedder(512);
  }
}

/** Runs the benchmark and prints the table (or JSON); resolves to the result. */
export async function runBenchMemory(options: BenchMemoryOptions, io: CliIo): Promise<MemoryBenchResult> {
  const path = resolve(io.cwd, options.locomo);
  if (!existsSync(path))
    throw new CliError(`--locomo: ${path} does not exist (LoCoMo is loaded at run time, never shipped)`);
  let conversations = await loadLocomo(path).catch((error: unknown) => {
    throw new CliError(`--locomo: ${path} is not a LoCoMo file: ${String(error).slice(0, 300)}`);
  });
  if (options.limit !== undefined) conversations = conversations.slice(0, options.limit);
  const embedder = await pickEmbedder(options.embedder ?? 'use-lite', io);
  const result = await runMemoryBench({
    conversations,
    embedder,
    adversarial: options.adversarial ?? true,
    datePrefix: options.datePrefix ?? false,
  });
  io.out(options.json ? JSON.stringify(result, null, 2) : renderMemoryBench(result));
  return result;
}

interface Args {
  locomo: string;
  embedder: 'use-lite' | 'hashing';
  json: boolean;
  adversarial: boolean;
  limit?: number;
  'date-prefix': boolean;
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
        .option('date-prefix', {
          type: 'boolean',
          default: false,
          describe: 'index turns as "[date] speaker: text"',
        }) as Argv<Args>,
    handler: async (args) => {
      await runBenchMemory(
        {
          locomo: args.locomo,
          embedder: args.embedder,
          json: args.json,
          adversarial: args.adversarial,
          datePrefix: args['date-prefix'],
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
        },
        env.io,
      );
      env.exit(EXIT.ok);
    },
  };
}
