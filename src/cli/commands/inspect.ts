/**
 * `ctxcheck inspect <transcript>`: what the context holds (tokens per role and kind, the largest
 * items, a usage bar against `--window`) and what the next pre-flight would do (`prepare` on a copy).
 */
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import * as core from '../../core/index.ts';
import {
  countTurns,
  createRecordingBlobStore,
  FIXTURE_COUNTERS,
  FIXTURE_PRESETS,
  LIMITS,
  type Message,
  outputText,
  sequentialIds,
  systemClock,
  type TokenCounter,
} from '../../core/index.ts';
import { partTokens } from '../../view/context-model.ts';
import { displayPath } from '../files.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { integerOption, sameFile, windowOption, writeOptionFile } from '../options.ts';
import { chooseSummarizer, counterOption, pipelineFactory } from '../pipeline.ts';
import { renderInspectPage } from '../render/inspect-html.ts';
import { type InspectReport, renderInspect } from '../render/inspect-report.ts';
import { loadTranscript, TRANSCRIPT_FORMATS, type TranscriptFormat } from '../transcripts/load-transcript.ts';

export interface InspectOptions {
  transcript: string;
  format?: TranscriptFormat;
  preset: string;
  window: number;
  counter?: string;
  top: number;
  json?: boolean;
  llm?: boolean;
  html?: string;
  /** Count every message, not only those after the transcript's last compaction boundary. */
  whole?: boolean;
}

function label(m: Message, names: ReadonlyMap<string, string>): string {
  const calls = m.parts
    .filter((p) => p.type === 'tool-call')
    .map((p) => (p.type === 'tool-call' ? p.name : ''));
  const result = m.parts.find((p) => p.type === 'tool-result');
  if (result && result.type === 'tool-result')
    return `${m.role} (${result.name ?? names.get(result.callId) ?? result.callId})`;
  if (calls.length > 0) return `${m.role} → ${calls.join(', ')}`;
  return m.meta?.kind && m.meta.kind !== m.role ? `${m.role} [${m.meta.kind}]` : m.role;
}

