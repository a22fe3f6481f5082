/**
 * The reads of the SQL `SessionStore`: the whole log, a page of it (bounded in rows and bytes, with
 * the seq to go on from), the rows a list of seq ranges names, the ids alone, the bytes a log holds,
 * and session recall over the FTS index. Rows whose message is kept in the blob store are read back
 * whole (large-rows.ts).
 */
import { and, asc, between, eq, gt, or, sql } from 'drizzle-orm';
import {
  type ReadMessagesOptions,
  type RecallHit,
  type SessionStore,
  type StoredMessage,
  toFtsQuery,
} from '../../core/index.ts';
import { sessionMessages } from '../schema.ts';
import { ROW_BYTES_SQL, type RowCodec, rowSize } from './large-rows.ts';
import { chunked, type SqlDriver } from './sql-driver.ts';

export interface PageOptions {
  /** Rows after this seq. @default 0 */
  afterSeq?: number;
  /** Rows at most. */
  limit: number;
  /** Bytes of messages at most (a first row larger than this is given alone). */
  maxBytes?: number;
  /** @default true */
  includeCompacted?: boolean;
}

export interface MessagePage {
  rows: StoredMessage[];
  /** The seq to go on from (`afterSeq` of the next page), or null at the end of the log. */
  next: number | null;
}

export interface SessionReads extends Pick<SessionStore, 'messages' | 'recall'> {
  page(tenant: string, id: string, options: PageOptions): Promise<MessagePage>;
  /** The rows whose seq lies in one of `ranges` (inclusive), in seq order. */
  rowsIn(
    tenant: string,
    id: string,
    ranges: ReadonlyArray<readonly [number, number]>,
  ): Promise<StoredMessage[]>;
  /** Every message id of the log, in seq order (no message is read). */
  messageIds(tenant: string, id: string): Promise<string[]>;
  /** UTF-8 bytes the log's messages hold (those in the blob store at their whole size). */
  storedBytes(tenant: string, id: string): Promise<number>;
}

type Row = typeof sessionMessages.$inferSelect;

export function sessionReads(
  driver: SqlDriver,
  codec: RowCodec,
  need: (tenant: string, id: string) => Promise<unknown>,
): SessionReads {
  const { db } = driver;
  const rowsOf = (tenant: string, id: string) =>
    and(eq(sessionMessages.tenant, tenant), eq(sessionMessages.sessionId, id));
  const stored =
    (tenant: string, id: string) =>
    async (r: Row): Promise<StoredMessage> => ({
      seq: r.seq,
      message: await codec.decode(tenant, id, r.message, r.seq),
      createdAt: r.createdAt,
      compacted: r.compacted,
    });
  const select = (tenant: string, id: string, opts: ReadMessagesOptions) => {
    const conds = [rowsOf(tenant, id), gt(sessionMessages.seq, opts.afterSeq ?? 0)];
    if (opts.includeCompacted === false) conds.push(eq(sessionMessages.compacted, false));
    return db
      .select()
      .from(sessionMessages)
      .where(and(...conds))
      .orderBy(asc(sessionMessages.seq));
  };
  return {
    async messages(tenant, id, opts = {}) {
      await need(tenant, id);
      const rows = await select(tenant, id, opts);
      return Promise.all(rows.map(stored(tenant, id)));
    },
    async page(tenant, id, o) {
      await need(tenant, id);
      const rows = await select(tenant, id, o).limit(o.limit + 1);
      const out: StoredMessage[] = [];
      let bytes = 0;
      for (const r of rows.slice(0, o.limit)) {
        const size = rowSize(r.message);
        if (o.maxBytes !== undefined && out.length > 0 && bytes + size > o.maxBytes) break;
        bytes += size;
        out.push(await stored(tenant, id)(r));
      }
      const more = out.length < rows.length;
      return { rows: out, next: more ? out[out.length - 1]!.seq : null };
    },
    async rowsIn(tenant, id, ranges) {
      await need(tenant, id);
      const out: Row[] = [];
      for (const group of chunked(ranges, 40)) {
        const within = or(...group.map(([a, b]) => between(sessionMessages.seq, a, b)));
        out.push(
          ...(await db
            .select()
            .from(sessionMessages)
            .where(and(rowsOf(tenant, id), within))),
        );
      }
      out.sort((a, b) => a.seq - b.seq);
      return Promise.all(out.map(stored(tenant, id)));
    },
    async messageIds(tenant, id) {
      await need(tenant, id);
      const rows = await db
        .select({ id: sessionMessages.messageId })
        .from(sessionMessages)
        .where(rowsOf(tenant, id))
        .orderBy(asc(sessionMessages.seq));
      return rows.map((r) => r.id);
    },
    async storedBytes(tenant, id) {
      const [row] = await db
        .select({ bytes: sql<number>`COALESCE(SUM(${sql.raw(ROW_BYTES_SQL)}), 0)` })
        .from(sessionMessages)
        .where(rowsOf(tenant, id));
      return Number(row?.bytes ?? 0);
    },
    async recall(tenant, q) {
      const match = toFtsQuery(q.query, { dropStopwords: true });
      if (match === '') return [];
      const rows = await db.all<{
        session_id: string;
        title: string | null;
        role: string;
        text: string;
        seq: number;
      }>(sql`
        SELECT m.session_id, s.title, m.role, m.text, m.seq
        FROM messages_fts f
        JOIN session_messages m ON m.pk = f.rowid
        JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session_id
        WHERE messages_fts MATCH ${match} AND m.tenant = ${tenant} AND s.project = ${q.project}
          AND m.session_id <> ${q.excludeSession} AND m.role IN ('user', 'assistant')
        ORDER BY bm25(messages_fts), m.pk
        LIMIT ${q.limit ?? 3}`);
      return rows.map(
        (r): RecallHit => ({
          sessionId: r.session_id,
          title: r.title,
          role: r.role,
          text: r.text,
          seq: r.seq,
        }),
      );
    },
  };
}
