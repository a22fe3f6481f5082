/**
 * 002 `MemoryInjector::format` (§4.11): the `# Memories` block appended to the system prompt,
 * and the `## Session Recall` block. Entries failing the prompt-injection scan are left out
 * (`injection-scanner.ts`); `screenMemories` / `screenRecall` say which and why.
 */
import { screenMemories, screenRecall } from './injection-scanner.ts';
import type { MemoryRecord } from './memory-store.ts';
import type { RecallHit } from './session-store.ts';

function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function line(m: MemoryRecord, max: number, dated: boolean): string {
  return `- ${m.title}: ${clip(m.content, max)}${dated ? ` (${day(m.createdAt)})` : ''}`;
}

/** Sections in 002's order, unsafe entries left out; returns `''` when there is nothing to inject. */
export function formatMemories(input: readonly MemoryRecord[]): string {
  const memories = screenMemories(input).safe;
  const sections: string[] = [];
  const add = (header: string, lines: string[]) => {
    if (lines.length > 0) sections.push(`${header}\n${lines.join('\n')}`);
  };
  add(
    '## Priority Context',
    memories.filter((m) => m.class === 'priority').map((m) => line(m, 240, false)),
  );
  const durable = (type: string) => memories.filter((m) => m.type === type && m.class === 'durable');
  add(
    '## Project Knowledge',
    durable('project').map((m) => line(m, 220, true)),
  );
  add(
    '## User Preferences',
    durable('user').map((m) => line(m, 220, false)),
  );
  add(
    '## Key Decisions',
    durable('decision').map((m) => line(m, 220, true)),
  );
  add(
    '## Working Memory',
    memories
      .filter((m) => m.class === 'working' && m.type !== 'compaction')
      .slice(0, 5)
      .map((m) => line(m, 180, false)),
  );
  add(
    '## Previous Sessions',
    memories
      .filter((m) => m.type === 'compaction')
      .slice(0, 3)
      .map((m) => `- [${day(m.createdAt)}] ${m.title}`),
  );
  return sections.length === 0 ? '' : `\n\n# Memories\n\n${sections.join('\n\n')}`;
}

/** `\n\n## Session Recall` + up to 3 lines `- {title|session} [{role}]: {text≤220}`; `''` when none. */
export function formatSessionRecall(input: readonly RecallHit[], limit = 3): string {
  const lines = screenRecall(input)
    .safe.slice(0, limit)
    .map((h) => `- ${h.title || h.sessionId || 'session'} [${h.role || 'message'}]: ${clip(h.text, 220)}`);
  return lines.length === 0 ? '' : `\n\n## Session Recall\n${lines.join('\n')}`;
}
