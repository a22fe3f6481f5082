/**
 * Readers of summariser answers: KosmoKrator's `{"summary", "memories"}` JSON (SEED-RULES §4.7) and
 * CowAgent's `[DAILY]` / `[MEMORY]` sections (§2.3), and the `<think>` blocks some models emit.
 */
import type { ExtractedMemory } from '../../ports.ts';
import type { ParsedAnswer } from './types.ts';

const MEMORY_TYPES = new Set(['project', 'user', 'decision']);
const MEMORY_CLASSES = new Set(['priority', 'durable', 'working']);

/** Removes `<think>…</think>` blocks that reasoning models served by Ollama or vLLM put in the content. */
export function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?(?:<\/think>|$)/g, '');
}

/** Removes one surrounding Markdown code fence (```json … ```), which many models add. */
export function stripFence(text: string): string {
  const m = /^```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```$/.exec(text);
  return m ? m[1]!.trim() : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Memories kept only with a known type and a non-empty title and content; unknown class → durable. */
export function normalizeMemories(raw: unknown): ExtractedMemory[] {
  if (!Array.isArray(raw)) return [];
  const out: ExtractedMemory[] = [];
  for (const item of raw) {
    if (!isRecord(item)) continue;
    const { type, title, content } = item;
    if (typeof type !== 'string' || !MEMORY_TYPES.has(type)) continue;
    if (typeof title !== 'string' || title.trim() === '') continue;
    if (typeof content !== 'string' || content.trim() === '') continue;
    const cls = typeof item.class === 'string' && MEMORY_CLASSES.has(item.class) ? item.class : 'durable';
    const memory: ExtractedMemory = {
      type: type as ExtractedMemory['type'],
      title: title.trim(),
      content: content.trim(),
      class: cls as NonNullable<ExtractedMemory['class']>,
    };
    const days = typeof item.expires_days === 'number' ? item.expires_days : Number.NaN;
    if (cls === 'working' && Number.isFinite(days))
      memory.expiresDays = Math.min(30, Math.max(1, Math.round(days)));
    out.push(memory);
  }
  return out;
}

/** The summary KosmoKrator synthesises when the JSON has memories but no summary. */
export function fallbackSummary(memories: readonly ExtractedMemory[]): string {
  const titles = (pick: (m: ExtractedMemory) => boolean) =>
    memories
      .filter(pick)
      .slice(0, 3)
      .map((m) => `- ${m.title}`);
  const decisions = titles((m) => m.type === 'decision');
  const projects = titles((m) => m.type === 'project');
  const working = titles((m) => m.class === 'working');
  const lines = ['## Goal', '[Compaction summary unavailable]'];
  if (decisions.length > 0) lines.push('', '## Key Decisions', ...decisions);
  if (projects.length > 0) lines.push('', '## Accomplished', ...projects);
  if (working.length > 0) lines.push('', '## In Progress', ...working);
  lines.push('', '## Relevant Files', '[Unknown]');
  return lines.join('\n');
}

/**
 * 002: JSON `{"summary": "...", "memories": [...]}`. Non-JSON → the whole trimmed text is the
 * summary, no memories. JSON without a summary → the synthesised fallback text.
 */
export function parseKosmokratorAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim();
  let data: unknown;
  try {
    data = JSON.parse(stripFence(trimmed));
  } catch {
    return { summary: trimmed };
  }
  if (!isRecord(data)) return { summary: trimmed };
  const memories = normalizeMemories(data.memories);
  const summary =
    typeof data.summary === 'string' && data.summary.trim() !== ''
      ? data.summary.trim()
      : fallbackSummary(memories);
  return { summary, memories };
}

/** CowAgent's "nothing worth keeping" answer. */
export const COWAGENT_NOTHING = '无';

const USER_HINT = /\b(user|prefers?|likes?|wants?)\b|用户|偏好|喜欢/i;
const DECISION_HINT = /\b(decided|decision|chose|agreed|will use)\b|决定|选择|约定/i;

function memoryLine(line: string): ExtractedMemory {
  const content = line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim();
  const type: ExtractedMemory['type'] = USER_HINT.test(content)
    ? 'user'
    : DECISION_HINT.test(content)
      ? 'decision'
      : 'project';
  const title = Array.from(content).slice(0, 80).join('');
  return { type, title, content };
}

/**
 * 000: text between `[DAILY]` and `[MEMORY]` is the daily summary; after `[MEMORY]` one memory per
 * non-blank line (ignored when it holds only blank or `-` lines); no markers → all daily; "无" → empty.
 */
export function parseCowagentAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim();
  if (trimmed === COWAGENT_NOTHING) return { summary: '' };
  const d = trimmed.indexOf('[DAILY]');
  const m = trimmed.indexOf('[MEMORY]');
  if (d < 0 && m < 0) return { summary: trimmed };
  let daily: string;
  let memoryText = '';
  if (m < 0) daily = trimmed.slice(d + '[DAILY]'.length);
  else {
    daily = d >= 0 && d < m ? trimmed.slice(d + '[DAILY]'.length, m) : '';
    memoryText = trimmed.slice(m + '[MEMORY]'.length);
  }
  daily = daily.trim();
  if (daily === COWAGENT_NOTHING) daily = '';
  const lines = memoryText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^-+$/.test(l) && l !== COWAGENT_NOTHING && l !== `- ${COWAGENT_NOTHING}`);
  const result: ParsedAnswer = { summary: daily };
  if (lines.length > 0) result.memories = lines.map(memoryLine);
  return result;
}
