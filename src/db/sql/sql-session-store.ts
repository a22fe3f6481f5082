/**
 * `SessionStore` over the shared drizzle schema; used by the SQLite (Node) and D1 (worker) stores.
 * A message too large for a row is kept in a blob store with a pointer in its row (large-rows.ts);
 * the reads (pages, rows by seq, recall) are in sql-session-reads.ts.
 */
import { and, asc, desc, eq, gt, gte, lt, or, type SQL, sql } from 'drizzle-orm';
import {
  type Clock,
  CtxError,
  EMPTY_SESSION_STATE,
  type IdGenerator,
  isCtxError,
  type Message,
  randomIds,
  type SessionInfo,
  type SessionState,
  type SessionStore,
  systemClock,
} from '../../core/index.ts';
import { sessionMessages, sessions } from '../schema.ts';
import { createRowCodec, type EncodedRow, type LargeValues } from './large-rows.ts';
import { createStateCodec } from './large-state.ts';
import { chunked, isUniqueViolation, type SqlDriver, type SqlWrite } from './sql-driver.ts';
import { type SessionReads, sessionReads } from './sql-session-reads.ts';

/** Where a page of sessions ends: the last session's activity time and id. */
export interface SessionCursor {
  lastActive: number;
  id: string;
}

export interface SqlSessionStoreOptions {
  clock?: Clock;
  ids?: IdGenerator;
  /** Where messages too large for a row are kept (absent: every message in its row). */
  large?: LargeValues;
  /** Characters of a message's JSON above which it goes to `large`. @default LARGE_ROW_CHARS */
  largeRowChars?: number;
  /** Characters of a session state's JSON above which it goes to `large`. @default LARGE_STATE_CHARS */
  largeStateChars?: number;
  /** Seqs of the working context one update binds at most. @default REFS_PER_WRITE */
  refsPerWrite?: number;
}

/**
 * Seqs one `compacted` update binds as its JSON list: 100,000 of up to 16 digits and a comma stay
 * under D1's 2,000,000 bytes a value (`PRODUCTION_VALUE_BYTES`).
 */
export const REFS_PER_WRITE = 100_000;

type SessionRow = typeof sessions.$inferSelect;

function toInfo(r: SessionRow): SessionInfo {
  return {
    tenant: r.tenant,
    id: r.id,
    project: r.project,
    title: r.title,
    createdAt: r.createdAt,
    lastActive: r.lastActive,
    lastSeq: r.lastSeq,
  };
}

/** The text a log row indexes for recall (kept here for the stores' users; large-rows.ts writes it). */
export { indexedText } from './large-rows.ts';

/** A `SessionStore` that can also append and set the state in one atomic write (one round trip). */
export interface SqlSessionStore extends SessionStore, SessionReads {
  /**
   * Readies `messages` for their rows now — the large ones put in the blob store — so that the append
   * that follows only writes rows; the UTF-8 bytes they add to the log.
   */
  prepareRows(tenant: string, id: string, messages: readonly Message[]): Promise<number>;
  /** The UTF-8 bytes `messages` would add to a log (nothing is written). */
  rowBytes(messages: readonly Message[]): Promise<number>;
  /**
   * A page of `list` (newest activity first) after the session `after` names: `next` names the last
   * one given when more follow. A session active while the pages are walked may move between them.
   */
  listPage(
    tenant: string,
    options: { project?: string | undefined; limit: number; after?: SessionCursor | undefined },
  ): Promise<{ sessions: SessionInfo[]; next: SessionCursor | null }>;
  /**
   * `append` and then `setState` as one batch: the new rows, the session's `lastSeq`, its state and
   * the rows' `compacted` flags. `conflict` when the log is no longer at `expectedSeq`.
   */
  appendWithState(
    tenant: string,
    id: string,
    messages: readonly Message[],
    state: SessionState,
    options: { expectedSeq: number },
  ): Promise<number>;
}

