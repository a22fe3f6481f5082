/**
 * `ctxcheck bench recall [--data dir] [--windows 32000,64000] [--max-tokens 2000] [--json]`: replays
 * each Claude Code session of the folder that yields ten early facts (bench-recall/facts.ts) into a
 * context with the recall tools on, and prints per window how many facts the new turn's prompt still
 * holds beside how many the tools return within their budget. No session with ten facts (or no
 * folder) is a one-line message and exit 0: the data is not part of the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { fromOpenAI } from '../../core/index.ts';
import { earlyFacts, FACT_COUNT } from '../bench-recall/facts.ts';
import { measureRecall, type RecallBenchRow } from '../bench-recall/run.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { dataDirOption } from '../options.ts';

interface Args {
  data: string;
  windows: string;
  'max-tokens': number;
  json: boolean;
}

export const DEFAULT_RECALL_DATA = '../shared/data/trajectories/claude-code';

function windowsOf(text: string): number[] {
  const out = text.split(',').map((s) => s.trim());
  const bad = out.find((s) => !/^\d+$/.test(s) || Number(s) < 4096 || Number(s) > 10_000_000);
  if (bad !== undefined || out.length === 0 || out.length > 16)
    throw new CliError(
      `--windows: expected 1–16 integers from 4096 to 10000000, got ${JSON.stringify(bad ?? text)}`,
    );
  return out.map(Number);
}

function render(session: string, rows: readonly RecallBenchRow[]): string {
  const lines = [
    `${session}`,
    '| window | facts in the prompt | facts the tools return | facts the model has | tool calls | answer tokens | prompt / usable |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.window.toLocaleString('en-US')} | ${r.inPrompt}/${r.facts} | ${r.returned}/${r.facts} | ${r.available}/${r.facts} | ${r.calls} | ${r.toolTokens.toLocaleString('en-US')} | ${r.promptTokens.toLocaleString('en-US')} / ${r.usable.toLocaleString('en-US')} |`,
    );
  for (const r of rows)
    for (const d of r.detail)
      lines.push(
        `  ${r.window}: ${d.kind} ${JSON.stringify(d.value)}: ${d.inPrompt ? 'in prompt' : 'not in prompt'}, ${d.via === 'missed' || d.via === 'prompt' ? 'not returned by the tools' : `returned by ${d.via}`}`,
      );
  return lines.join('\n');
}

export function benchRecallCommand(env: CliEnv): CommandModule<object, Args> {
  return {
    command: 'recall',
    describe: 'Early facts of real sessions: in the compacted prompt vs. returned by the recall tools',
    builder: (y: Argv) =>
      y
        .option('data', {
          type: 'string',
          default: DEFAULT_RECALL_DATA,
          describe: 'folder of Claude Code sessions (JSON)',
        })
        .option('windows', { type: 'string', default: '32000,64000', describe: 'context windows (tokens)' })
        .option('max-tokens', { type: 'number', default: 2000, describe: 'tokens one tool answer may take' })
        .option('json', { type: 'boolean', default: false }) as Argv<Args>,
    handler: async (args) => {
      const windows = windowsOf(args.windows);
      const max = args['max-tokens'];
      if (!Number.isInteger(max) || max < 50 || max > 100_000)
        throw new CliError(`--max-tokens: expected an integer from 50 to 100000, got ${String(max)}`);
      const dir = resolve(env.io.cwd, args.data);
      dataDirOption(dir);
      if (!existsSync(dir)) {
        env.io.err(`bench recall: skipped, no sessions at ${dir} (see ../shared/data/README.md; --data DIR)`);
        env.exit(EXIT.ok);
        return;
      }
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.json') && !f.includes('__'))
        .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
      const results: { session: string; facts: ReturnType<typeof earlyFacts>; rows: RecallBenchRow[] }[] = [];
      for (const file of files) {
        let raw: { messages?: unknown };
        try {
          raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { messages?: unknown };
        } catch {
          throw new CliError(`${file}: not valid JSON`);
        }
        if (!Array.isArray(raw.messages)) throw new CliError(`${file}: expected { messages: [...] }`);
        const messages = fromOpenAI(raw.messages, { path: file });
        const facts = earlyFacts(messages);
        if (facts.length < FACT_COUNT) {
          env.io.err(
            `bench recall: ${file}: ${facts.length} of ${FACT_COUNT} facts found by the rule; left out`,
          );
          continue;
        }
        const rows: RecallBenchRow[] = [];
        for (const w of windows) rows.push(await measureRecall(messages, facts, w, max));
        results.push({ session: file, facts, rows });
      }
      if (results.length === 0) {
        env.io.err(`bench recall: skipped, no session in ${dir} yields ${FACT_COUNT} facts`);
        env.exit(EXIT.ok);
        return;
      }
      env.io.out(
        args.json
          ? JSON.stringify({ maxTokens: max, sessions: results }, null, 2)
          : results.map((r) => render(r.session, r.rows)).join('\n\n'),
      );
      env.exit(EXIT.ok);
    },
  };
}
