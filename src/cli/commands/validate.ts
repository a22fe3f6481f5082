/** `ctxcheck validate <globs..>`: checks fixture files against the schema without running them. */
import type { Argv, CommandModule } from 'yargs';
import { type CliEnv, EXIT } from '../io.ts';
import { renderProblem } from '../render/replay-report.ts';
import { collectFixtures } from './replay.ts';

export interface ValidateOptions {
  globs: string[];
  json?: boolean;
}

export async function validate(options: ValidateOptions, env: CliEnv): Promise<void> {
  const { io } = env;
  const { loaded, problems } = await collectFixtures(options.globs, io.cwd);
  if (options.json) io.out(JSON.stringify({ valid: loaded.map((l) => l.file), problems }, null, 2));
  else {
    for (const l of loaded) io.out(`VALID  ${l.file}  ${l.fixture.name}`);
    for (const p of problems) io.out(renderProblem(p));
    io.out(`${loaded.length} valid, ${problems.length} invalid`);
  }
  // Nothing to validate (an empty folder, a wrong one) is not a pass: replay says the same.
  if (loaded.length === 0 && problems.length === 0) io.err('no fixture matched');
  env.exit(problems.length > 0 || loaded.length === 0 ? EXIT.invalid : EXIT.ok);
}

export function validateCommand(env: CliEnv): CommandModule<object, ValidateOptions> {
  return {
    command: 'validate <globs..>',
    describe: 'Validate fixture files against the fixture schema',
    builder: (y: Argv) =>
      y
        .positional('globs', {
          type: 'string',
          array: true,
          demandOption: true,
          describe: 'Fixture files, directories or globs',
        })
        .option('json', {
          type: 'boolean',
          describe: 'Print results as JSON',
        }) as unknown as Argv<ValidateOptions>,
    handler: (argv) => validate(argv, env),
  };
}
