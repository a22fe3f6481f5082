/**
 * 000/004 Markdown memory: the core memory `MEMORY.md` and daily files `memory/YYYY-MM-DD.md`
 * (per user under `memory/users/{id}/`), behind a tiny file port. Node writes real files in the
 * workspace; the worker keeps them as rows (`MemoryStore` documents) and exports the same Markdown.
 */
import type { MemoryStore } from './memory-store.ts';

export interface MemoryFiles {
  read(path: string): Promise<string | undefined>;
  /** Appends, creating the file (and its folders) when it does not exist. */
  append(path: string, text: string): Promise<void>;
  list(prefix?: string): Promise<string[]>;
}

export type FlushReason = 'trim' | 'overflow' | 'daily' | 'other';

const HEADERS: Record<FlushReason, string> = {
  trim: 'Trimmed Context',
  overflow: 'Context Overflow Recovery',
  daily: 'Daily Summary',
  other: 'Session Notes',
};
const OVERFLOW_NOTE = 'The following conversation was trimmed due to context overflow:\n';

function userDir(userId?: string): string {
  return userId ? `memory/users/${userId}/` : 'memory/';
}

export function coreMemoryPath(userId?: string): string {
  return userId ? `memory/users/${userId}/MEMORY.md` : 'MEMORY.md';
}

export function dailyMemoryPath(date: string, userId?: string): string {
  return `${userDir(userId)}${date}.md`;
}

export function dailyHeader(date: string): string {
  return `# Daily Memory: ${date}\n\n`;
}

/** `\n## {Header} ({HH:MM})\n\n{note}{daily}\n`. */
export function dailySection(reason: FlushReason, time: string, daily: string): string {
  const note = reason === 'overflow' ? OVERFLOW_NOTE : '';
  return `\n## ${HEADERS[reason]} (${time})\n\n${note}${daily}\n`;
}

/** `- ({YYYY-MM-DD}) {entry}` per non-empty entry. */
export function longTermLines(date: string, entries: readonly string[]): string {
  return entries
    .map((e) => e.trim().replace(/^-\s*/, ''))
    .filter((e) => e !== '')
    .map((e) => `- (${date}) ${e}\n`)
    .join('');
}

export interface FlushInput {
  reason: FlushReason;
  /** `YYYY-MM-DD` and `HH:MM`, local to the user (the caller's clock decides). */
  date: string;
  time: string;
  daily: string;
  longTerm?: readonly string[];
  userId?: string;
}

/** Writes a flush: the daily section (file created with its header on first write only) and the long-term lines. */
export async function writeFlush(files: MemoryFiles, input: FlushInput): Promise<string[]> {
  const written: string[] = [];
  if (input.daily.trim() !== '') {
    const path = dailyMemoryPath(input.date, input.userId);
    const existing = await files.read(path);
    const head = existing === undefined ? dailyHeader(input.date) : '';
    await files.append(path, head + dailySection(input.reason, input.time, input.daily));
    written.push(path);
  }
  const lines = longTermLines(input.date, input.longTerm ?? []);
  if (lines !== '') {
    const path = coreMemoryPath(input.userId);
    await files.append(path, lines);
    written.push(path);
  }
  return written;
}

/** The `MemoryFiles` port over a store's documents (worker, in-memory). */
export function documentFiles(store: MemoryStore, tenant: string, clock: { now(): number }): MemoryFiles {
  return {
    async read(path) {
      return (await store.readDocument(tenant, path))?.content;
    },
    async append(path, text) {
      const existing = await store.readDocument(tenant, path);
      await store.writeDocument(tenant, path, (existing?.content ?? '') + text, clock.now());
    },
    async list(prefix) {
      return (await store.listDocuments(tenant, prefix)).map((d) => d.path);
    },
  };
}

/** Every document as `{ path: content }`, ready to be written out as the same Markdown tree. */
export async function exportMarkdown(files: MemoryFiles, prefix?: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await files.list(prefix)) {
    const content = await files.read(path);
    if (content !== undefined) out[path] = content;
  }
  return out;
}
