/**
 * 000/004 Markdown memory (`memory/YYYY-MM-DD.md`, `MEMORY.md`) written by many session objects of
 * one tenant at once. Core's `writeFlush` reads, then writes the whole document — two sessions
 * flushing together would lose a section — so here every flush is one atomic SQL upsert that appends
 * (the daily header only when the row is created), in the same format (`dailySection`, `longTermLines`).
 */
import {
  coreMemoryPath,
  dailyHeader,
  dailyMemoryPath,
  dailySection,
  type FlushInput,
  longTermLines,
} from '../../core/index.ts';

export interface DocumentAppender {
  /** Appends `text`; creates the document as `header + text` when it does not exist. */
  append(tenant: string, path: string, text: string, header: string, at: number): Promise<void>;
}

export function d1DocumentAppender(db: D1Database): DocumentAppender {
  return {
    async append(tenant, path, text, header, at) {
      await db
        .prepare(
          `INSERT INTO documents (tenant, path, content, updated_at) VALUES (?1, ?2, ?3 || ?4, ?5)
           ON CONFLICT (tenant, path) DO UPDATE SET content = documents.content || ?4, updated_at = ?5`,
        )
        .bind(tenant, path, header, text, at)
        .run();
    },
  };
}

/** `writeFlush` with atomic appends; returns the paths written. */
export async function appendFlush(
  documents: DocumentAppender,
  tenant: string,
  input: FlushInput,
  at: number,
): Promise<string[]> {
  const written: string[] = [];
  if (input.daily.trim() !== '') {
    const path = dailyMemoryPath(input.date, input.userId);
    await documents.append(
      tenant,
      path,
      dailySection(input.reason, input.time, input.daily),
      dailyHeader(input.date),
      at,
    );
    written.push(path);
  }
  const lines = longTermLines(input.date, input.longTerm ?? []);
  if (lines !== '') {
    const path = coreMemoryPath(input.userId);
    await documents.append(tenant, path, lines, '', at);
    written.push(path);
  }
  return written;
}
