/**
 * `ctxcheck bench cache [--data dir] [--windows 32000,128000] [--tables anthropic,openai[,gpt-5.6]] [--level share] [--filter s] [--json] [--check]`:
 * real agent sessions replayed step by step through ctxkit's incremental context, every send counted
 * exactly (o200k) and priced in dollars with the provider's prompt cache (cache writes included),
 * beside append-then-compact, a sliding window and no management, in the same run. `--check` exits 1
 * when a goal is missed. `--level` prices ctxkit compacting at another share of usable input (the
 * references keep the default level): the trade between money and context kept verbatim.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_TABLES, TABLE_IDS } from '../bench-cache/prices.ts';
import { GOAL_RATIO, GOAL_REWRITES_PER_1000, renderCacheBench } from '../bench-cache/render.ts';
import { cacheGoals, runCacheBench } from '../bench-cache/run.ts';
import { loadCacheSessions } from '../bench-cache/sessions.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { dataDirOption } from '../options.ts';

interface Args {
  data: string;
  windows: string;
  tables: string;
  level?: string;
  filter?: string;
  json: boolean;
  check: boolean;
}

/**
 * `--level` bounds: above the fill `default` compacts down to (30% of usable input) with room for a
 * cycle, and no higher than usable input itself.
 */
const LEVEL = { min: 0.4, max: 1 } as const;

function share(raw: string): number {
  const n = /^\d*\.?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(n >= LEVEL.min && n <= LEVEL.max))
    throw new CliError(
      `--level: expected a share of usable input from ${LEVEL.min} to ${LEVEL.max}, got '${raw}'`,
    );
  return n;
}

function list<T>(value: string, what: string, parse: (s: string) => T | undefined): T[] {
  const out = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const v = parse(s);
      if (v === undefined) throw new CliError(`--${what}: invalid value '${s}'`);
      return v;
    });
  if (out.length === 0) throw new CliError(`--${what}: expected at least one value`);
  return out;
}

export function benchCacheCommand(env: CliEnv): CommandModule<object, Args> {
  return {
    command: 'cache',
    describe: 'Cost with the provider’s prompt cache: ctxkit beside append-then-compact on real sessions',
    builder: (y: Argv) =>
      y
        .option('data', {
          type: 'string',
          default: '../shared/data/trajectories/claude-code',
          describe: 'folder of trajectories (one JSON session each)',
        })
        .option('windows', { type: 'string', default: '32000,128000', describe: 'context windows (tokens)' })
        .option('tables', {
          type: 'string',
          default: DEFAULT_TABLES.join(','),
          describe: `price tables (${TABLE_IDS.join(', ')})`,
        })
        .option('level', {
          type: 'string',
          describe: `ctxkit's auto-compact level, a share of usable input from ${LEVEL.min} to ${LEVEL.max} (default: the budget's; the references keep it)`,
        })
        .option('filter', { type: 'string', describe: 'only sessions whose name contains this' })
        .option('json', { type: 'boolean', default: false })
        .option('check', {
          type: 'boolean',
          default: false,
          describe: 'exit 1 when a goal is missed',
        }) as Argv<Args>,
    handler: async (args) => {
      const dir = resolve(env.io.cwd, args.data);
      dataDirOption(dir);
      if (!existsSync(dir)) throw new CliError(`--data: ${dir} does not exist`);
      const windows = list(args.windows, 'windows', (s) =>
        /^\d+$/.test(s) && Number(s) >= 8000 && Number(s) <= 10_000_000 ? Number(s) : undefined,
      );
      const tables = list(args.tables, 'tables', (s) => TABLE_IDS.find((t) => t === s));
      const level = args.level === undefined ? undefined : share(args.level);
      const sessions = loadCacheSessions(dir, args.filter);
      if (sessions.length === 0) throw new CliError(`no session with two steps or more in ${dir}`);
      const tty = !args.json && process.stderr.isTTY === true;
      const rows = await runCacheBench({
        sessions,
        windows,
        tables,
        ...(level !== undefined ? { level } : {}),
        onProgress: (done, total, label) => {
          if (tty)
            process.stderr.write(`\r${done}/${total} ${label.padEnd(40)}${done === total ? '\n' : ''}`);
        },
      });
      const goals = cacheGoals(rows);
      env.io.out(args.json ? JSON.stringify({ rows, goals }, null, 2) : renderCacheBench(rows, tables));
      const met = goals.worstRatio <= GOAL_RATIO && goals.rewritesPer1000 <= GOAL_REWRITES_PER_1000;
      env.exit(args.check && !met ? EXIT.failed : EXIT.ok);
    },
  };
}
