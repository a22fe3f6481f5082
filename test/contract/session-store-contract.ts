/**
 * The shared `SessionStore` suite: every implementation (in-memory, SQLite, D1) must pass it.
 * Runtime-neutral: only vitest and core.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assistant,
  EMPTY_SESSION_STATE,
  fixedClock,
  isCtxError,
  loadContext,
  resolveWorkingContext,
  type SessionStore,
  saveContext,
  system,
  toolCall,
  toolResult,
  user,
} from '../../src/core/index.ts';

export interface SessionStoreHarness {
  store: SessionStore;
  close?(): Promise<void> | void;
}

export type SessionStoreFactory = (clock: ReturnType<typeof fixedClock>) => Promise<SessionStoreHarness>;

const DAY = 86_400_000;

export function sessionStoreContract(name: string, factory: SessionStoreFactory): void {
  describe(`SessionStore contract: ${name}`, () => {
    let h: SessionStoreHarness;
    let store: SessionStore;
    let clock: ReturnType<typeof fixedClock>;
    beforeEach(async () => {
      clock = fixedClock('2026-03-01T00:00:00Z');
      h = await factory(clock);
      store = h.store;
    });
    afterEach(async () => {
      await h.close?.();
    });

    it('keeps messages in seq order with their parts when appended in two batches', async () => {
      await store.create({ tenant: 't1', id: 's1', project: 'p' });
      const seq1 = await store.append('t1', 's1', [
        user('hi', { id: 'u1' }),
        assistant('yo', [toolCall('c1', 'grep', { q: 'x' })], { id: 'a1' }),
      ]);
      const seq2 = await store.append('t1', 's1', [toolResult('c1', 'grep', 'out', { id: 't1' })], {
        expectedSeq: seq1,
      });
      const rows = await store.messages('t1', 's1');
      expect([seq1, seq2]).toEqual([2, 3]);
      expect(rows.map((r) => [r.seq, r.message.id, r.message.role])).toEqual([
        [1, 'u1', 'user'],
        [2, 'a1', 'assistant'],
        [3, 't1', 'tool'],
      ]);
      expect(rows[1]!.message.parts[1]).toEqual({
        type: 'tool-call',
        id: 'c1',
        name: 'grep',
        args: { q: 'x' },
      });
    });

    it("throws 'conflict' when expectedSeq is stale", async () => {
      await store.create({ tenant: 't1', id: 's1' });
      await store.append('t1', 's1', [user('a')]);
      const error = await store.append('t1', 's1', [user('b')], { expectedSeq: 0 }).catch((e: unknown) => e);
      expect(isCtxError(error, 'conflict')).toBe(true);
      expect((await store.messages('t1', 's1')).length).toBe(1);
    });

    it("throws 'not_found' when appending to a missing session", async () => {
      const error = await store.append('t1', 'nope', [user('a')]).catch((e: unknown) => e);
      expect(isCtxError(error, 'not_found')).toBe(true);
    });

    it("throws 'conflict' when creating an existing session id", async () => {
      await store.create({ tenant: 't1', id: 's1' });
      const error = await store.create({ tenant: 't1', id: 's1' }).catch((e: unknown) => e);
      expect(isCtxError(error, 'conflict')).toBe(true);
    });

    it('isolates tenants when two tenants use the same session id', async () => {
      await store.create({ tenant: 't1', id: 's1' });
      await store.create({ tenant: 't2', id: 's1' });
      await store.append('t1', 's1', [user('secret')]);
      expect((await store.messages('t2', 's1')).length).toBe(0);
      expect((await store.list('t2')).map((s) => s.id)).toEqual(['s1']);
      expect(await store.get('t3', 's1')).toBeUndefined();
    });

    it('lists the most recently active session first, filtered by project', async () => {
      await store.create({ tenant: 't1', id: 'old', project: 'p' });
      clock.advance(1000);
      await store.create({ tenant: 't1', id: 'other', project: 'q' });
      clock.advance(1000);
      await store.create({ tenant: 't1', id: 'new', project: 'p' });
      clock.advance(1000);
      await store.append('t1', 'old', [user('resume me')]);
      expect((await store.list('t1', { project: 'p' })).map((s) => s.id)).toEqual(['old', 'new']);
      expect((await store.get('t1', 'old'))?.lastSeq).toBe(1);
    });

    it('keeps the full log and flags compacted rows when the working context replaces old rows', async () => {
      await store.create({ tenant: 't1', id: 's1' });
      await store.append('t1', 's1', [
        user('q1', { id: 'u1' }),
        assistant('a1', [], { id: 'a1' }),
        user('q2', { id: 'u2' }),
      ]);
      const summary = system('summary of q1', { id: 'sum1' });
      await store.setState('t1', 's1', {
        ...EMPTY_SESSION_STATE,
        pipeline: { ...EMPTY_SESSION_STATE.pipeline, compactionFailures: 1 },
        working: { throughSeq: 3, items: [{ message: summary }, { seq: 3 }] },
      });
      await store.append('t1', 's1', [assistant('a2', [], { id: 'a2' })]);
      const rows = await store.messages('t1', 's1');
      expect(rows.map((r) => [r.message.id, r.compacted])).toEqual([
        ['u1', true],
        ['a1', true],
        ['u2', false],
        ['a2', false],
      ]);
      const state = await store.getState('t1', 's1');
      expect(state.pipeline.compactionFailures).toBe(1);
      expect(resolveWorkingContext(rows, state.working).map((m) => m.id)).toEqual(['sum1', 'u2', 'a2']);
      expect((await store.messages('t1', 's1', { includeCompacted: false })).map((r) => r.seq)).toEqual([
        3, 4,
      ]);
      expect((await store.messages('t1', 's1', { afterSeq: 3 })).map((r) => r.seq)).toEqual([4]);
    });

    it('resets the working context but keeps the log when cleared without purge', async () => {
      await store.create({ tenant: 't1', id: 's1' });
      await store.append('t1', 's1', [user('q1'), assistant('a1')]);
      await store.clear('t1', 's1');
      const rows = await store.messages('t1', 's1');
      const state = await store.getState('t1', 's1');
      expect(rows.length).toBe(2);
      expect(resolveWorkingContext(rows, state.working)).toEqual([]);
      await store.clear('t1', 's1', { purge: true });
      expect((await store.messages('t1', 's1')).length).toBe(0);
      expect(await store.append('t1', 's1', [user('again')])).toBe(3);
    });

    it('deletes sessions idle for longer than the cutoff and keeps active ones', async () => {
      await store.create({ tenant: 't1', id: 'idle' });
      await store.append('t1', 'idle', [user('x')]);
      clock.advance(31 * DAY);
      await store.create({ tenant: 't1', id: 'fresh' });
      const removed = await store.cleanup(clock.now() - 30 * DAY);
      expect(removed).toBe(1);
      expect((await store.list('t1')).map((s) => s.id)).toEqual(['fresh']);
      await store.create({ tenant: 't1', id: 'idle' });
      expect((await store.messages('t1', 'idle')).length).toBe(0);
    });

    it('lists the sessions of every tenant active since a time, by tenant and id', async () => {
      await store.create({ tenant: 't2', id: 'old' });
      clock.advance(2 * DAY);
      const since = clock.now();
      await store.create({ tenant: 't2', id: 'b' });
      await store.create({ tenant: 't1', id: 'z' });
      await store.create({ tenant: 't2', id: 'a' });
      expect(await store.active(since)).toEqual([
        { tenant: 't1', id: 'z' },
        { tenant: 't2', id: 'a' },
        { tenant: 't2', id: 'b' },
      ]);
      await store.append('t2', 'old', [user('back again')]);
      expect((await store.active(since)).map((s) => s.id)).toContain('old');
    });

    it("recalls other sessions' text of the same project, best match first", async () => {
      await store.create({ tenant: 't1', id: 'cur', project: 'p' });
      await store.create({ tenant: 't1', id: 'a', project: 'p', title: 'Deploy' });
      await store.create({ tenant: 't1', id: 'b', project: 'q' });
      await store.create({ tenant: 't2', id: 'c', project: 'p' });
      await store.append('t1', 'cur', [user('the kubernetes deploy failed')]);
      await store.append('t1', 'a', [
        user('how do I configure the kubernetes deploy pipeline'),
        assistant('use the kubernetes helm chart for the deploy'),
        user('unrelated lunch plans'),
      ]);
      await store.append('t1', 'b', [user('kubernetes deploy in project q')]);
      await store.append('t2', 'c', [user('kubernetes deploy of another tenant')]);
      const hits = await store.recall('t1', {
        project: 'p',
        excludeSession: 'cur',
        query: 'kubernetes "deploy" (NEAR',
      });
      expect(hits.map((h) => [h.sessionId, h.title]).every(([s, t]) => s === 'a' && t === 'Deploy')).toBe(
        true,
      );
      expect(hits.length).toBe(2);
      expect(hits.map((h) => h.role).sort()).toEqual(['assistant', 'user']);
    });

    it('recalls by stemmed content words, not by the stopwords of the query', async () => {
      await store.create({ tenant: 't1', id: 'cur', project: 'p' });
      await store.create({ tenant: 't1', id: 'a', project: 'p' });
      await store.append('t1', 'a', [
        user('what was it that you did there and what was it for'),
        assistant('we deployed the billing service'),
      ]);
      const hits = await store.recall('t1', {
        project: 'p',
        excludeSession: 'cur',
        query: 'what was it we did when deploying?',
      });
      expect(hits.map((h) => h.text)).toEqual(['we deployed the billing service']);
      expect(
        await store.recall('t1', { project: 'p', excludeSession: 'cur', query: 'what was it?' }),
      ).toEqual([]);
    });

    it('keeps an incremental context by conversation id and resumes it where it left off', async () => {
      const key = { tenant: 't1', id: 'thread-7' };
      const history = [
        user('find the flaky test', { id: 'u1' }),
        assistant('', [toolCall('c1', 'grep', { q: 'flaky' })], { id: 'a1' }),
        toolResult('c1', 'grep', 'test/a.test.ts:12', { id: 'r1' }),
      ];
      const first = await loadContext(store, key);
      expect((await first.prepare(history)).match).toBe('new');
      await saveContext(store, key, first);
      expect((await store.getState('t1', 'thread-7')).context?.seen).toHaveLength(3);
      const later = [...history, assistant('It is test/a.test.ts.', [], { id: 'a2' })];
      const run = await (await loadContext(store, key)).prepare(later);
      expect([run.match, run.fed]).toEqual(['continued', 1]);
      expect(run.send.map((m) => m.id)).toEqual(['u1', 'a1', 'r1', 'a2']);
      expect(run.send[3]).toBe(later[3]);
      expect((await loadContext(store, { tenant: 't2', id: 'thread-7' })).toJSON().seen).toEqual([]);
    });
  });
}
