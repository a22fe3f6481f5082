/**
 * 000/004 Markdown memory (`memory/YYYY-MM-DD.md`, `MEMORY.md`) written by many session objects of
 * one tenant at once. Core's `writeFlush` reads, then writes the whole document — two sessions
 * flushing together would lose a section — so here every flush is one atomic SQL upsert that appends
 * (the daily header only when the row is created), in the same format (`dailySection`, `longTermLines`).
 *
 * A document is one D1 row, and D1 refuses a row over 2 MB: appended to without end (`MEMORY.md`
 * grows with every flush, a busy tenant's day with every session), it would pass it, and from then
 * on every flush — and the proxied turn or `prepare` that made it — failed. So a document holds at
 * most `DOCUMENT_PART_BYTES`; an append that would pass it goes to the next part (`MEMORY.2.md`,
 * `memory/2026-11-28.2.md`, …), which search indexes like any document.
 */
import {
  coreMemoryPath,
  dailyHeader,
  dailyMemoryPath,
  dailySection,
  type FlushInput,
  longTermLines,
} from '../../core/index.ts';

/**
 * UTF-8 bytes one memory document (one D1 row) holds at most; the next append starts a new part.
 * @default 512 KiB: a quarter of D1's 2 MB per row, and each flush re-indexes its part whole
 */
export const DOCUMENT_PART_BYTES = 512 * 1024;

/** Parts of one document tried in turn before an append gives up (a race that keeps losing). */
const PART_TRIES = 8;

export interface DocumentAppender {
  /**
   * Appends `text` to the last part of `path` that has room (`header + text` for a new part);
   * the path of the part it went to.
   */
  append(tenant: string, path: string, text: string, header: string, at: number): Promise<string>;
}

/** Part `n` (1: the document itself) of `path`: `MEMORY.md` → `MEMORY.2.md`. */
export function documentPart(path: string, n: number): string {
  if (n <= 1) return path;
  const dot = path.endsWith('.md') ? path.length - 3 : path.length;
  return `${path.slice(0, dot)}.${n}${path.slice(dot)}`;
}

const utf8 = new TextEncoder();

/** `text` cut at a code point so that its UTF-8 takes at most `bytes`, saying so. */
function clipped(text: string, bytes: number): string {
  if (utf8.encode(text).byteLength <= bytes) return text;
  const note = `\n[cut: the section passed one memory document's ${bytes} bytes]\n`;
  let out = text.slice(0, bytes - note.length);
  while (utf8.encode(out).byteLength > bytes - note.length) out = out.slice(0, Math.floor(out.length * 0.9));
  if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1);
  return out + note;
}

export function d1DocumentAppender(db: D1Database, partBytes = DOCUMENT_PART_BYTES): DocumentAppender {
  /** The highest part of `path` the tenant has (1 when none). */
  const lastPart = async (tenant: string, path: string): Promise<number> => {
    const head = documentPart(path, 2).slice(0, -(path.endsWith('.md') ? 5 : 2));
    const { results } = await db
      .prepare('SELECT path FROM documents WHERE tenant = ?1 AND substr(path, 1, ?2) = ?3')
      .bind(tenant, head.length, head)
      .all<{ path: string }>();
    let n = 1;
    for (const r of results ?? []) {
      const m = /^\.(\d{1,6})(?:\.md)?$/.exec(r.path.slice(head.length));
      if (m && documentPart(path, Number(m[1])) === r.path) n = Math.max(n, Number(m[1]));
    }
    return n;
  };
  return {
    async append(tenant, path, text, header, at) {
      const body = clipped(text, partBytes - utf8.encode(header).byteLength);
      let n = await lastPart(tenant, path);
      for (let i = 0; i < PART_TRIES; i++, n++) {
        const part = documentPart(path, n);
        // Appended only while the part stays within its bound; else nothing changes (0 rows).
        const done = await db
          .prepare(
            `INSERT INTO documents (tenant, path, content, updated_at) VALUES (?1, ?2, ?3 || ?4, ?5)
             ON CONFLICT (tenant, path) DO UPDATE SET content = documents.content || ?4, updated_at = ?5
             WHERE length(CAST(documents.content AS BLOB)) + length(CAST(?4 AS BLOB)) <= ?6`,
          )
          .bind(tenant, part, header, body, at, partBytes)
          .run();
        if ((done.meta?.changes ?? 0) > 0) return part;
      }
      throw new Error(`memory document ${path}: no part with room after ${PART_TRIES} tries`);
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
    written.push(
      await documents.append(
        tenant,
        dailyMemoryPath(input.date, input.userId),
        dailySection(input.reason, input.time, input.daily),
        dailyHeader(input.date),
        at,
      ),
    );
  }
  const lines = longTermLines(input.date, input.longTerm ?? []);
  if (lines !== '') {
    written.push(await documents.append(tenant, coreMemoryPath(input.userId), lines, '', at));
  }
  return written;
}
