/**
 * `ctxcheck compact <transcript> --preset X --window N`: runs the pre-flight (or, with `--force`, a
 * manual compaction) on a transcript and writes the compacted conversation and the journal.
 * Spilled tool outputs go to the filesystem blob store (`--blobs`). Exits 1 when the result is still
 * at the `block` level (it would not fit; `--allow-block` accepts it). The providers' `usage` records
 * are dropped from the output: they counted the uncompacted context, and read back as the anchor of
 * the compacted one they would be wrong (`inspect` reported 88 tokens for a 5,336-token result).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  FIXTURE_COUNTERS,
  FIXTURE_PRESETS,
  journalFor,
  type Message,
  randomIds,
  systemClock,
} from '../../core/index.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { sameFile, windowOption, writeOptionFile } from '../options.ts';
import { chooseSummarizer, counterOption, pipelineFactory } from '../pipeline.ts';
import {
  fileKeeper,
  loadTranscript,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../transcripts/load-transcript.ts';
import {
  defaultOutputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
  serializeTranscript,
} from '../transcripts/write-transcript.ts';

/**
 * The default journal, `<out>.journal.json`, beside a file written with `--out`; none when `--out` is a
 * device or a pipe (`/dev/null`, `/dev/stdout`), where no file can sit beside it.
 */
async function besideOut(out: string | undefined, cwd: string): Promise<string | undefined> {
  if (!out) return undefined;
  const written = await stat(resolve(cwd, out)).catch(() => undefined);
  return written && !written.isFile() ? undefined : `${out}.journal.json`;
}

/**
 * Refuses an `--out` or journal file that is the transcript itself (`./s.json`, a symlink to it): the
 * journal says where each original is — "message m1 is message 2 of s.json, unchanged" — and writing
 * there would replace the originals with the compacted result.
 */
async function refuseOverwrite(options: CompactOptions, cwd: string): Promise<void> {
  const source = resolve(cwd, options.transcript);
  const journal = options.journal ?? (options.out === undefined ? undefined : `${options.out}.journal.json`);
  for (const [option, file] of [
    ['--out', options.out],
    [options.journal === undefined ? '--out (its journal)' : '--journal', journal],
  ] as const) {
    if (file === undefined) continue;
    const target = resolve(cwd, file);
    if (await sameFile(target, source))
      throw new CliError(
        `${option}: ${target} is the transcript itself, which the journal points into; write elsewhere`,
      );
  }
}

export interface CompactOptions {
  transcript: string;
  format?: TranscriptFormat;
  preset: string;
  window: number;
  counter?: string;
  out?: string;
  to?: OutputFormat;
  journal?: string;
  blobs?: string;
  force?: boolean;
  instructions?: string;
  llm?: boolean;
  allowBlock?: boolean;
}

async function blobStore(dir: string | undefined) {
  // A file given as --blobs would have every spill fail: each cut output unsaved, exit 0.
  const given = dir === undefined ? undefined : await stat(dir).catch(() => undefined);
  if (given && !given.isDirectory()) throw new CliError(`--blobs: ${dir} is not a directory`);
  try {
    const mod = (await import('../blobs/fs-blob-store.ts')) as {
      createFsBlobStore?: (o: { dir?: string }) => unknown;
    };
    if (typeof mod.createFsBlobStore === 'function') return mod.createFsBlobStore(dir ? { dir } : {});
  } catch {
    // No filesystem store: tool outputs are truncated without a spill.
  }
  return undefined;
}

