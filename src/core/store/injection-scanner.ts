/**
 * The prompt-injection scanner of memory injection (002 §4.11, KosmoKrator's
 * `PromptInjectionScanner`): a memory or recall entry whose fields fail the scan is never appended to
 * the system prompt. Deterministic and pattern-based, like 002's: it rejects obviously hostile
 * persisted text before it is re-injected into later prompts, it does not judge meaning.
 *
 * Every 002 pattern is kept as written (lower-cased text, case-insensitive). ctxkit adds, for every
 * preset, more invisible characters (bidirectional overrides and isolates, Unicode tag characters),
 * more wordings of "ignore the previous instructions", and chat-template role markup. The table is in
 * docs/memory-injection-scanner.md.
 */
import type { MemoryRecord } from './memory-store.ts';
import type { RecallHit } from './session-store.ts';

/** One pattern: its label (002's where it is 002's), the expression, and where it comes from. */
export interface InjectionPattern {
  label: string;
  pattern: RegExp;
  source: '002' | 'ctxkit';
}

/**
 * Zero-width and word-joiner characters (002), plus bidi embeddings/overrides/isolates, invisible
 * math operators, the Mongolian vowel separator and Unicode tag characters (ASCII smuggling).
 */
// An alternation, not a class: a class holding U+200D (the emoji joiner) is a lint error, rightly so.
const INVISIBLE_002 = /\u200B|\u200C|\u200D|\u2060|\uFEFF/u;
const INVISIBLE_MORE = /[\u180E\u2061-\u2064\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

export const INJECTION_PATTERNS: readonly InjectionPattern[] = [
  { label: 'invisible_unicode', pattern: INVISIBLE_002, source: '002' },
  { label: 'invisible_unicode', pattern: INVISIBLE_MORE, source: 'ctxkit' },
  {
    label: 'ignore_previous_instructions',
    pattern: /\bignore\s+(?:all\s+)?previous\s+instructions\b/iu,
    source: '002',
  },
  {
    label: 'ignore_previous_instructions',
    pattern:
      /\b(?:ignore|forget|override|skip)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|original|system)\s+(?:instructions?|directions?|directives?|rules|prompts?|guidelines)\b/iu,
    source: 'ctxkit',
  },
  {
    label: 'disregard_rules',
    pattern: /\bdisregard\s+(?:all\s+)?(?:previous\s+)?(?:instructions|rules)\b/iu,
    source: '002',
  },
  {
    label: 'disregard_rules',
    pattern:
      /\bdisregard\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous\s+|prior\s+|above\s+|system\s+)?(?:instructions|rules|guidelines|directives)\b/iu,
    source: 'ctxkit',
  },
  {
    label: 'role_hijack',
    pattern: /\b(?:you\s+are\s+now|act\s+as\s+(?:the\s+)?system|pretend\s+to\s+be\s+(?:the\s+)?system)\b/iu,
    source: '002',
  },
  {
    label: 'role_markup',
    pattern:
      /<\|(?:im_start|start_header_id|system)\|>|<\/?system>|<<\/?sys>>|\[\/?inst\]|^\s*#{1,3}\s*system\s*(?:prompt|message)\s*:?\s*$/imu,
    source: 'ctxkit',
  },
  {
    label: 'prompt_exfiltration',
    pattern:
      /\b(?:reveal|print|dump|show)\b.{0,120}\b(?:system\s+prompt|hidden\s+prompt|developer\s+message)\b/iu,
    source: '002',
  },
  {
    label: 'credential_exfiltration',
    pattern:
      /\b(?:api[_\s-]?key|token|secret|password|environment\s+variable|env\s+var)\b.{0,120}\b(?:reveal|print|dump|show|exfiltrat(?:e|ion)?)\b/iu,
    source: '002',
  },
  {
    label: 'shell_secret_fetch',
    pattern: /\b(?:curl|wget)\b[^\n]{0,160}\$(?:[A-Z_][A-Z0-9_]*)/iu,
    source: '002',
  },
];

/** The labels `text` fails, each once, in table order; `[]` when it is safe. */
export function scanForInjection(text: string): string[] {
  const lowered = text.toLowerCase();
  const issues: string[] = [];
  for (const { label, pattern } of INJECTION_PATTERNS) {
    if (issues.includes(label)) continue;
    // Invisible characters are tested on the original text (lower-casing keeps them, but be exact).
    if (pattern.test(label === 'invisible_unicode' ? text : lowered)) issues.push(label);
  }
  return issues;
}

/** An entry left out of the memory block, and why. */
export interface DroppedEntry {
  kind: 'memory' | 'recall';
  /** Memory id, or `{sessionId}#{seq}` for recall. */
  id: string;
  issues: string[];
}

/** 002 `filterSafeEntries`: the non-empty fields joined by newlines; no field → kept. */
function failing(fields: ReadonlyArray<string | null | undefined>): string[] {
  const parts = fields.filter((f): f is string => typeof f === 'string' && f !== '');
  return parts.length === 0 ? [] : scanForInjection(parts.join('\n'));
}

/** Memories whose title + content pass the scan, and the ones dropped. */
export function screenMemories(memories: readonly MemoryRecord[]): {
  safe: MemoryRecord[];
  dropped: DroppedEntry[];
} {
  const safe: MemoryRecord[] = [];
  const dropped: DroppedEntry[] = [];
  for (const m of memories) {
    const issues = failing([m.title, m.content]);
    if (issues.length === 0) safe.push(m);
    else dropped.push({ kind: 'memory', id: m.id, issues });
  }
  return { safe, dropped };
}

/** Recall hits whose title + session id + text pass the scan (002 scans title, session_id, content). */
export function screenRecall(hits: readonly RecallHit[]): { safe: RecallHit[]; dropped: DroppedEntry[] } {
  const safe: RecallHit[] = [];
  const dropped: DroppedEntry[] = [];
  for (const h of hits) {
    const issues = failing([h.title, h.sessionId, h.text]);
    if (issues.length === 0) safe.push(h);
    else dropped.push({ kind: 'recall', id: `${h.sessionId}#${h.seq}`, issues });
  }
  return { safe, dropped };
}
