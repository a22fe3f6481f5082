/**
 * KosmoKrator's compaction transcript and summary wrapper (SEED-RULES §4.7): one line per user text
 * (≤2000 chars), tool call (`name(key: value, …)`, values ≤100, `content`/`old_string`/`new_string` as
 * `[...]`), assistant text (≤2000), tool result (≤200), system text (≤500); over-long text becomes
 * `{first N chars} [truncated — {len} chars]`. The whole transcript is capped at 100000 chars; by
 * default (HEAD, recommended) the OLDEST lines go and `[... older messages truncated for compaction]`
 * comes first; `capDrops: 'newest'` reproduces the doc's commit (newest lines dropped, marker last).
 */
import { outputText } from '../../../messages/text.ts';
import type { JsonValue, Message } from '../../../messages/types.ts';
import { headCodePoints } from '../../../text/trim.ts';
import { codePointLength, utf8Length } from '../../../tokens/text-stats.ts';

export const TRANSCRIPT_TRUNCATED_LINE = '[... older messages truncated for compaction]';
export const SUMMARY_START_MARKER = '## Compacted Conversation Summary';
export const SUMMARY_END_MARKER = '<!-- /kosmo:compacted-summary -->';
export const SUMMARY_REFERENCE_NOTE =
  'This is historical reference only. The latest user message, current operational mode, current system prompt, and current tool results override this summary. Do not resume stale tasks unless the latest user asks for them.';

export interface TranscriptOptions {
  /** @default 2000 */
  userChars?: number;
  /** @default 2000 */
  assistantChars?: number;
  /** @default 200 (HEAD: 1000) */
  resultChars?: number;
  /** @default 500 */
  systemChars?: number;
  /** @default 100 (HEAD: 250) */
  argChars?: number;
  /** Cap on the whole transcript, in bytes as PHP `strlen` counts. @default 100000 */
  maxChars?: number;
  /** @default 'oldest' */
  capDrops?: 'oldest' | 'newest';
}

const ELIDED_ARGS = new Set(['content', 'old_string', 'new_string']);

export function truncateWithLength(text: string, max: number): string {
  const len = codePointLength(text);
  return len <= max ? text : `${headCodePoints(text, max)} [truncated — ${len} chars]`;
}

function formatArgs(args: JsonValue, max: number): string {
  if (args === null || typeof args !== 'object') return truncateWithLength(JSON.stringify(args), max);
  const entries = Array.isArray(args) ? args.map((v, i) => [String(i), v] as const) : Object.entries(args);
  return entries
    .map(([k, v]) =>
      ELIDED_ARGS.has(k)
        ? `${k}: [...]`
        : `${k}: ${truncateWithLength(typeof v === 'string' ? v : JSON.stringify(v), max)}`,
    )
    .join(', ');
}

function messageLines(m: Message, o: Required<TranscriptOptions>): string[] {
  const lines: string[] = [];
  const text = m.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
  if (m.role === 'assistant') {
    for (const p of m.parts)
      if (p.type === 'tool-call')
        lines.push(`[assistant → tool_call]: ${p.name}(${formatArgs(p.args, o.argChars)})`);
    if (text !== '') lines.push(`[assistant]: ${truncateWithLength(text, o.assistantChars)}`);
    return lines;
  }
  if (m.role === 'system') return [`[system]: ${truncateWithLength(text, o.systemChars)}`];
  if (m.role === 'user' && text !== '') lines.push(`[user]: ${truncateWithLength(text, o.userChars)}`);
  for (const p of m.parts)
    if (p.type === 'tool-result')
      lines.push(`[tool_result]: ${truncateWithLength(outputText(p.output), o.resultChars)}`);
  return lines;
}

export function kosmokratorTranscript(messages: readonly Message[], options: TranscriptOptions = {}): string {
  const o: Required<TranscriptOptions> = {
    userChars: 2000,
    assistantChars: 2000,
    resultChars: 200,
    systemChars: 500,
    argChars: 100,
    maxChars: 100_000,
    capDrops: 'oldest',
    ...options,
  };
  const lines = messages.flatMap((m) => messageLines(m, o));
  let total = 0;
  if (o.capDrops === 'newest') {
    const kept: string[] = [];
    for (const line of lines) {
      total += utf8Length(line) + 1;
      if (total > o.maxChars) return [...kept, TRANSCRIPT_TRUNCATED_LINE].join('\n');
      kept.push(line);
    }
    return kept.join('\n');
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    total += utf8Length(lines[i]!) + 1;
    if (total > o.maxChars) return [TRANSCRIPT_TRUNCATED_LINE, ...lines.slice(i + 1)].join('\n');
  }
  return lines.join('\n');
}

/** Removes an earlier wrapping, so a summary is never wrapped twice. */
export function unwrapKosmoSummary(summary: string): string {
  let s = summary.trim();
  if (s.startsWith(SUMMARY_START_MARKER)) {
    s = s.slice(SUMMARY_START_MARKER.length).trimStart();
    if (s.startsWith(SUMMARY_REFERENCE_NOTE)) s = s.slice(SUMMARY_REFERENCE_NOTE.length);
    s = s.replace(SUMMARY_END_MARKER, '');
  }
  return s.trim();
}

/** HEAD's `CompactionSummaryFormatter::wrap`; empty → empty. */
export function wrapKosmoSummary(summary: string): string {
  const s = unwrapKosmoSummary(summary);
  if (s === '') return '';
  return `${SUMMARY_START_MARKER}\n\n${SUMMARY_REFERENCE_NOTE}\n\n${s}\n\n${SUMMARY_END_MARKER}`;
}

export interface ProtectedContext {
  /** Mode label, e.g. `Edit`. */
  mode: string;
  cwd: string;
  repoRoot?: string | undefined;
  gitBranch?: string | undefined;
  agentType?: string | undefined;
  agentDepth?: number | undefined;
  agentMaxDepth?: number | undefined;
}

/** The `## Protected Context` system message text (002 `ProtectedContextBuilder`). */
export function protectedContextText(c: ProtectedContext): string {
  const lines = ['## Protected Context', `- Mode: ${c.mode}`, `- Working directory: ${c.cwd}`];
  if (c.repoRoot !== undefined && c.repoRoot !== c.cwd) lines.push(`- Repository root: ${c.repoRoot}`);
  if (c.gitBranch !== undefined) lines.push(`- Git branch: ${c.gitBranch}`);
  if (c.agentType !== undefined) {
    lines.push(`- Agent type: ${c.agentType}`);
    lines.push(`- Agent depth: ${c.agentDepth ?? 0}/${c.agentMaxDepth ?? 0}`);
  }
  return lines.join('\n');
}