export async function compact(options: CompactOptions, env: CliEnv): Promise<void> {
  const { io } = env;
  windowOption(options.window);
  // Only a manual compaction reads them: without --force they would be dropped without a word.
  if (options.instructions !== undefined && options.force !== true)
    throw new CliError('--instructions focuses a manual compaction: pass --force with it');
  await refuseOverwrite(options, io.cwd);
  const transcript = await loadTranscript(resolve(io.cwd, options.transcript), options.format);
  const createPipeline = await pipelineFactory();
  const summarizer = await chooseSummarizer(options.llm === true, io);
  const counter = counterOption(options.counter);
  const pipelineOptions: Record<string, unknown> = {
    preset: options.preset,
    budget: { contextWindow: options.window },
    clock: systemClock,
    ids: randomIds,
  };
  const blobs = await blobStore(options.blobs && resolve(io.cwd, options.blobs));
  if (blobs) pipelineOptions.blobs = blobs;
  if (counter) pipelineOptions.counter = counter;
  if (summarizer) pipelineOptions.summarizer = summarizer;
  const pipeline = createPipeline(pipelineOptions);
  const input: { messages: readonly Message[]; system?: string; instructions?: string } = {
    messages: transcript.messages,
  };
  if (transcript.system !== undefined) input.system = transcript.system;
  let run: Awaited<ReturnType<typeof pipeline.prepare>>;
  if (options.force) {
    if (options.instructions !== undefined) input.instructions = options.instructions;
    run = await pipeline.compact(input);
  } else run = await pipeline.prepare(input);

  const format = options.to ?? defaultOutputFormat(transcript.format);
  // Provider usage describes the context it was measured on, not this one: dropped, never re-shaped.
  const dropped = run.messages.filter((m) => m.usage !== undefined).length;
  const messages = run.messages.map((m) => {
    if (m.usage === undefined) return m;
    const { usage: _, ...rest } = m;
    return rest;
  });
  const text = serializeTranscript(messages, format, transcript.header);
  if (options.out) await writeOptionFile('--out', resolve(io.cwd, options.out), text);
  else io.out(text);
  const journalFile = options.journal ?? (await besideOut(options.out, io.cwd));
  const journal = {
    preset: options.preset,
    window: options.window,
    estimate: run.estimate,
    reports: run.reports,
    // The originals are in the transcript file, unchanged: the journal says where.
    journal: journalFor(run.journal, fileKeeper(options.transcript, transcript.messages)),
    events: run.events,
    memories: run.memories ?? [],
  };
  if (journalFile)
    await writeOptionFile('--journal', resolve(io.cwd, journalFile), `${JSON.stringify(journal, null, 2)}\n`);
  // A failed LLM summary answered by the deterministic summarizer is said, not just journalled.
  for (const e of run.events)
    if (e.type === 'summary-fallback')
      io.err(
        `ctxcheck: warning: LLM summary failed in ${e.stage} (${e.reason}); used the fallback summarizer`,
      );
  const log = options.out ? io.out : io.err;
  for (const r of run.reports)
    log(
      `${r.stage.padEnd(26)} ${r.status.padEnd(8)} ${r.tokensBefore} → ${r.tokensAfter}${r.error ? `  error: ${r.error}` : r.detail ? `  ${r.detail}` : ''}`,
    );
  log(
    `${transcript.messages.length} → ${run.messages.length} messages, ${run.estimate.before} → ${run.estimate.after} tokens (level ${run.estimate.level}); ${run.journal.length} journal entries${journalFile ? ` in ${journalFile}` : options.out ? ' (not written: pass --journal FILE)' : ' (not written: pass --out FILE or --journal FILE)'}${options.out ? `; wrote ${options.out} (${format})` : ''}`,
  );
  if (dropped > 0) log(`provider usage of ${dropped} messages dropped (it counted the uncompacted context)`);
  if (run.estimate.level === 'block' && options.allowBlock !== true) {
    io.err(
      `ctxcheck compact: the result is still at the block level (${run.estimate.after} tokens for a ${options.window}-token window); pass --allow-block to accept it`,
    );
    env.exit(EXIT.failed);
    return;
  }
  env.exit(EXIT.ok);
}

export function compactCommand(env: CliEnv): CommandModule<object, CompactOptions> {
  return {
    command: 'compact <transcript>',
    describe: 'Compact a transcript with a preset and write the result and its journal',
    builder: (y: Argv) =>
      y
        .positional('transcript', { type: 'string', demandOption: true, describe: 'Transcript file' })
        .option('format', { type: 'string', choices: TRANSCRIPT_FORMATS, describe: 'Force the input format' })
        .option('preset', {
          type: 'string',
          choices: FIXTURE_PRESETS,
          default: 'default',
          describe: 'Pipeline preset',
        })
        .option('window', { type: 'number', demandOption: true, describe: 'Context window in tokens' })
        .option('counter', {
          type: 'string',
          choices: FIXTURE_COUNTERS,
          describe: "Token counter (default: the preset's)",
        })
        .option('out', {
          type: 'string',
          describe: 'Write the compacted conversation here (default: stdout)',
        })
        .option('to', {
          type: 'string',
          choices: OUTPUT_FORMATS,
          describe: "Output format (default: the input's family)",
        })
        .option('journal', {
          type: 'string',
          describe: 'Write the journal here (default: <out>.journal.json)',
        })
        .option('blobs', {
          type: 'string',
          describe: 'Directory for spilled tool outputs (default ~/.ctxkit/data/truncations)',
        })
        .option('force', { type: 'boolean', describe: 'Run a manual compaction instead of the pre-flight' })
        .option('instructions', {
          type: 'string',
          describe: 'Focus instructions for the manual compaction (needs --force)',
        })
        .option('llm', {
          type: 'boolean',
          describe: 'Summarize with the LLM configured in the environment',
        })
        .option('allow-block', {
          type: 'boolean',
          describe: 'Exit 0 even when the result is still at the block level',
        }) as unknown as Argv<CompactOptions>,
    handler: (argv) => compact(argv, env),
  };
}
