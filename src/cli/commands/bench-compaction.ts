/**
 * `ctxcheck bench compaction [--data dir] [--json] [--presets …] [--windows …] [--shares …] [--filter s] [--held-out] [--llm] [--ahead]`:
 * reference recall vs. tokens shed, per trajectory, as a mean per strategy (all cut points, by
 * reduction band, and per trajectories folder so held-out sources read apart).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  createDeterministicSummarizer,
  LIMITS,
  PRESET_NAMES,
  type PresetName,
  type Summarizer,
} from '../../core/index.ts';
import {
  bandOf,
  type CompactionBenchResult,
  type GoalResult,
  REDUCTION_BANDS,
  runCompactionBench,
  type StrategyMean,
} from '../bench-compaction/run.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { dataDirOption } from '../options.ts';

interface Args {
  data: string;
  json: boolean;
  presets: string;
  windows: string;
  shares: string;
  filter?: string;
  llm: boolean;
  ahead: boolean;
  'held-out': boolean;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** Facts answered from the summary alone, with the summary's size; `—` for a strategy without one. */
const factsCell = (facts: number | undefined, tokens: number | undefined) =>
  facts === undefined ? '—' : `${pct(facts)} (${Math.round(tokens ?? 0).toLocaleString('en-US')})`;

function meanTable(title: string, means: readonly StrategyMean[]): string[] {
  const lines = [
    `\n${title}`,
    '| strategy | cases | mean reduction | min reduction | mean recall | early facts from the summary (its tokens) | over budget |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of means)
    lines.push(
      `| ${m.strategy} | ${m.cases} | ${pct(m.reduction)} | ${pct(m.minReduction)} | ${pct(m.recall)} | ${factsCell(m.facts, m.summaryTokens)} | ${m.overBudget} |`,
    );
  return lines;
}

function goalTable(goals: readonly GoalResult[]): string[] {
  if (goals.length === 0) return [];
  const lines = [
    '\nGoals of the `default` preset: the best mean recall of a `default` strategy that sheds at least the band on every cut, within its window',
    '| group | goal | cuts | strategy | mean reduction | min reduction | mean recall | |',
    '|---|---|---:|---|---:|---:|---:|---|',
  ];
  for (const g of goals) {
    const goal = `≥ ${pct(g.band)} → recall ≥ ${pct(g.target)}`;
    const cuts = g.unreachable > 0 ? `${g.cases} (+${g.unreachable} unreachable)` : `${g.cases}`;
    if (g.strategy === undefined) {
      const why =
        g.cases === 0
          ? 'unreachable: the system prompt and the current step alone are larger'
          : 'no strategy sheds enough';
      lines.push(`| ${g.group} | ${goal} | ${cuts} | — | | | | ${why} |`);
      continue;
    }
    lines.push(
      `| ${g.group} | ${goal} | ${cuts} | ${g.strategy} | ${pct(g.reduction!)} | ${pct(g.minReduction!)} | ${pct(g.recall!)} | ${g.met ? 'met' : 'missed'} |`,
    );
  }
  return lines;
}

export function renderCompactionBench(result: CompactionBenchResult): string {
  const lines: string[] = [];
  const byCase = new Map<string, typeof result.rows>();
  for (const r of result.rows) byCase.set(r.case, [...(byCase.get(r.case) ?? []), r]);
  for (const [id, rows] of byCase) {
    lines.push(
      `\n${id} — ${rows[0]!.prefixTokens.toLocaleString('en-US')} tokens before the cut, ${rows[0]!.references} references used after it, ${rows[0]!.factCount ?? 0} facts in its first half`,
    );
    lines.push(
      '| strategy | tokens | reduction | recall | early facts from the summary (its tokens) |',
      '|---|---:|---:|---:|---:|',
    );
    for (const r of rows)
      lines.push(
        `| ${r.strategy} | ${r.tokens.toLocaleString('en-US')} | ${pct(r.reduction)} | ${pct(r.recall)} | ${factsCell(r.facts, r.summaryTokens)} |`,
      );
  }
  const all = result.means.filter((m) => m.group === 'all');
  lines.push(...meanTable(`Mean over ${result.cases} cut points`, all));
  lines.push(
    '\nBy reduction band (mean reduction over all cut points), best recall first',
    '| band | strategy | mean reduction | mean recall |',
    '|---|---|---:|---:|',
  );
  for (const band of REDUCTION_BANDS) {
    const inBand = all.filter((m) => bandOf(m.reduction) === band).sort((a, b) => b.recall - a.recall);
    for (const m of inBand)
      lines.push(`| ≥ ${pct(band)} | ${m.strategy} | ${pct(m.reduction)} | ${pct(m.recall)} |`);
  }
  lines.push(...goalTable(result.goals));
  if (result.ahead) {
    const a = result.ahead;
    lines.push(
      `\nAhead path: ${a.runs} preset runs, each with its compaction prepared one step before the cut; the cut's compaction used the prepared summary in ${a.ahead}, an inline one in ${a.inline}, none yet (being prepared) in ${a.pending}.`,
    );
  }
  for (const group of new Set(result.means.map((m) => m.group)))
    if (group !== 'all') {
      const ms = result.means.filter((m) => m.group === group);
      lines.push(
        ...meanTable(`Mean over the ${Math.max(...ms.map((m) => m.cases))} ${group} cut points`, ms),
      );
    }
  return lines.join('\n');
}

function list(value: string, what: string, parse: (s: string) => unknown): unknown[] {
  if (value.trim() === '') return [];
  return value.split(',').map((s) => {
    const v = parse(s.trim());
    if (v === undefined) throw new CliError(`--${what}: invalid value '${s.trim()}'`);
    return v;
  });
}

/**
 * The deterministic summarizer, or with `--llm` the configured provider without fallback (a bench
 * that silently fell back would report the wrong summarizer); no provider configured is an error.
 */
async function benchSummarizer(llm: boolean, env: CliEnv): Promise<Summarizer> {
  const offline = createDeterministicSummarizer();
  if (!llm) return offline;
  const { summarizerFromEnv } = await import('../../providers/index.ts');
  const chosen = summarizerFromEnv(env.io.env, { fallback: offline, wrap: false });
  if (!chosen.llm) throw new CliError(`--llm: no LLM provider configured (${chosen.message})`);
  env.io.err(`summarizer: ${chosen.message}`);
  return chosen.summarizer;
}

export function benchCompactionCommand(env: CliEnv): CommandModule<object, Args> {
  return {
    command: 'compaction',
    describe: 'Reference recall vs. tokens shed for each compaction strategy on real trajectories',
    builder: (y: Argv) =>
      y
        .option('data', {
          type: 'string',
          default: '../shared/data/trajectories',
          describe: 'trajectories folder',
        })
        .option('json', { type: 'boolean', default: false })
        .option('presets', {
          type: 'string',
          default: PRESET_NAMES.join(','),
          describe: 'presets at fixed windows',
        })
        .option('windows', {
          type: 'string',
          default: '16000,32000',
          describe: 'fixed context windows (tokens)',
        })
        .option('shares', {
          type: 'string',
          default: '0.05,0.1,0.2,0.3,0.5,0.7',
          describe: "default preset's window as a share of the prefix",
        })
        .option('llm', {
          type: 'boolean',
          default: false,
          describe: 'summarise with the LLM provider configured by the environment (CTXKIT_LLM_*)',
        })
        .option('ahead', {
          type: 'boolean',
          default: false,
          describe: 'prepare each compaction ahead (pipeline.ahead one step before the cut), then apply it',
        })
        .option('held-out', {
          type: 'boolean',
          default: false,
          describe: 'cut points outside the tuned set (runs from 40 messages, sub-agent transcripts)',
        })
        .option('filter', {
          type: 'string',
          describe: 'only cut points whose id contains this',
        }) as Argv<Args>,
    handler: async (args) => {
      const dataDir = resolve(env.io.cwd, args.data);
      dataDirOption(dataDir);
      if (!existsSync(dataDir)) throw new CliError(`--data: ${dataDir} does not exist`);
      const presets = list(args.presets, 'presets', (s) =>
        (PRESET_NAMES as readonly string[]).includes(s) ? s : undefined,
      ) as PresetName[];
      const windows = list(args.windows, 'windows', (s) =>
        /^\d+$/.test(s) && Number(s) >= 1000 && Number(s) <= LIMITS.tokens ? Number(s) : undefined,
      ) as number[];
      const shares = list(args.shares, 'shares', (s) => {
        const n = Number(s);
        return n > 0 && n < 1 ? n : undefined;
      }) as number[];
      const summarizer = await benchSummarizer(args.llm, env);
      const tty = !args.json && process.stderr.isTTY === true;
      const result = await runCompactionBench({
        dataDir,
        presets,
        windows,
        shares,
        summarizer,
        heldOut: args['held-out'],
        ahead: args.ahead,
        ...(args.filter !== undefined ? { filter: args.filter } : {}),
        onProgress: (done, total, label) => {
          if (!tty) return;
          const width = 30;
          const filled = Math.round((done / Math.max(1, total)) * width);
          process.stderr.write(
            `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label.slice(0, 50).padEnd(50)}`,
          );
          if (done === total) process.stderr.write('\n');
        },
      });
      if (result.cases === 0) throw new CliError(`no cut points found in ${dataDir}`);
      env.io.out(args.json ? JSON.stringify(result, null, 2) : renderCompactionBench(result));
      env.exit(EXIT.ok);
    },
  };
}
