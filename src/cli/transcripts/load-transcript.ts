/**
 * Reads a transcript in any accepted format and returns neutral messages. Formats: OpenAI Chat
 * Completions JSON (an array, or `{ messages }`), Anthropic Messages JSON (`{ system?, messages }`),
 * OpenAI Responses JSON (`{ instructions?, input }`, or an item array), Gemini JSON
 * (`{ systemInstruction?, contents }`), Claude Code session JSONL, the normalized trajectory format (`{ id, agent, model, messages }`), and
 * neutral ctxkit messages. Detected from the content; `format` forces one.
 */
import { readFile } from 'node:fs/promises';
import {
  fromAnthropic,
  fromGemini,
  fromOpenAI,
  fromResponses,
  type HistoryKeeper,
  type Message,
  parseMessages,
} from '../../core/index.ts';
import { parseJsonText } from '../fixture-loader.ts';
import { CliError } from '../io.ts';
import {
  type BoundaryEvent,
  type CompactionBoundary,
  lastBoundary,
  trajectoryBoundaries,
} from './boundary.ts';
import { fromClaudeCodeJsonl } from './claude-code.ts';

export const TRANSCRIPT_FORMATS = [
  'openai',
  'anthropic',
  'responses',
  'gemini',
  'claude-code',
  'trajectory',
  'neutral',
] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export interface Transcript {
  format: TranscriptFormat;
  messages: Message[];
  /** Anthropic's top-level system prompt, when the format carries one apart. */
  system?: string;
  /** The source's own fields worth keeping for the way out (trajectory id/agent/model). */
  header?: Record<string, unknown>;
  /** Where the harness last compacted the history (the model sees only what follows). */
  boundary?: CompactionBoundary;
  /** The tool schemas the request carried (`tools` of an OpenAI, Anthropic or Responses body). */
  tools?: Array<{ name: string; json: string }>;
  notes: string[];
}

/** The transcript with its last compaction boundary, when it has one. */
function withBoundary(t: Transcript, events: readonly BoundaryEvent[] = []): Transcript {
  const boundary = lastBoundary(t.messages, events);
  if (boundary) t.boundary = boundary;
  return t;
}

/** A request body's tool schemas, each by its name (OpenAI's `function.name`, Anthropic's `name`). */
function toolSchemas(tools: unknown): Transcript['tools'] {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.slice(0, 500).map((t, i) => {
    const fn = isObj(t) && isObj(t.function) ? t.function : undefined;
    const name =
      isObj(t) && typeof t.name === 'string'
        ? t.name
        : typeof fn?.name === 'string'
          ? fn.name
          : `tool ${i + 1}`;
    return { name, json: JSON.stringify(t, null, 2) };
  });
}

/** The body's `tools` on the transcript, when it carries some. */
function withTools(t: Transcript, body: unknown): Transcript {
  const tools = isObj(body) ? toolSchemas(body.tools) : undefined;
  if (tools) t.tools = tools;
  return t;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

function looksAnthropic(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObj(m) &&
      Array.isArray(m.content) &&
      m.content.some(
        (b) => isObj(b) && (ANTHROPIC_BLOCKS.has(String(b.type)) || (b.type === 'image' && isObj(b.source))),
      ),
  );
}

const RESPONSES_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
]);

/** Guesses the format of a transcript text. */
export function detectFormat(text: string): TranscriptFormat {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    const firstLine = trimmed.split('\n', 1)[0]!;
    const parsedLine = parseJsonText(firstLine);
    if ('value' in parsedLine && isObj(parsedLine.value) && trimmed.includes('\n{')) return 'claude-code';
  }
  const parsed = parseJsonText(text);
  if ('error' in parsed) throw new CliError(`cannot read transcript: ${parsed.error}`);
  const v = parsed.value;
  if (isObj(v) && Array.isArray(v.contents)) return 'gemini';
  if (isObj(v) && Array.isArray(v.input)) return 'responses';
  if (Array.isArray(v) && v.some((i) => isObj(i) && RESPONSES_ITEMS.has(String(i.type)))) return 'responses';
  const list = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.messages) ? v.messages : undefined;
  if (!list)
    throw new CliError(
      'cannot detect the transcript format: expected a message array, { messages } or JSONL',
    );
  if (list.some((m) => isObj(m) && Array.isArray(m.parts))) return 'neutral';
  if (isObj(v) && (typeof v.agent === 'string' || typeof v.source_file === 'string')) return 'trajectory';
  if (isObj(v) && v.system !== undefined) return 'anthropic';
  if (looksAnthropic(list)) return 'anthropic';
  return 'openai';
}

/** A transcript text as neutral messages, with its last compaction boundary whatever its format. */
export function parseTranscript(text: string, format?: TranscriptFormat): Transcript {
  const t = parseAs(text, format ?? detectFormat(text));
  return t.boundary ? t : withBoundary(t);
}

function parseAs(text: string, f: TranscriptFormat): Transcript {
  if (f === 'claude-code') {
    const cc = fromClaudeCodeJsonl(text);
    const notes = Object.entries(cc.skipped).map(([t, n]) => `skipped ${n} ${t} line(s)`);
    for (const e of cc.events) notes.push(`${e.type} at line ${e.line}`);
    const t: Transcript = { format: f, messages: cc.messages, notes };
    if (cc.sessionId) t.header = { sessionId: cc.sessionId };
    const events = cc.events
      .filter((e) => e.type === 'compact_boundary')
      .map((e) => ({ at: e.at, line: e.line, ...(e.detail !== undefined ? { detail: e.detail } : {}) }));
    return withBoundary(t, events);
  }
  const parsed = parseJsonText(text);
  if ('error' in parsed) throw new CliError(`cannot read transcript: ${parsed.error}`);
  const v = parsed.value;
  switch (f) {
    case 'neutral':
      return withBoundary({
        format: f,
        messages: parseMessages(Array.isArray(v) ? v : (v as Obj).messages),
        notes: [],
      });
    case 'openai':
      return withTools(
        { format: f, messages: fromOpenAI(Array.isArray(v) ? v : (v as Obj).messages), notes: [] },
        v,
      );
    case 'trajectory': {
      if (!isObj(v)) throw new CliError('a trajectory is an object with messages');
      const { messages, events, ...header } = v;
      return withBoundary(
        { format: f, messages: fromOpenAI(messages), header, notes: [] },
        trajectoryBoundaries(events),
      );
    }
    case 'responses': {
      if (Array.isArray(v)) return { format: f, messages: fromResponses(v), notes: [] };
      if (!isObj(v))
        throw new CliError('a Responses transcript is { instructions?, input } or an item array');
      const instructions = typeof v.instructions === 'string' ? { instructions: v.instructions } : {};
      return withTools({ format: f, messages: fromResponses(v.input, instructions), notes: [] }, v);
    }
    case 'gemini':
      return { format: f, messages: fromGemini(v), notes: [] };
    case 'anthropic': {
      const messages = fromAnthropic(v);
      return withTools({ format: f, messages, notes: [] }, v);
    }
  }
}

/** The transcript file as the keeper of a journal's originals: each message's place in it, by id. */
export function fileKeeper(file: string, messages: readonly Message[]): HistoryKeeper {
  const at = new Map<string, number>();
  messages.forEach((m, i) => {
    if (!at.has(m.id)) at.set(m.id, i);
  });
  return { kind: 'file', file, position: (id) => at.get(id) };
}

export async function loadTranscript(file: string, format?: TranscriptFormat): Promise<Transcript> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseTranscript(text, format);
}
