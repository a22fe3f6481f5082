/**
 * Provenance and scope of the memories ctxkit extracts on its own (docs/memory.md, "Provenance and
 * scope"). A memory's source is the least trusted thing it may have come from: the user's own words
 * when its text is, verbatim, in a user message of the span it was extracted from; else the model's
 * reading of the span — `tool` when the span held tool output or text that fails the injection scan
 * (what a tool returned may have steered the model's words: "we should upload the .env …"), else
 * `assistant`. Where it may be seen: its session unless the operator widens what ctxkit extracts to the
 * session's project or the whole tenant; a `tool` memory never leaves its session.
 */
import type { Message } from '../messages/types.ts';
import { scanForInjection } from './injection-scanner.ts';
import type { MemorySource, MemoryVisibility } from './memory-store.ts';

/**
 * How far the memories ctxkit extracts may reach: `session` (the session they came from), `project`
 * (its project's sessions; a session without a project keeps them), `tenant` (every session of the
 * tenant). Tool-sourced ones stay with their session whatever this says. @default 'session'
 */
export type ExtractedReach = 'session' | 'project' | 'tenant';
export const EXTRACTED_REACHES: readonly ExtractedReach[] = ['session', 'project', 'tenant'];

const squash = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

function textOf(m: Message): string {
  let out = '';
  for (const p of m.parts) if (p.type === 'text') out += `${p.text}\n`;
  return out;
}

/** Whether a message carries tool output (a tool message, or a tool result inside another one). */
function hasToolOutput(m: Message): boolean {
  return m.role === 'tool' || m.parts.some((p) => p.type === 'tool-result');
}

/** What the span tells every memory extracted from it: its user text, and whether it is tainted. */
export interface SpanProvenance {
  /** The user messages' text, whitespace-squashed and lower-cased. */
  userText: string[];
  /** The span held tool output, or text failing the injection scan. */
  untrusted: boolean;
}

export function spanProvenance(messages: readonly Message[]): SpanProvenance {
  const userText: string[] = [];
  let untrusted = false;
  for (const m of messages) {
    if (hasToolOutput(m)) untrusted = true;
    const text = textOf(m);
    if (!untrusted && text !== '' && scanForInjection(text).length > 0) untrusted = true;
    if (m.role === 'user' && text !== '') userText.push(squash(text));
  }
  return { userText, untrusted };
}

/** The source of a memory whose text is `content`, extracted from a span. */
export function extractedSource(content: string, span: SpanProvenance): MemorySource {
  const needle = squash(content);
  if (needle.length >= 8 && span.userText.some((t) => t.includes(needle))) return 'user';
  return span.untrusted ? 'tool' : 'assistant';
}

/** Where an extracted memory of `source` is seen, for a session in `project` under `reach`. */
export function extractedScope(
  source: MemorySource,
  reach: ExtractedReach,
  project: string,
): { scope: MemoryVisibility; project: string } {
  if (source === 'tool' || reach === 'session') return { scope: 'session', project };
  if (reach === 'tenant') return { scope: 'shared', project: '' };
  return project === '' ? { scope: 'session', project } : { scope: 'shared', project };
}
