/**
 * `createCli(argv, env)`: the yargs 18 program. Each command parses, validates, calls core and
 * renders; exit codes are named in `io.ts` (0 pass, 1 expectation failed, 2 usage or invalid input).
 * The `bench` group carries the token and memory benchmarks when their modules are present.
 */
import yargs, { type Argv, type CommandModule } from 'yargs';
import { compactCommand } from './commands/compact.ts';
import { inspectCommand } from './commands/inspect.ts';
import { replayCommand } from './commands/replay.ts';
import { validateCommand } from './commands/validate.ts';
import { type CliEnv, CliError, type CliIo, EXIT, type ExitCode, processIo } from './io.ts';

// biome-ignore lint/suspicious/noExplicitAny: commands from other modules carry their own option types.
type AnyCommand = CommandModule<any, any>;

/** A bench subcommand module exports a command object, or a factory taking the CLI env. */
async function benchCommands(env: CliEnv): Promise<AnyCommand[]> {
  const out: AnyCommand[] = [];
  const modules: Array<[string, string]> = [
    ['./commands/bench-tokens.ts', 'benchTokensCommand'],
    ['./commands/bench-memory.ts', 'benchMemoryCommand'],
    ['./commands/bench-compaction.ts', 'benchCompactionCommand'],
  ];
  for (const [path, name] of modules) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(path)) as Record<string, unknown>;
    } catch (e) {
      const missing =
        (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
        String((e as Error).message).includes(path.slice(2));
      // A broken benchmark module must not take the other commands down with it.
      if (!missing)
        env.io.err(
          `ctxcheck: ${path.replace('./commands/', 'bench ').replace('.ts', '')} unavailable: ${(e as Error).message}`,
        );
      continue;
    }
    const exported = mod[name];
    if (typeof exported === 'function') out.push((exported as (env: CliEnv) => AnyCommand)(env));
    else if (exported && typeof exported === 'object') out.push(exported as AnyCommand);
  }
  return out;
}

export interface Cli {
  /** Parses `argv`, runs the command and resolves to its exit code. */
  run(): Promise<ExitCode>;
}

export function createCli(argv: readonly string[], io: CliIo = processIo()): Cli {
  let code: ExitCode = EXIT.ok;
  const env: CliEnv = {
    io,
    exit(c) {
      if (c > code) code = c;
    },
  };
  return {
    async run() {
      // Benchmarks load only when asked for: they pull in tokenizers and SQLite.
      const bench = argv[0] === 'bench' ? await benchCommands(env) : [];
      let failure: { message: string; code: ExitCode } | undefined;
      const program: Argv = yargs([...argv])
        .scriptName('ctxcheck')
        .usage('$0 <command> [options]')
        .command(replayCommand(env) as AnyCommand)
        .command(validateCommand(env) as AnyCommand)
        .command(inspectCommand(env) as AnyCommand)
        .command(compactCommand(env) as AnyCommand)
        .command({
          command: 'bench <what>',
          describe: 'Benchmarks (tokens, memory, compaction)',
          builder: (y: Argv) => {
            let g = y;
            for (const c of bench) g = g.command(c);
            return g.demandCommand(1, 'choose a benchmark');
          },
          handler: () => {},
        } as AnyCommand)
        .demandCommand(1, 'choose a command')
        .strict()
        .help()
        .version(false)
        .wrap(Math.min(110, process.stdout.columns ?? 100))
        .exitProcess(false)
        .fail((msg, err) => {
          if (err && !(err instanceof CliError)) throw err;
          failure =
            err instanceof CliError
              ? { message: err.message, code: err.exitCode }
              : { message: msg, code: EXIT.invalid };
        });
      try {
        await program.parseAsync();
      } catch (e) {
        if (e instanceof CliError) {
          io.err(`ctxcheck: ${e.message}`);
          env.exit(e.exitCode);
          return code;
        }
        const message = e instanceof Error ? e.message : String(e);
        io.err(`ctxcheck: ${message}`);
        env.exit(EXIT.invalid);
        return code;
      }
      const f = failure as { message: string; code: ExitCode } | undefined;
      if (f) {
        io.err(`ctxcheck: ${f.message}${f.code === EXIT.invalid ? '\nRun ctxcheck --help for usage.' : ''}`);
        env.exit(f.code);
      }
      return code;
    },
  };
}