function preview(m: Message): string {
  const p = m.parts.find((q) => q.type === 'text' || q.type === 'tool-result' || q.type === 'tool-call');
  const text = !p
    ? ''
    : p.type === 'text'
      ? p.text
      : p.type === 'tool-result'
        ? outputText(p.output)
        : JSON.stringify(p.args);
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 60)}…` : flat);
}

/**
 * The preview's blob store: kept in memory (inspect writes nothing), each spill given the file
 * `compact` would write it to, so that the truncation notice, and the preview's tokens, are the ones
 * `compact` sends (the notice names where the whole output is).
 */
async function previewBlobs(): Promise<core.BlobStore> {
  const store = createRecordingBlobStore(systemClock);
  const fs = await import('../blobs/fs-blob-store.ts').then(
    (m) => m.createFsBlobStore(),
    () => undefined,
  );
  if (!fs) return store;
  return {
    ...store,
    put: async (id, content, o) => ({ ...(await store.put(id, content, o)), location: await fs.pathFor(id) }),
  };
}

export async function inspect(options: InspectOptions, env: CliEnv): Promise<void> {
  const { io } = env;
  windowOption(options.window);
  integerOption('--top', options.top, 0, LIMITS.count);
  const html = options.html === undefined ? undefined : resolve(io.cwd, options.html);
  if (html !== undefined && (await sameFile(html, resolve(io.cwd, options.transcript))))
    throw new CliError(`--html: ${html} is the transcript itself; write the page elsewhere`);
  const transcript = await loadTranscript(resolve(io.cwd, options.transcript), options.format);
  const createPipeline = await pipelineFactory();
  const counter = counterOption(options.counter);
  const summarizer = await chooseSummarizer(options.llm === true, io);
  const pipelineOptions: Record<string, unknown> = {
    preset: options.preset,
    budget: { contextWindow: options.window },
    clock: systemClock,
    ids: sequentialIds(),
    blobs: await previewBlobs(),
  };
  if (counter) pipelineOptions.counter = counter;
  if (summarizer) pipelineOptions.summarizer = summarizer;
  const pipeline = createPipeline(pipelineOptions) as ReturnType<typeof createPipeline> & {
    budget: { usable: number; warning: number; autoCompact: number; blocking: number };
  };
  // What the model saw: from the harness's last compaction on (`--whole`: the file as it is).
  const boundary = options.whole ? undefined : transcript.boundary;
  const cut = boundary ? fromBoundary(transcript.messages, boundary.index) : undefined;
  const messages = cut?.messages ?? transcript.messages;
  const input: { messages: readonly Message[]; system?: string } = { messages };
  if (transcript.system !== undefined) input.system = transcript.system;
  const estimate = pipeline.estimate(input);
  const used = counter ?? presetCounter(options.preset, options.window);

  const names = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
  const roles = new Map<string, { messages: number; tokens: number }>();
  const kinds = new Map<string, { parts: number; tokens: number }>();
  const sized = messages.map((m) => ({ m, tokens: used.countMessage(m) }));
  for (const { m, tokens } of sized) {
    const r = roles.get(m.role) ?? { messages: 0, tokens: 0 };
    r.messages++;
    r.tokens += tokens;
    roles.set(m.role, r);
    for (const p of m.parts) {
      const k = kinds.get(p.type) ?? { parts: 0, tokens: 0 };
      k.parts++;
      k.tokens += m.meta?.agentVisible === false ? 0 : partTokens(p, used);
      kinds.set(p.type, k);
    }
  }
  const report: InspectReport = {
    file: displayPath(options.transcript, io.cwd),
    format: transcript.format,
    preset: options.preset,
    counter: used.name,
    messages: messages.length,
    turns: countTurns(messages),
    tokens: estimate.tokens,
    counted: sized.reduce((n, x) => n + x.tokens, 0),
    anchored: estimate.anchored ?? false,
    window: options.window,
    usable: pipeline.budget.usable,
    thresholds: {
      warning: pipeline.budget.warning,
      autoCompact: pipeline.budget.autoCompact,
      blocking: pipeline.budget.blocking,
    },
    level: estimate.level ?? 'ok',
    byRole: [...roles].map(([role, v]) => ({ role, ...v })).sort((a, b) => b.tokens - a.tokens),
    byKind: [...kinds].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.tokens - a.tokens),
    largest: [...sized]
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, options.top)
      .map(({ m, tokens }) => ({
        id: m.id,
        role: m.role,
        label: label(m, names),
        tokens,
        preview: preview(m),
      })),
    notes: transcript.notes,
  };
  if (boundary && cut) report.boundary = { ...boundary, left: cut.earlier.length };
  const recorded = recordedUsage(messages);
  if (recorded) report.recorded = recorded;
  const run = await pipeline.prepare({ ...input, messages: [...messages] });
  const after = new Set(run.messages.map((m) => m.id));
  report.next = {
    reports: run.reports.map((r) => {
      const o: NonNullable<InspectReport['next']>['reports'][number] = {
        stage: r.stage,
        status: r.status,
        tokensBefore: r.tokensBefore,
        tokensAfter: r.tokensAfter,
      };
      if (r.detail) o.detail = r.detail;
      if (r.error) o.error = r.error;
      return o;
    }),
    messagesBefore: messages.length,
    messagesAfter: run.messages.length,
    tokensBefore: run.estimate.before,
    tokensAfter: run.estimate.after,
    level: run.estimate.level,
    journal: run.journal.length,
    removed: messages.filter((m) => !after.has(m.id)).length,
  };
  if (html !== undefined) {
    const page = renderInspectPage({
      report,
      before: { messages, tokens: estimate.tokens, level: estimate.level ?? 'ok' },
      ...(cut ? { earlier: cut.earlier } : {}),
      after: run,
      system: transcript.system,
      tools: transcript.tools,
      counter: used,
      budget: {
        window: options.window,
        usable: pipeline.budget.usable,
        warning: pipeline.budget.warning,
        autoCompact: pipeline.budget.autoCompact,
        blocking: pipeline.budget.blocking,
      },
      top: options.top,
    });
    await writeOptionFile('--html', html, page);
    io.out(`wrote ${displayPath(html, io.cwd)} (${Math.ceil(page.length / 1024)} KB, self-contained)`);
  } else if (options.json) io.out(JSON.stringify(report, null, 2));
  else for (const line of renderInspect(report)) io.out(line);
  env.exit(EXIT.ok);
}

/**
 * What the model sees after a compaction boundary — the leading system messages, then what follows
 * it — and what it no longer sees.
 */
function fromBoundary(
  messages: readonly Message[],
  index: number,
): { messages: Message[]; earlier: Message[] } {
  let lead = 0;
  while (lead < index && messages[lead]!.role === 'system') lead++;
  return {
    messages: [...messages.slice(0, lead), ...messages.slice(index)],
    earlier: messages.slice(lead, index),
  };
}

/** The prompt side of the newest reported usage: what the provider counted of the last request. */
function recordedUsage(messages: readonly Message[]): InspectReport['recorded'] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const u = messages[i]!.usage;
    if (messages[i]!.role !== 'assistant' || !u) continue;
    const tokens = u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
    if (tokens > 0) return { id: messages[i]!.id, tokens };
  }
  return undefined;
}

/** The preset's own counter (`resolvePreset` of the pipeline), so the tables agree with the estimate. */
function presetCounter(preset: string, window: number): TokenCounter {
  const resolve = (core as Record<string, unknown>).resolvePreset;
  if (typeof resolve === 'function') {
    const r = (resolve as (...a: unknown[]) => { counter?: TokenCounter })(
      preset,
      undefined,
      { contextWindow: window },
      undefined,
    );
    if (r.counter) return r.counter;
  }
  return counterOption(preset === 'cowagent' ? 'cowagent' : preset === 'tiancai' ? 'chars4' : 'kosmokrator')!;
}

export function inspectCommand(env: CliEnv): CommandModule<object, InspectOptions> {
  return {
    command: 'inspect <transcript>',
    describe: 'Show what a transcript holds and what the next pre-flight would do',
    builder: (y: Argv) =>
      y
        .positional('transcript', { type: 'string', demandOption: true, describe: 'Transcript file' })
        .option('format', {
          type: 'string',
          choices: TRANSCRIPT_FORMATS,
          describe: 'Force the transcript format',
        })
        .option('preset', {
          type: 'string',
          choices: FIXTURE_PRESETS,
          default: 'default',
          describe: 'Pipeline preset',
        })
        .option('window', { type: 'number', default: 200_000, describe: 'Context window in tokens' })
        .option('counter', {
          type: 'string',
          choices: FIXTURE_COUNTERS,
          describe: "Token counter (default: the preset's)",
        })
        .option('top', { type: 'number', default: 10, describe: 'How many of the largest items to list' })
        .option('llm', { type: 'boolean', describe: 'Summarize with the LLM configured in the environment' })
        .option('html', {
          type: 'string',
          describe: 'Write the context view as one self-contained HTML file',
        })
        .option('json', {
          type: 'boolean',
          describe: 'Print the report as JSON',
        })
        // Each replaces the text report; given both, --json was dropped without a word.
        .conflicts('html', 'json')
        .option('whole', {
          type: 'boolean',
          describe: "Count the whole file, not only what follows the harness's last compaction boundary",
        }) as unknown as Argv<InspectOptions>,
    handler: (argv) => inspect(argv, env),
  };
}
