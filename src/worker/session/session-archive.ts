/**
 * The recall archive of one session (the core's `RecallArchive` port), in its Durable Object's own
 * SQLite storage: what left the session's context, whole, under the ref its stub or summary names.
 * The object is named `tenant:session`, so a ref resolves only inside the session that archived it —
 * never in another session, never for another tenant — whatever its 48 bits; and the archive goes
 * with the object's storage when the session is deleted (`deleteAll`).
 *
 * Bounded: a text past `INLINE_CHARS` is kept in R2 under the session's log prefix (counted in the
 * tenant's stored bytes, dropped with the session's log) and only its first `INLINE_CHARS` are searched;
 * a search ranks at most `SEARCH_ROWS` rows, newest first; a span returns at most `SPAN_ROWS` messages.
 */
import { type ArchivedMessage, hashText, type RecallArchive, rankArchived } from '../../core/index.ts';
import { logPrefix } from '../blobs/log-values.ts';
import type { SessionKey } from './wire.ts';

/** Characters of a text kept in its row (past it: in R2, this prefix searched). @default 64 Ki */
export const INLINE_CHARS = 64 * 1024;
/** Rows a search ranks, newest first. @default 5000 */
export const SEARCH_ROWS = 5000;
/** Messages one span ref returns. @default 1000 */
export const SPAN_ROWS = 1000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS recall_archive (
  ref TEXT NOT NULL,
  span TEXT NOT NULL DEFAULT '',
  at INTEGER NOT NULL,
  item TEXT NOT NULL,
  text TEXT NOT NULL,
  blob TEXT,
  PRIMARY KEY (ref, span)
)`;
const SPAN_INDEX = 'CREATE INDEX IF NOT EXISTS recall_archive_span ON recall_archive (span)';
const AT_INDEX = 'CREATE INDEX IF NOT EXISTS recall_archive_at ON recall_archive (at)';

interface Row {
  item: string;
  text: string;
  blob: string | null;
  [key: string]: SqlStorageValue;
}

/** The R2 side: large texts under the session's log prefix. */
export interface ArchiveBlobs {
  put(key: string, text: string): Promise<void>;
  get(key: string): Promise<string | undefined>;
}

export function r2ArchiveBlobs(bucket: R2Bucket, key: SessionKey): ArchiveBlobs {
  const prefix = `${logPrefix(key.tenant, key.session)}archive/`;
  return {
    async put(name, text) {
      await bucket.put(prefix + name, text, {
        httpMetadata: { contentType: 'text/plain; charset=utf-8' },
        customMetadata: { kind: 'log' },
      });
    },
    async get(name) {
      return (await bucket.get(prefix + name))?.text();
    },
  };
}

export function createSessionArchive(sql: SqlStorage, blobs: ArchiveBlobs): RecallArchive {
  let ready = false;
  const init = () => {
    if (ready) return;
    sql.exec(SCHEMA);
    sql.exec(SPAN_INDEX);
    sql.exec(AT_INDEX);
    ready = true;
  };
  const row = (r: Row, text: string): ArchivedMessage => ({
    ...(JSON.parse(r.item) as Omit<ArchivedMessage, 'text'>),
    text,
  });
  const whole = async (r: Row): Promise<ArchivedMessage> => {
    if (r.blob === null) return row(r, r.text);
    return row(r, (await blobs.get(r.blob)) ?? r.text);
  };
  return {
    async put(items) {
      init();
      for (const m of items) {
        const { text, ...item } = m;
        const span = m.span ?? '';
        const known = sql
          .exec('SELECT 1 FROM recall_archive WHERE ref = ? AND span = ?', m.ref, span)
          .toArray();
        if (known.length > 0) continue;
        let blob: string | null = null;
        if (text.length > INLINE_CHARS) {
          blob = `${m.ref}.${hashText(text).slice(0, 16)}`;
          await blobs.put(blob, text);
        }
        sql.exec(
          'INSERT OR IGNORE INTO recall_archive (ref, span, at, item, text, blob) VALUES (?, ?, ?, ?, ?, ?)',
          m.ref,
          span,
          m.at,
          JSON.stringify(item),
          blob === null ? text : text.slice(0, INLINE_CHARS),
          blob,
        );
      }
    },
    async get(ref) {
      init();
      const own = sql
        .exec<Row>('SELECT item, text, blob FROM recall_archive WHERE ref = ? LIMIT 1', ref)
        .toArray();
      if (own[0]) return [await whole(own[0])];
      const span = sql
        .exec<Row>('SELECT item, text, blob FROM recall_archive WHERE span = ? LIMIT ?', ref, SPAN_ROWS)
        .toArray();
      const items = await Promise.all(span.map(whole));
      return items.sort((a, b) => a.seq - b.seq);
    },
    async search(query, { limit }) {
      init();
      const rows = sql
        .exec<Row>('SELECT item, text, blob FROM recall_archive ORDER BY at DESC LIMIT ?', SEARCH_ROWS)
        .toArray();
      // One row per ref (a message folded by a span is also kept under its own ref).
      const seen = new Set<string>();
      const items: ArchivedMessage[] = [];
      for (const r of rows) {
        const m = row(r, r.text);
        if (seen.has(m.ref)) continue;
        seen.add(m.ref);
        items.push(m);
      }
      return rankArchived(items, query, limit);
    },
  };
}

/** Empties the archive (a purged session's log took its originals with it). */
export function clearSessionArchive(sql: SqlStorage): void {
  sql.exec(SCHEMA);
  sql.exec('DELETE FROM recall_archive');
}
