/**
 * The prompt-injection scanner of memory injection (002 §4.11, KosmoKrator's
 * `PromptInjectionScanner`): a memory or recall entry whose fields fail the scan is never appended to
 * the system prompt. Deterministic and pattern-based, like 002's: it rejects obviously hostile
 * persisted text before it is re-injected into later prompts, it does not judge meaning.
 *
 * Every 002 pattern is kept as written. ctxkit reads the text as a reader sees it first
 * (`injection-normalize.ts`: look-alike letters, invisible characters, accents, digits for letters,
 * emphasis marks, case and spacing undone) and adds, for every preset, more invisible characters, more
 * wordings of "ignore the previous instructions" and of a role hijack, chat-template role markup, and
 * exfiltration through a link or an image (`injection-patterns.ts`). The table and the figures on a
 * published payload set are in docs/memory-injection-scanner.md.
 */
import { scanForms } from './injection-normalize.ts';
import { INJECTION_PATTERNS, type ScanForm } from './injection-patterns.ts';
import type { DroppedEntry } from './memory-block-types.ts';
import type { MemoryRecord } from './memory-store.ts';
import type { RecallHit } from './session-store.ts';

export { INJECTION_PATTERNS, type InjectionPattern, type ScanForm } from './injection-patterns.ts';
export type { DroppedEntry } from './memory-block-types.ts';

/** The labels `text` fails, each once, in table order; `[]` when it is safe. */
export function scanForInjection(text: string): string[] {
  const forms = scanForms(text);
  const of: Record<ScanForm, string> = { raw: text, ...forms };
  const issues: string[] = [];
  for (const { label, pattern, on } of INJECTION_PATTERNS) {
    if (issues.includes(label)) continue;
    if (pattern.test(of[on])) issues.push(label);
  }
  return issues;
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