/** Whether `store` has `appendWithState` (the SQL and D1 stores). */
export function canAppendWithState(store: SessionStore): store is SqlSessionStore {
  return typeof (store as Partial<SqlSessionStore>).appendWithState === 'function';
}

export function createSqlSessionStore(
  driver: SqlDriver,
  options: SqlSessionStoreOptions = {},
): SqlSessionStore {
  const { db } = driver;
  const codec = createRowCodec(options.large, options.largeRowChars);
  const stateCodec = createStateCodec(options.large, options.largeStateChars);
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const refsPerWrite = options.refsPerWrite ?? REFS_PER_WRITE;
  const where = (tenant: string, id: string) => and(eq(sessions.tenant, tenant), eq(sessions.id, id));
  const rowsOf = (tenant: string, id: string) =>
    and(eq(sessionMessages.tenant, tenant), eq(sessionMessages.sessionId, id));
  const need = async (tenant: string, id: string): Promise<SessionRow> => {
    const [row] = await db.select().from(sessions).where(where(tenant, id)).limit(1);
    if (!row) throw new CtxError('not_found', `session ${id} not found`, { path: 'sessionId' });
    return row;
  };
  const seqMoved = (expected: number, row: SessionRow) =>
    new CtxError('conflict', `expected seq ${expected} but the log is at ${row.lastSeq}`, {
      path: 'expectedSeq',
    });
  /**
   * The session row's state and the rows' `compacted` flags, as `setState` writes them. The seqs the
   * working context keeps go as JSON parameters of at most `refsPerWrite` each, one update per range
   * of seqs (a single list passed D1's 2,000,000 bytes a value near 300,000 messages in context).
   */
  const stateWrites = (tenant: string, id: string, state: SessionState, column: string): SqlWrite[] => {
    const w = state.working;
    const writes: SqlWrite[] = [
      db.update(sessions).set({ state: column, lastActive: clock.now() }).where(where(tenant, id)),
    ];
    const refs = (w?.items ?? []).flatMap((i) => ('seq' in i ? [i.seq] : [])).sort((a, b) => a - b);
    const groups = refs.length === 0 ? [[]] : chunked(refs, refsPerWrite);
    groups.forEach((group, k) => {
      const compacted = w
        ? sql`CASE WHEN ${sessionMessages.seq} <= ${w.throughSeq} AND ${sessionMessages.seq} NOT IN (SELECT value FROM json_each(${JSON.stringify(group)})) THEN 1 ELSE 0 END`
        : sql`0`;
      const next = groups[k + 1]?.[0];
      // Only the rows whose flag changes: SQLite rewrites a whole row (its message with it) on update.
      writes.push(
        db
          .update(sessionMessages)
          .set({ compacted })
          .where(
            and(
              rowsOf(tenant, id),
              k > 0 ? gte(sessionMessages.seq, group[0]!) : undefined,
              next !== undefined ? lt(sessionMessages.seq, next) : undefined,
              sql`${sessionMessages.compacted} <> ${compacted}`,
            ),
          ),
      );
    });
    return writes;
  };
  /** The insert of one log row; `seq` is a number or an SQL expression. */
  const insertRow = (
    tenant: string,
    id: string,
    m: Message,
    row: EncodedRow,
    seq: number | SQL,
    now: number,
  ) =>
    db.insert(sessionMessages).values({
      tenant,
      sessionId: id,
      seq,
      messageId: m.id,
      role: m.role,
      text: row.text,
      message: row.json,
      createdAt: now,
      compacted: false,
    });
  /** A failed append batch: a seq a concurrent append took (conflict), else storage. */
  const appendError = (error: unknown, id: string, seq: number): CtxError =>
    isUniqueViolation(error)
      ? new CtxError('conflict', `seq ${seq} of session ${id} was taken by a concurrent append`, {
          path: 'expectedSeq',
          cause: error,
        })
      : new CtxError('storage_error', `could not append to session ${id}`, { cause: error });
  /** Inserts `messages` after `lastSeq`, moves the session's `lastSeq`, then `after`: one batch. */
  const appendBatch = async (
    tenant: string,
    id: string,
    lastSeq: number,
    messages: readonly Message[],
    after: SqlWrite[],
  ): Promise<number> => {
    const rows = await codec.put(tenant, id, messages);
    const now = clock.now();
    const last = lastSeq + messages.length;
    const writes: SqlWrite[] = messages.map((m, i) =>
      insertRow(tenant, id, m, rows[i]!, lastSeq + i + 1, now),
    );
    if (messages.length > 0)
      writes.push(
        db
          .update(sessions)
          .set({ lastSeq: last, lastActive: now })
          .where(and(where(tenant, id), eq(sessions.lastSeq, lastSeq))),
      );
    writes.push(...after);
    try {
      await driver.batch(writes);
    } catch (error) {
      throw appendError(error, id, lastSeq + 1);
    }
    return last;
  };

  return {
    ...sessionReads(driver, codec, need),
    async prepareRows(tenant, id, messages) {
      const rows = await codec.put(tenant, id, messages);
      return rows.reduce((n, r) => n + r.bytes, 0);
    },
    async rowBytes(messages) {
      const rows = await Promise.all(messages.map((m) => codec.encode(m)));
      return rows.reduce((n, r) => n + r.bytes, 0);
    },
    async create(input) {
      const id = input.id ?? ids.next('ses');
      const now = clock.now();
      const row: SessionRow = {
        tenant: input.tenant,
        id,
        project: input.project ?? '',
        title: input.title ?? null,
        createdAt: now,
        lastActive: now,
        lastSeq: 0,
        state: JSON.stringify(EMPTY_SESSION_STATE),
      };
      try {
        await db.insert(sessions).values(row);
      } catch (error) {
        if (isUniqueViolation(error))
          throw new CtxError('conflict', `session ${id} already exists`, { path: 'id', cause: error });
        throw new CtxError('storage_error', `could not create session ${id}`, { cause: error });
      }
      return toInfo(row);
    },
    async get(tenant, id) {
      const [row] = await db.select().from(sessions).where(where(tenant, id)).limit(1);
      return row ? toInfo(row) : undefined;
    },
    async list(tenant, opts = {}) {
      return (await this.listPage(tenant, { ...opts, limit: opts.limit ?? 50 })).sessions;
    },
    async listPage(tenant, opts) {
      const conds = [eq(sessions.tenant, tenant)];
      if (opts.project !== undefined) conds.push(eq(sessions.project, opts.project));
      if (opts.after)
        conds.push(
          or(
            lt(sessions.lastActive, opts.after.lastActive),
            and(eq(sessions.lastActive, opts.after.lastActive), gt(sessions.id, opts.after.id)),
          )!,
        );
      const rows = await db
        .select()
        .from(sessions)
        .where(and(...conds))
        .orderBy(desc(sessions.lastActive), asc(sessions.id))
        .limit(opts.limit + 1);
      const page = rows.slice(0, opts.limit).map(toInfo);
      const last = page[page.length - 1];
      return {
        sessions: page,
        next: rows.length > opts.limit && last ? { lastActive: last.lastActive, id: last.id } : null,
      };
    },
    async append(tenant, id, messages, opts = {}) {
      const row = await need(tenant, id);
      if (opts.expectedSeq !== undefined && opts.expectedSeq !== row.lastSeq)
        throw seqMoved(opts.expectedSeq, row);
      if (messages.length === 0) return row.lastSeq;
      return appendBatch(tenant, id, row.lastSeq, messages, []);
    },
    async appendWithState(tenant, id, messages, state, opts) {
      // One round trip, no read first: the batch moves `lastSeq` from `expectedSeq` on, and each row
      // takes its seq from the moved mark, so when the log was not at `expectedSeq` (or the session is
      // gone) a row's seq is NULL, its insert fails and the whole batch is rolled back.
      const from = opts.expectedSeq;
      const column = await stateCodec.encode(tenant, id, state);
      if (messages.length === 0) {
        const row = await need(tenant, id);
        if (row.lastSeq !== from) throw seqMoved(from, row);
        await driver.batch(stateWrites(tenant, id, state, column));
        await stateCodec.written(tenant, id, column);
        return from;
      }
      const rows = await codec.put(tenant, id, messages);
      const last = from + messages.length;
      const now = clock.now();
      const writes: SqlWrite[] = [
        db
          .update(sessions)
          .set({ lastSeq: last, lastActive: now })
          .where(and(where(tenant, id), eq(sessions.lastSeq, from))),
        ...messages.map((m, i) =>
          insertRow(
            tenant,
            id,
            m,
            rows[i]!,
            sql`(SELECT ${sessions.lastSeq} - ${messages.length - 1 - i} FROM ${sessions} WHERE ${where(tenant, id)} AND ${sessions.lastSeq} = ${last})`,
            now,
          ),
        ),
        ...stateWrites(tenant, id, state, column),
      ];
      try {
        await driver.batch(writes);
      } catch (error) {
        // Only now read why: a moved log, a deleted session, or a storage failure.
        let row: SessionRow;
        try {
          row = await need(tenant, id);
        } catch (read) {
          if (isCtxError(read)) throw read;
          throw new CtxError('storage_error', `could not append to session ${id}`, { cause: error });
        }
        if (row.lastSeq !== from) throw seqMoved(from, row);
        throw appendError(error, id, from + 1);
      }
      await stateCodec.written(tenant, id, column);
      return last;
    },
    async getState(tenant, id) {
      const row = await need(tenant, id);
      return stateCodec.decode(tenant, id, row.state);
    },
    async setState(tenant, id, state) {
      await need(tenant, id);
      const column = await stateCodec.encode(tenant, id, state);
      await driver.batch(stateWrites(tenant, id, state, column));
      await stateCodec.written(tenant, id, column);
    },
    async clear(tenant, id, opts = {}) {
      const row = await need(tenant, id);
      const state: SessionState = { ...EMPTY_SESSION_STATE, working: { throughSeq: row.lastSeq, items: [] } };
      await driver.batch([
        db
          .update(sessions)
          .set({ state: JSON.stringify(state), lastActive: clock.now() })
          .where(where(tenant, id)),
        opts.purge
          ? db.delete(sessionMessages).where(rowsOf(tenant, id))
          : db.update(sessionMessages).set({ compacted: true }).where(rowsOf(tenant, id)),
      ]);
      await stateCodec.written(tenant, id, '');
      if (opts.purge) await codec.drop(tenant, id);
    },
    async delete(tenant, id) {
      const existing = await this.get(tenant, id);
      if (!existing) return false;
      await driver.batch([
        db.delete(sessionMessages).where(rowsOf(tenant, id)),
        db.delete(sessions).where(where(tenant, id)),
      ]);
      await codec.drop(tenant, id);
      return true;
    },
    async cleanup(idleBefore, tenant) {
      const cond =
        tenant === undefined
          ? lt(sessions.lastActive, idleBefore)
          : and(eq(sessions.tenant, tenant), lt(sessions.lastActive, idleBefore));
      const stale = await db.select({ tenant: sessions.tenant, id: sessions.id }).from(sessions).where(cond);
      for (const group of chunked(stale, 20)) {
        const writes: SqlWrite[] = [];
        for (const s of group)
          writes.push(
            db.delete(sessionMessages).where(rowsOf(s.tenant, s.id)),
            db.delete(sessions).where(where(s.tenant, s.id)),
          );
        await driver.batch(writes);
        for (const st of group) await codec.drop(st.tenant, st.id);
      }
      return stale.length;
    },
    async active(since) {
      return db
        .select({ tenant: sessions.tenant, id: sessions.id })
        .from(sessions)
        .where(gte(sessions.lastActive, since))
        .orderBy(asc(sessions.tenant), asc(sessions.id));
    },
  };
}
