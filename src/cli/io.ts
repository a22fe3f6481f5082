/**
 * What a command needs from the outside world, injected so tests can capture output: two text
 * streams, the working directory, the environment and the exit code the command settles on.
 */
export const EXIT = {
  /** Everything passed. */
  ok: 0,
  /** At least one expectation failed. */
  failed: 1,
  /** Usage error, or invalid fixture / input file. */
  invalid: 2,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Whether stdout is a colour terminal. */
  color: boolean;
}

export interface CliEnv {
  io: CliIo;
  /** Records the command's exit code (the highest wins). */
  exit(code: ExitCode): void;
}

/** The status of a tool killed by SIGPIPE (128 + 13), which `… | head` gives `cat` or `git log`. */
export const BROKEN_PIPE_EXIT = 141;

export function processIo(): CliIo {
  // `ctxcheck … | head`: the reader has gone. Stop quietly with SIGPIPE's status (not 0: under
  // `set -o pipefail` a replay cut short must not read as passed), not an unhandled EPIPE's trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(BROKEN_PIPE_EXIT);
  });
  return {
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    cwd: process.cwd(),
    env: process.env,
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
  };
}

/** An in-memory io for tests. */
export function bufferIo(options: { cwd?: string; env?: Record<string, string | undefined> } = {}): CliIo & {
  stdout: () => string;
  stderr: () => string;
} {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      err += t.endsWith('\n') ? t : `${t}\n`;
    },
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    color: false,
    stdout: () => out,
    stderr: () => err,
  };
}

/** A CLI fault with its exit code and a one-line message (never a stack trace). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.invalid,
  ) {
    super(message);
  }
}

/**
 * "the optional package X is not installed (npm install X)" when `error` is a failed import of a
 * package (not of a relative file); undefined otherwise.
 */
export function missingPackageMessage(error: unknown): string | undefined {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'MODULE_NOT_FOUND') return undefined;
  const m = /Cannot find (?:package|module) '([^']+)'/.exec(String(e.message));
  const spec = m?.[1];
  if (spec === undefined || spec.startsWith('.') || spec.startsWith('/')) return undefined;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return `the optional package ${name} is not installed (npm install ${name})`;
}
