/**
 * `ctxcheck replay <globs..>`: plays fixtures through `runFixture()` and reports one line per
 * fixture, a diff per failed expectation and `N passed, N failed`. Exit 0 all passed, 1 an
 * expectation failed, 2 a usage error or an invalid fixture.
 */
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { FIXTURE_PRESETS, runFixture } from '../../core/index.ts';
import { displayPath, expandFiles } from '../files.ts';
import { type FixtureProblem, type LoadedFixture, loadFixture } from '../fixture-loader.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { writeOptionFile } from '../options.ts';
import { pipelineFactory } from '../pipeline.ts';
import { renderJunit } from '../render/junit.ts';
import { type ReplayOutcome, renderOutcome, renderProblem, summaryLine } from '../render/replay-report.ts';

export interface ReplayOptions {
  globs: string[];
  json?: boolean;
  junit?: string;
  preset?: string;
  filter?: string;
}

function matcher(filter: string | undefined): (text: string) => boolean {
  if (!filter) return () => true;
  const m = /^\/(.+)\/([a-z]*)$/.exec(filter);
  if (m) {
    let re: RegExp;
    try {
      re = new RegExp(m[1]!, m[2]);
    } catch (e) {
      const reason = (e as Error).message.replace(
        /^Invalid (?:regular expression|flags)[^:]*: \/.*\/[a-z]*: /,
        '',
      );
      throw new CliError(`--filter: ${filter} is not a regular expression: ${reason}`);
    }
    return (t) => re.test(t);
  }
  return (t) => t.includes(filter);
}

/** Loads and filters fixtures; shared with `validate`. */
export async function collectFixtures(
  globs: readonly string[],
  cwd: string,
  filter?: string,
): Promise<{ loaded: Array<Extract<LoadedFixture, { fixture: unknown }>>; problems: FixtureProblem[] }> {
  const files = await expandFiles(globs, cwd);
  const match = matcher(filter);
  const loaded: Array<Extract<LoadedFixture, { fixture: unknown }>> = [];
  const problems: FixtureProblem[] = [];
  for (const file of files) {
    const l = await loadFixture(file);
    const shown = displayPath(file, cwd);
    if ('problem' in l) problems.push({ ...l.problem, file: shown });
    else if (match(l.fixture.name) || match(shown)) loaded.push({ ...l, file: shown });
  }
  return { loaded, problems };
}

export async function replay(options: ReplayOptions, env: CliEnv): Promise<void> {
  const { io } = env;
  const { loaded, problems } = await collectFixtures(options.globs, io.cwd, options.filter);
  const outcomes: ReplayOutcome[] = [];
  const loadProblems = problems.length;
  const createPipeline = await pipelineFactory();
  for (const { file, fixture } of loaded) {
    const started = Date.now();
    const runOptions: Parameters<typeof runFixture>[1] = { createPipeline };
    if (options.preset) runOptions.preset = options.preset;
    const result = await runFixture(fixture, runOptions);
    if (result.invalid) {
      const f = result.failures[0];
      const problem: FixtureProblem = {
        file,
        path: f?.path ?? 'preset',
        reason: f?.message ?? 'rejected by the pipeline',
      };
      problems.push(problem);
      if (!options.json) io.out(renderProblem(problem));
      continue;
    }
    const outcome: ReplayOutcome = {
      file,
      name: result.name,
      passed: result.passed,
      failures: result.failures,
      ms: Date.now() - started,
    };
    outcomes.push(outcome);
    if (!options.json) for (const line of renderOutcome(outcome)) io.out(line);
  }
  const passed = outcomes.filter((o) => o.passed).length;
  const failed = outcomes.length - passed;
  if (options.json) {
    io.out(
      JSON.stringify({ passed, failed, invalid: problems.length, fixtures: outcomes, problems }, null, 2),
    );
  } else {
    for (const p of problems.slice(0, loadProblems)) io.out(renderProblem(p));
    io.out(summaryLine(passed, failed) + (problems.length > 0 ? `\n${problems.length} invalid` : ''));
  }
  if (options.junit)
    await writeOptionFile('--junit', resolve(io.cwd, options.junit), renderJunit(outcomes, problems));
  if (problems.length > 0) env.exit(EXIT.invalid);
  else if (failed > 0) env.exit(EXIT.failed);
  else if (outcomes.length === 0) {
    io.err('no fixture matched');
    env.exit(EXIT.invalid);
  } else env.exit(EXIT.ok);
}

export function replayCommand(env: CliEnv): CommandModule<object, ReplayOptions> {
  return {
    command: 'replay <globs..>',
    describe: 'Replay fixture conversations and check their expectations',
    builder: (y: Argv) =>
      y
        .positional('globs', {
          type: 'string',
          array: true,
          demandOption: true,
          describe: 'Fixture files, directories or globs',
        })
        .option('json', { type: 'boolean', describe: 'Print results as JSON' })
        .option('junit', { type: 'string', describe: 'Also write a JUnit XML report to this file' })
        .option('preset', {
          type: 'string',
          choices: FIXTURE_PRESETS,
          describe: 'Run every fixture under this preset',
        })
        .option('filter', {
          type: 'string',
          describe: 'Only fixtures whose name or path contains this (or matches /regex/)',
        }) as unknown as Argv<ReplayOptions>,
    handler: (argv) => replay(argv, env),
  };
}
