/**
 * `createCli(argv, env)`: the yargs 18 program. Each command parses, validates, calls core and
 * renders; exit codes are named in `io.ts` (0 pass, 1 expectation failed, 2 usage or invalid input).
 * The `bench` group carries the token and memory benchmarks when their modules are present.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yargs, { type Argv, type CommandModule } from 'yargs';
import pkg from '../../package.json' with { type: 'json' };
import { closestName } from '../core/index.ts';
import { compactCommand } from './commands/compact.ts';
import { inspectCommand } from './commands/inspect.ts';
import { replayCommand } from './commands/replay.ts';
import { validateCommand } from './commands/validate.ts';
import {
  type CliEnv,
  CliError,
  type CliIo,
  EXIT,
  type ExitCode,
  missingPackageMessage,
  processIo,
} from './io.ts';

// biome-ignore lint/suspicious/noExplicitAny: commands from other modules carry their own option types.
type AnyCommand = CommandModule<any, any>;

const VERSION: string = pkg.version;

/** A usage error found by yargs (exit 2). */
class UsageError extends Error {}

/** The first option named twice in `argv` (`--x 1 --x 2`, `--x=1 --no-x`), up to a bare `--`. */
function repeatedOption(argv: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const a of argv) {
    if (a === '--') break;
    if (!a.startsWith('--')) continue;
    const name = a.slice(2).split('=')[0]!.replace(/^no-/, '');
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * The bench subcommands, each loaded only when `bench` is asked for (they pull in tokenizers and
 * SQLite). The imports are literal so that the bundled CLI carries them as lazy chunks.
 */
const BENCH_MODULES: Array<[string, string, () => Promise<Record<string, unknown>>]> = [
  ['tokens', 'benchTokensCommand', () => import('./commands/bench-tokens.ts')],
  ['memory', 'benchMemoryCommand', () => import('./commands/bench-memory.ts')],
  ['compaction', 'benchCompactionCommand', () => import('./commands/bench-compaction.ts')],
  ['recall', 'benchRecallCommand', () => import('./commands/bench-recall.ts')],
  ['cache', 'benchCacheCommand', () => import('./commands/bench-cache.ts')],
];

/** The optional packages a benchmark cannot load without (the others it names when it runs). */
const BENCH_NEEDS: Record<string, readonly string[]> = { memory: ['better-sqlite3', 'drizzle-orm'] };

/** Whether a package resolves from the CLI (the installed package, or the repository). */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a benchmark could not load: every package it needs that is missing, in one line (the import
 * error names only the first one it hit: drizzle-orm, where better-sqlite3 is missing too).
 */
export function benchUnavailable(
  what: string,
  error: unknown,
  isInstalled: (name: string) => boolean = installed,
): string {
  const missing = (BENCH_NEEDS[what] ?? []).filter((n) => !isInstalled(n));
  if (missing.length === 1)
    return `the optional package ${missing[0]} is not installed (npm install ${missing[0]})`;
  if (missing.length > 1)
    return `the optional packages ${missing.join(' and ')} are not installed (npm install ${missing.join(' ')})`;
  return missingPackageMessage(error) ?? (error as Error).message;
}

/**
 * A bench subcommand module exports a command object, or a factory taking the CLI env. Only the
 * benchmark named on the command line is loaded (all of them for `bench --help`): one whose optional
 * packages are missing stays listed, and running it gives its one-line error, exit 2; it prints nothing
 * when another benchmark runs.
 */
async function benchCommands(env: CliEnv, argv: readonly string[]): Promise<AnyCommand[]> {
  const chosen = BENCH_MODULES.filter(([what]) => what === argv[1]);
  const out: AnyCommand[] = [];
  for (const [what, name, load] of chosen.length > 0 ? chosen : BENCH_MODULES) {
    let mod: Record<string, unknown>;
    try {
      mod = await load();
    } catch (e) {
      const reason = benchUnavailable(what, e);
      out.push({
        command: what,
        describe: `(unavailable: ${reason})`,
        builder: (y: Argv) => y.strict(false),
        handler: () => {
          throw new CliError(`bench ${what} unavailable: ${reason}`);
        },
      });
      continue;
    }
    const exported = mod[name];
    if (typeof exported === 'function') out.push((exported as (env: CliEnv) => AnyCommand)(env));
    else if (exported && typeof exported === 'object') out.push(exported as AnyCommand);
  }
  return out;
}

/** `<transcript>` / `<globs..>` of a command string, in order. */
function positionals(command: string): string[] {
  return [...command.matchAll(/<([^>]+)>/g)].map((m) => m[1]!.replace(/\.\.$/, ''));
}

/**
 * One line for a yargs usage error: "missing <transcript>" instead of "Not enough non-option
 * arguments", and the multi-line "Invalid values" message folded onto one line.
 */
function usageMessage(msg: string, argv: readonly string[], commands: readonly AnyCommand[]): string {
  const notEnough = /^Not enough non-option arguments: got (\d+), need at least (\d+)/.exec(msg);
  if (notEnough) {
    const words = argv.filter((a) => !a.startsWith('-'));
    const command = commands.find((c) => String(c.command).split(' ')[0] === words[0]);
    const names = command ? positionals(String(command.command)) : [];
    const missing = names.slice(Number(notEnough[1]), Number(notEnough[2]));
    if (missing.length > 0) return `missing ${missing.map((n) => `<${n}>`).join(' ')}`;
  }
  const conflict = /^Arguments (\S+) and (\S+) are mutually exclusive$/.exec(msg.trim());
  if (conflict) return `--${conflict[1]} and --${conflict[2]}: choose one`;
  const invalid = /^Invalid values:\s*Argument: ([^,]+), Given: (.+), Choices: (.+)$/s.exec(msg.trim());
  if (invalid)
    return `--${invalid[1]}: ${invalid[2]!.trim()} is not one of ${invalid[3]!.replace(/\s+/g, ' ').trim()}`;
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * "Unknown argument: jsno" → "unknown option --jsno; did you mean --json?" when a known option of the
 * command is within two edits (a third of the name for short names); the message as it was otherwise.
 */
export function withSuggestion(message: string, known: readonly string[], argv: readonly string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(message);
  if (!m) return message;
  const names = m[1]!.split(', ').map((n) => n.trim());
  const isOption = (name: string) =>
    argv.some((a) => a.replace(/=.*$/, '').replace(/^-+/, '') === name && a.startsWith('-'));
  // A stray word (not an option) keeps yargs' wording.
  if (!names.every(isOption)) return message;
  const candidates = known.filter((k) => k.length >= 2 && k !== '$0' && k !== '_');
  const parts = names.map((name) => {
    const bare = name.replace(/^-+/, '');
    const best = closestName(bare, candidates);
    return best !== undefined
      ? `unknown option --${bare}; did you mean --${best}?`
      : `unknown option --${bare}`;
  });
  return parts.join('; ');
}

/**
 * The options in `argv` that the command does not know (`--jsno` in `inspect --jsno file`, where yargs
 * takes `file` as the option's value and reports the missing positional instead).
 */
export function unknownOptions(argv: readonly string[], known: readonly string[]): string[] {
  const names = new Set(known);
  const out: string[] = [];
  for (const a of argv) {
    if (a === '--') break;
    if (!/^--?[A-Za-z]/.test(a)) continue;
    const name = a.replace(/^-+/, '').replace(/=.*$/, '');
    const negated = name.startsWith('no-') ? name.slice(3) : undefined;
    const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (names.has(name) || names.has(camel) || (negated !== undefined && names.has(negated))) continue;
    out.push(name);
  }
  return out;
}

/** The CLI page of the docs: `docs/cli.md` of the installed package (or the repository). */
function docsPage(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const page = join(dir, 'docs', 'cli.md');
    if (existsSync(page)) return page;
    dir = dirname(dir);
  }
  return 'docs/cli.md of the ctxkit repository';
}

const EXAMPLES: ReadonlyArray<[string, string]> = [
  ["$0 replay 'fixtures/**/*.json'", 'Replay every fixture (CI): exit 0 pass, 1 fail, 2 usage'],
  ['$0 inspect session.jsonl --window 128000', 'What a transcript holds and what the next pre-flight does'],
  ['$0 inspect session.jsonl --window 60000 --html view.html', 'The same as one offline HTML page'],
  [
    '$0 compact session.jsonl --window 32000 --out compacted.json',
    'Compact it; the journal goes to compacted.json.journal.json',
  ],
  ['$0 bench tokens', 'Token estimation against real tokenizers'],
];

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
      const bench = argv[0] === 'bench' ? await benchCommands(env, argv) : [];
      const commands: AnyCommand[] = [
        replayCommand(env) as AnyCommand,
        validateCommand(env) as AnyCommand,
        inspectCommand(env) as AnyCommand,
        compactCommand(env) as AnyCommand,
      ];
      const benchNames = BENCH_MODULES.map(([what]) => what);
      const asked = argv[0] === 'bench' ? argv[1] : undefined;
      const benchGroup = {
        command: 'bench <what>',
        describe: `Benchmarks (${benchNames.join(', ')})`,
        builder: (y: Argv) => {
          let g = y;
          for (const c of bench) g = g.command(c);
          // Reached with a word that is no benchmark (`bench nosuch`): name it and the choices.
          const choices = `${benchNames.slice(0, -1).join(', ')} or ${benchNames.at(-1)}`;
          return g.demandCommand(
            1,
            asked !== undefined && !asked.startsWith('-')
              ? `unknown benchmark ${asked}; choose ${choices}`
              : `choose a benchmark: ${choices}`,
          );
        },
        handler: () => {},
      } as AnyCommand;
      commands.push(benchGroup);
      let program: Argv = yargs([...argv])
        .scriptName('ctxcheck')
        .usage('$0 <command> [options]');
      for (const [example, what] of EXAMPLES) program = program.example(example, what);
      program = program.epilogue(
        `Transcripts: Claude Code JSONL, OpenAI Chat and Responses, Anthropic or Gemini JSON.\nDocs: ${docsPage()}`,
      );
      for (const c of commands) program = program.command(c);
      program = program
        // Every option takes one value: one given twice would reach its command as an array.
        .middleware(() => {
          const twice = repeatedOption(argv);
          if (twice !== undefined) throw new UsageError(`--${twice} given more than once`);
        }, true)
        .demandCommand(1, 'choose a command')
        .strict()
        .help()
        .version(VERSION)
        .wrap(Math.min(110, process.stdout.columns ?? 100))
        .exitProcess(false)
        // Throwing here stops yargs before the command's handler runs: a usage error (unknown flag,
        // bad choice, missing positional) produces one line and exit 2, never the command's output.
        .fail((msg, err) => {
          if (err) throw err;
          // `getOptions()` exists on the instance though @types/yargs does not declare it.
          const options = (
            program as unknown as { getOptions(): { key?: Record<string, unknown> } }
          ).getOptions();
          const known = Object.keys(options.key ?? {});
          // A mistyped option is the error to name, before what it caused: the positional it took as
          // its value (`inspect --jsno file`: "missing <transcript>"), the option it stood for
          // (`compact --windw 1000 …`: "Missing required argument: window").
          const stray = unknownOptions(argv, known);
          if (stray.length > 0) msg = `Unknown arguments: ${stray.join(', ')}`;
          throw new UsageError(withSuggestion(usageMessage(msg, argv, commands), known, argv));
        });
      try {
        await program.parseAsync();
      } catch (e) {
        if (e instanceof UsageError) {
          io.err(`ctxcheck: ${e.message} (ctxcheck --help for usage)`);
          env.exit(EXIT.invalid);
          return code;
        }
        if (e instanceof CliError) {
          io.err(`ctxcheck: ${e.message}`);
          env.exit(e.exitCode);
          return code;
        }
        const message = missingPackageMessage(e) ?? (e instanceof Error ? e.message : String(e));
        io.err(`ctxcheck: ${message}`);
        env.exit(EXIT.invalid);
        return code;
      }
      return code;
    },
  };
}
