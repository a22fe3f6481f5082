/**
 * Cut points of the compaction benchmark: where the Claude Code sessions compacted for real (the
 * message with `meta.isCompactSummary` holds the production summary), and 50% / 75% of the other
 * long runs. Each case holds the prefix to compact and the messages the agent produced after the cut.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CtxError, fromOpenAI, type Message, startsTurn } from '../../core/index.ts';

export interface CompactionCase {
  /** `<trajectory file>@<cut>` */
  id: string;
  trajectory: string;
  cut: 'production' | '50%' | '75%';
  prefix: Message[];
  /** The next 30 messages after the cut (after the production summary, where there is one). */
  after: Message[];
  /** The production summary message, for Claude Code's real compactions. */
  productionSummary?: Message;
}

/** A run is long when it has at least this many messages (the compacted Claude Code sessions aside). */
export const LONG_RUN_MESSAGES = 100;
export const AFTER_WINDOW = 30;

export interface Trajectory {
  id: string;
  messages: unknown[];
}

export interface CaseOptions {
  /** Runs without a production compaction need this many messages. @default LONG_RUN_MESSAGES */
  minMessages?: number;
  /** Include Claude Code sub-agent transcripts (`…__agent-….json`). @default false */
  subagents?: boolean;
}

function listTrajectories(dir: string, subagents: boolean): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(dir, d.name))
        .filter((f) => f.endsWith('.json') && (subagents || !f.includes('__agent-')))
        .map((f) => join(d.name, f)),
    )
    .sort();
}

/** Moves a cut forward to the next message that starts a turn, so no tool chain is split. */
function alignCut(messages: readonly Message[], at: number): number {
  for (let i = at; i < messages.length; i++) if (startsTurn(messages[i]!)) return i;
  return at;
}

/** A trajectory file: `{ messages: [...] }`; bad JSON or shape is an `invalid_input` naming the file. */
export function readTrajectory(path: string, file: string): Trajectory {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new CtxError('invalid_input', `${file}: not valid JSON (${(cause as Error).message})`, { cause });
  }
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as Trajectory).messages))
    throw new CtxError('invalid_input', 'expected an object with a messages array', {
      path: `${file}:messages`,
    });
  return raw as Trajectory;
}

export function loadCases(dataDir: string, options: CaseOptions = {}): CompactionCase[] {
  const cases: CompactionCase[] = [];
  const minMessages = options.minMessages ?? LONG_RUN_MESSAGES;
  for (const file of listTrajectories(dataDir, options.subagents ?? false)) {
    const raw = readTrajectory(join(dataDir, file), file);
    const messages = fromOpenAI(raw.messages, { path: `${file}:messages` });
    const summaryAt = messages.findIndex((m) => m.meta?.isCompactSummary === true);
    if (summaryAt > 0) {
      cases.push({
        id: `${file}@production`,
        trajectory: file,
        cut: 'production',
        prefix: messages.slice(0, summaryAt),
        after: messages.slice(summaryAt + 1, summaryAt + 1 + AFTER_WINDOW),
        productionSummary: messages[summaryAt]!,
      });
      continue;
    }
    if (messages.length < minMessages) continue;
    for (const [cut, share] of [
      ['50%', 0.5],
      ['75%', 0.75],
    ] as const) {
      const at = alignCut(messages, Math.floor(messages.length * share));
      if (at >= messages.length - 1) continue;
      cases.push({
        id: `${file}@${cut}`,
        trajectory: file,
        cut,
        prefix: messages.slice(0, at),
        after: messages.slice(at, at + AFTER_WINDOW),
      });
    }
  }
  return cases;
}

/** Runs this long count for the held-out set. */
export const HELD_OUT_MIN_MESSAGES = 40;

/**
 * Cut points the tuned set does not contain: shorter runs (from 40 messages) and sub-agent
 * transcripts, cut at 50% and 75% the same way. Rules tuned on `loadCases` are checked here.
 */
export function loadHeldOutCases(dataDir: string): CompactionCase[] {
  const tuned = new Set(loadCases(dataDir).map((c) => c.id));
  return loadCases(dataDir, { minMessages: HELD_OUT_MIN_MESSAGES, subagents: true }).filter(
    (c) => !tuned.has(c.id),
  );
}
