/** The reference `SessionStore`: plain maps, for tests and library users without a database. */
import { CtxError } from '../errors.ts';
import { messageText } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import type { Clock } from '../ports.ts';
import { type IdGenerator, randomIds, systemClock } from '../ports.ts';
import { bm25Search } from './bm25.ts';
import { toFtsQuery } from './fts-query.ts';
import type { ChunkRecord } from './memory-store.ts';
import type { RecallHit, SessionInfo, SessionState, SessionStore, StoredMessage } from './session-store.ts';
import { EMPTY_SESSION_STATE, isCompactedRow, referencedSeqs } from './working-context.ts';

interface Entry {
  info: SessionInfo;
  rows: StoredMessage[];
  state: SessionState;
}

export interface InMemorySessionStoreOptions {
  clock?: Clock;
  ids?: IdGenerator;
}

const clone = <T>(v: T): T => structuredClone(v);

/** Code-unit order, as SQLite's BINARY collation sorts. */
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function createInMemorySessionStore(options: InMemorySessionStoreOptions = {}): SessionStore {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const sessions = new Map<string, Entry>();
  const key = (tenant: string, id: string) => `${tenant}\u0000${id}`;
  const need = (tenant: string, id: string): Entry => {
    const e = sessions.get(key(tenant, id));
    if (!e) throw new CtxError('not_found', `session ${id} not found`, { path: 'sessionId' });
    return e;
  };

  return {
    async create(input) {
      const id = input.id ?? ids.next('ses');
      if (sessions.has(key(input.tenant, id)))
        throw new CtxError('conflict', `session ${id} already exists`, { path: 'id' });
      const now = clock.now();
      const info: SessionInfo = {
        tenant: input.tenant,
        id,
        project: input.project ?? '',
        title: input.title ?? null,
        createdAt: now,
        lastActive: now,
        lastSeq: 0,
      };
      sessions.set(key(input.tenant, id), { info, rows: [], state: EMPTY_SESSION_STATE });
      return { ...info };
    },
    async get(tenant, id) {
      const e = sessions.get(key(tenant, id));
      return e ? { ...e.info } : undefined;
    },
    async list(tenant, opts = {}) {
      return [...sessions.values()]
        .map((e) => e.info)
        .filter((i) => i.tenant === tenant && (opts.project === undefined || i.project === opts.project))
        .sort((a, b) => b.lastActive - a.lastActive || (a.id < b.id ? -1 : 1))
        .slice(0, opts.limit ?? 50)
        .map((i) => ({ ...i }));
    },
    async append(tenant, id, messages: readonly Message[], opts = {}) {
      const e = need(tenant, id);
      if (opts.expectedSeq !== undefined && opts.expectedSeq !== e.info.lastSeq)
        throw new CtxError(
          'conflict',
          `expected seq ${opts.expectedSeq} but the log is at ${e.info.lastSeq}`,
          {
            path: 'expectedSeq',
          },
        );
      const now = clock.now();
      for (const m of messages) {
        e.info.lastSeq += 1;
        e.rows.push({ seq: e.info.lastSeq, message: clone(m), createdAt: now, compacted: false });
      }
      e.info.lastActive = now;
      return e.info.lastSeq;
    },
    async messages(tenant, id, opts = {}) {
      const e = need(tenant, id);
      return e.rows
        .filter((r) => r.seq > (opts.afterSeq ?? 0) && (opts.includeCompacted !== false || !r.compacted))
        .map(clone);
    },
    async getState(tenant, id) {
      return clone(need(tenant, id).state);
    },
    async setState(tenant, id, state) {
      const e = need(tenant, id);
      e.state = clone(state);
      const refs = state.working ? referencedSeqs(state.working) : undefined;
      e.rows = e.rows.map((r) => {
        const compacted = isCompactedRow(r.seq, state.working, refs);
        return compacted === r.compacted ? r : { ...r, compacted };
      });
      e.info.lastActive = clock.now();
    },
    async clear(tenant, id, opts = {}) {
      const e = need(tenant, id);
      const working = { throughSeq: e.info.lastSeq, items: [] };
      e.state = { ...EMPTY_SESSION_STATE, working };
      e.rows = opts.purge ? [] : e.rows.map((r) => ({ ...r, compacted: true }));
      e.info.lastActive = clock.now();
    },
    async delete(tenant, id) {
      return sessions.delete(key(tenant, id));
    },
    async cleanup(idleBefore, tenant) {
      let n = 0;
      for (const [k, e] of sessions)
        if ((tenant === undefined || e.info.tenant === tenant) && e.info.lastActive < idleBefore) {
          sessions.delete(k);
          n++;
        }
      return n;
    },
    async active(since) {
      return [...sessions.values()]
        .filter((e) => e.info.lastActive >= since)
        .map((e) => ({ tenant: e.info.tenant, id: e.info.id }))
        .sort((a, b) => cmp(a.tenant, b.tenant) || cmp(a.id, b.id));
    },
    async recall(tenant, q) {
      const docs: ChunkRecord[] = [];
      const meta = new Map<string, RecallHit>();
      for (const e of sessions.values()) {
        if (e.info.tenant !== tenant || e.info.project !== q.project || e.info.id === q.excludeSession)
          continue;
        for (const r of e.rows) {
          if (r.message.role !== 'user' && r.message.role !== 'assistant') continue;
          const text = messageText(r.message);
          if (text.trim() === '') continue;
          const cid = `${e.info.id}\u0000${r.seq}`;
          docs.push({
            tenant,
            id: cid,
            project: '',
            userId: '',
            source: '',
            startLine: 0,
            endLine: 0,
            text,
            date: null,
            embedding: null,
            model: null,
          });
          meta.set(cid, {
            sessionId: e.info.id,
            title: e.info.title,
            role: r.message.role,
            text,
            seq: r.seq,
          });
        }
      }
      // The same terms as the SQL store's FTS5 query: stopwords dropped, then stemmed by bm25Search.
      const terms = toFtsQuery(q.query, { dropStopwords: true }).replaceAll('"', '').replaceAll(' OR ', ' ');
      return bm25Search(docs, terms, q.limit ?? 3).map((h) => meta.get(h.chunk.id)!);
    },
  };
}
