/**
 * The shared `MemoryStore` suite: every implementation (in-memory, SQLite, D1) must pass it.
 * Runtime-neutral: only vitest and core.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  consolidateMemories,
  documentFiles,
  exportMarkdown,
  fixedClock,
  hashingEmbedder,
  indexConversation,
  indexDocument,
  type ListMemoriesOptions,
  type MemoryRecord,
  type MemoryStore,
  saveMemory,
  searchMemory,
  toFtsQuery,
  turnIdOf,
  unitIndexOf,
  writeFlush,
} from '../../src/core/index.ts';

export interface MemoryStoreHarness {
  store: MemoryStore;
  close?(): Promise<void> | void;
}

export type MemoryStoreFactory = () => Promise<MemoryStoreHarness>;

const T0 = Date.parse('2026-03-01T00:00:00Z');
const DAY = 86_400_000;

export function memory(id: string, patch: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    tenant: 't1',
    id,
    project: 'p',
    userId: '',
    type: 'project',
    class: 'durable',
    title: id,
    content: `content of ${id}`,
    pinned: false,
    expiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    lastSurfacedAt: null,
    ...patch,
  };
}

export function memoryStoreContract(name: string, factory: MemoryStoreFactory): void {
  describe(`MemoryStore contract: ${name}`, () => {
    let h: MemoryStoreHarness;
    let store: MemoryStore;
    beforeEach(async () => {
      h = await factory();
      store = h.store;
    });
    afterEach(async () => {
      await h.close?.();
    });

    it('round-trips a memory and replaces it on a second put', async () => {
      await store.put(memory('m1', { pinned: true, expiresAt: T0 + DAY }));
      await store.put(memory('m1', { title: 'renamed', updatedAt: T0 + 1 }));
      const got = await store.get('t1', 'm1');
      expect([got?.title, got?.pinned, got?.expiresAt, got?.updatedAt]).toEqual([
        'renamed',
        false,
        null,
        T0 + 1,
      ]);
      expect(await store.get('t2', 'm1')).toBeUndefined();
    });

    it('lists the project and global rows, not other projects, users or tenants', async () => {
      await store.put(memory('mine'));
      await store.put(memory('global', { project: '' }));
      await store.put(memory('other', { project: 'q' }));
      await store.put(memory('alice', { userId: 'alice' }));
      await store.put(memory('t2', { tenant: 't2' }));
      const ids = (await store.list('t1', { project: 'p' })).map((m) => m.id).sort();
      expect(ids).toEqual(['global', 'mine']);
      const withUser = (await store.list('t1', { project: 'p', userId: 'alice', includeGlobal: false })).map(
        (m) => m.id,
      );
      expect(withUser.sort()).toEqual(['alice', 'mine']);
    });

    it('keeps provenance, and lists only what a session may see, by session or by source', async () => {
      await store.put(memory('shared'));
      await store.put(memory('mine', { source: 'assistant', sessionId: 's1', scope: 'session' }));
      await store.put(memory('theirs', { source: 'tool', sessionId: 's2', scope: 'session' }));
      await store.put(memory('widened', { source: 'user', sessionId: 's2', scope: 'shared' }));
      expect(await store.get('t1', 'shared')).toMatchObject({
        source: 'user',
        sessionId: '',
        scope: 'shared',
      });
      expect(await store.get('t1', 'theirs')).toMatchObject({
        source: 'tool',
        sessionId: 's2',
        scope: 'session',
      });
      const ids = async (o: ListMemoriesOptions) => (await store.list('t1', o)).map((m) => m.id).sort();
      expect(await ids({ project: 'p', visibleTo: 's1' })).toEqual(['mine', 'shared', 'widened']);
      expect(await ids({ project: 'p', fromSession: 's2' })).toEqual(['theirs', 'widened']);
      expect(await ids({ sources: ['tool', 'assistant'] })).toEqual(['mine', 'theirs']);
      expect(await ids({})).toEqual(['mine', 'shared', 'theirs', 'widened']);
    });

    it('leaves out expired rows when listing with now', async () => {
      await store.put(memory('live', { expiresAt: T0 + 2 * DAY }));
      await store.put(memory('dead', { expiresAt: T0 + DAY }));
      expect((await store.list('t1', { now: T0 + DAY })).map((m) => m.id)).toEqual(['live']);
    });

    it('names the tenants holding expired memories, once each and in order', async () => {
      await store.put(memory('dead', { tenant: 't2', expiresAt: T0 + DAY }));
      await store.put(memory('dead2', { tenant: 't2', expiresAt: T0 }));
      await store.put(memory('dead', { tenant: 't1', expiresAt: T0 + DAY }));
      await store.put(memory('live', { tenant: 't3', expiresAt: T0 + 2 * DAY }));
      await store.put(memory('forever', { tenant: 't4' }));
      expect(await store.tenantsWithExpired(T0 + DAY)).toEqual(['t1', 't2']);
      expect(await store.tenantsWithExpired(T0 - 1)).toEqual([]);
    });

    it('prunes expired and all but the 10 newest compaction memories, never pinned ones', async () => {
      for (let i = 0; i < 12; i++)
        await store.put(
          memory(`c${String(i).padStart(2, '0')}`, {
            type: 'compaction',
            class: 'working',
            updatedAt: T0 + i,
          }),
        );
      await store.put(
        memory('pinned-old', { type: 'compaction', class: 'working', pinned: true, updatedAt: T0 - 5 }),
      );
      await store.put(memory('pinned-expired', { pinned: true, expiresAt: T0 }));
      await store.put(memory('expired', { expiresAt: T0 }));
      const removed = await consolidateMemories(store, 't1', { now: T0 + DAY, project: 'p' });
      expect(removed.sort()).toEqual(['c00', 'c01', 'expired']);
      const left = (await store.list('t1')).map((m) => m.id);
      expect(left).toContain('pinned-old');
      expect(left).toContain('pinned-expired');
      expect(left.length).toBe(12);
    });

    it('ranks a stronger BM25 match above a weaker one instead of flattening them (cowagent)', async () => {
      await store.put(
        memory('weak', {
          title: 'misc',
          content: 'the deploy uses docker among many other unrelated words here',
        }),
      );
      await store.put(memory('strong', { title: 'deploy', content: 'deploy deploy with docker' }));
      const hits = await searchMemory(store, 't1', 'deploy docker', {
        now: T0,
        minScore: 0,
        mode: 'cowagent',
      });
      expect(hits.map((x) => x.chunk.source)).toEqual(['memory:strong', 'memory:weak']);
      expect(hits[0]!.keywordScore).toBeGreaterThan(hits[1]!.keywordScore);
      expect(hits[0]!.keywordScore).toBeLessThan(1);
    });

    it.each(['say "hello"', 'NEAR(deploy docker)', 'deploy*', '-deploy', '(deploy OR) AND', 'col:deploy ^x'])(
      'finds the row without an FTS5 syntax error when the query is %s',
      async (q) => {
        await store.put(memory('m', { content: 'deploy hello docker near' }));
        const hits = await store.keywordSearch('t1', toFtsQuery(q), {}, 5);
        expect(hits.map((x) => x.chunk.id)).toEqual(['memory:m']);
      },
    );

    it('ranks CJK substring matches by bigram coverage when the query is CJK', async () => {
      await store.put(memory('some', { title: '部署', content: '我们用容器部署' }));
      await store.put(memory('all', { title: '服务', content: '请问如何部署服务呢' }));
      await store.put(memory('en', { content: 'english only' }));
      const hits = await searchMemory(store, 't1', '如何部署服务', {
        now: T0,
        minScore: 0,
        mode: 'cowagent',
      });
      expect(hits.map((x) => [x.chunk.source, x.keywordScore])).toEqual([
        ['memory:all', 0.5],
        ['memory:some', 0.1],
      ]);
    });

    it('finds memories by vector and skips vectors of another model', async () => {
      const embedder = hashingEmbedder(64);
      const other = { ...hashingEmbedder(64), modelId: 'other-model' };
      await saveMemory(store, memory('cats', { content: 'cats purr and sleep' }), embedder);
      await saveMemory(store, memory('dogs', { content: 'cats purr and sleep' }), other);
      const hits = await searchMemory(store, 't1', 'cats purr', { now: T0, embedder, keywordWeight: 0 });
      expect(hits.map((x) => x.chunk.source)).toEqual(['memory:cats']);
      expect(hits[0]!.vectorScore).toBeGreaterThan(0.5);
    });

    it('decays daily chunks with a 30-day half-life and leaves MEMORY.md alone (cowagent)', async () => {
      const now = Date.parse('2026-03-31T12:00:00Z');
      await indexDocument(store, 'memory/2026-03-01.md', 'budget review notes', { tenant: 't1' });
      await indexDocument(store, 'MEMORY.md', 'budget review notes', { tenant: 't1' });
      const hits = await searchMemory(store, 't1', 'budget review notes', {
        now,
        minScore: 0,
        mode: 'cowagent',
      });
      const bySource = new Map(hits.map((x) => [x.chunk.source, x.score]));
      expect(bySource.get('memory/2026-03-01.md')! / bySource.get('MEMORY.md')!).toBeCloseTo(0.5, 5);
    });

    it('replaces the chunks of a source when it is re-indexed', async () => {
      await indexDocument(store, 'MEMORY.md', 'alpha fact', { tenant: 't1' });
      await indexDocument(store, 'MEMORY.md', 'beta fact', { tenant: 't1' });
      expect((await store.keywordSearch('t1', toFtsQuery('alpha'), {}, 5)).length).toBe(0);
      expect((await store.keywordSearch('t1', toFtsQuery('beta'), {}, 5)).length).toBe(1);
    });

    it('writes daily and core memory as documents and exports the same Markdown', async () => {
      const files = documentFiles(store, 't1', fixedClock(T0));
      await writeFlush(files, {
        reason: 'trim',
        date: '2026-03-01',
        time: '09:30',
        daily: '- user asked X',
        longTerm: ['likes tea'],
      });
      await writeFlush(files, { reason: 'overflow', date: '2026-03-01', time: '10:00', daily: '- more' });
      const md = await exportMarkdown(files);
      expect(Object.keys(md).sort()).toEqual(['MEMORY.md', 'memory/2026-03-01.md']);
      expect(md['memory/2026-03-01.md']).toBe(
        '# Daily Memory: 2026-03-01\n\n\n## Trimmed Context (09:30)\n\n- user asked X\n' +
          '\n## Context Overflow Recovery (10:00)\n\nThe following conversation was trimmed due to context overflow:\n- more\n',
      );
      expect(md['MEMORY.md']).toBe('- (2026-03-01) likes tea\n');
    });

    const turns = async (tenant: string, source: string, texts: readonly string[]) =>
      store.replaceChunks(
        tenant,
        source,
        texts.map((text, i) => ({
          tenant,
          id: `${source}#${i + 1}`,
          project: '',
          userId: '',
          source,
          startLine: i + 1,
          endLine: i + 1,
          text,
          date: null,
          embedding: null,
          model: null,
        })),
      );

    it('matches stemmed forms of the query words (porter), by default and in keywordSearch', async () => {
      await turns('t1', 's1', ['She runs marathons every spring.', 'Nothing about sport here.']);
      const hits = await searchMemory(store, 't1', 'Who was running a marathon?');
      expect(hits[0]!.chunk.id).toBe('s1#1');
      expect((await store.keywordSearch('t1', toFtsQuery('running'), {}, 5)).map((x) => x.chunk.id)).toEqual([
        's1#1',
      ]);
    });

    it('finds nothing by keyword for a query made of stopwords only', async () => {
      await turns('t1', 's1', ['What did you do there?', 'It was what it was.']);
      expect(await searchMemory(store, 't1', 'what was it?', { minScore: 0 })).toEqual([]);
    });

    it('ranks the turn after a matching question among the hits (neighbour context)', async () => {
      const fillers = Array.from({ length: 12 }, (_, i) => `Filler remark number ${i} about the weather.`);
      await turns('t1', 's1', [
        ...fillers.slice(0, 6),
        'Which city did your sister move to for the new job?',
        'Lisbon, in March; she loves it there.',
        ...fillers.slice(6),
      ]);
      const hits = await searchMemory(store, 't1', 'sister new job city', { maxResults: 3 });
      expect(hits.map((x) => x.chunk.id).sort()).toEqual(['s1#6', 's1#7', 's1#8']);
      expect(hits[0]!.chunk.id).toBe('s1#7');
      expect(hits.find((x) => x.chunk.id === 's1#8')!.keywordScore).toBe(0);
      const alone = await searchMemory(store, 't1', 'sister new job city', {
        neighbourWeight: 0,
        sourceWeight: 0,
      });
      expect(alone.map((x) => x.chunk.id)).toEqual(['s1#7']);
    });

    it("keeps keyword search within the tenant: another tenant's identical text is not found", async () => {
      await turns('t1', 's1', ['the zebra crossing']);
      await turns('t2', 's1', ['the zebra crossing', 'a zebra herd']);
      expect((await store.keywordRanks('t1', toFtsQuery('zebra'), {}, 10)).map((x) => x.id)).toEqual([
        's1#1',
      ]);
      expect((await searchMemory(store, 't1', 'zebra')).map((x) => x.chunk.tenant)).toEqual(['t1']);
      expect((await store.keywordRanks('t2', toFtsQuery('zebra'), {}, 10)).length).toBe(2);
    });

    it('serves the same decoded chunk index until the tenant is written to', async () => {
      const embedder = hashingEmbedder(32);
      await indexDocument(store, 'MEMORY.md', 'alpha fact', { tenant: 't1', embedder });
      const first = await store.chunkIndex('t1', embedder.modelId);
      expect(first.vectors[0]).toBeInstanceOf(Float32Array);
      expect(await store.chunkIndex('t1', embedder.modelId)).toBe(first);
      await indexDocument(store, 'other.md', 'beta fact', { tenant: 't2', embedder });
      expect(await store.chunkIndex('t1', embedder.modelId)).toBe(first);
      await indexDocument(store, 'MEMORY.md', 'gamma fact', { tenant: 't1', embedder });
      const next = await store.chunkIndex('t1', embedder.modelId);
      expect(next).not.toBe(first);
      expect(next.chunks.map((c) => c.text)).toEqual(['gamma fact']);
      expect((await store.chunkIndex('t1', null)).vectors).toEqual([null]);
    });

    it('does not decay daily memory by default, only with halfLifeDays', async () => {
      const now = Date.parse('2026-03-31T12:00:00Z');
      await indexDocument(store, 'memory/2026-03-01.md', 'budget review notes', { tenant: 't1' });
      await indexDocument(store, 'MEMORY.md', 'budget review notes', { tenant: 't1' });
      const score = async (options: { halfLifeDays?: number }) =>
        new Map(
          (await searchMemory(store, 't1', 'budget review', { now, ...options })).map((x) => [
            x.chunk.source,
            x.score,
          ]),
        );
      const flat = await score({});
      expect(flat.get('memory/2026-03-01.md')).toBeCloseTo(flat.get('MEMORY.md')!, 10);
      const decayed = await score({ halfLifeDays: 30 });
      expect(decayed.get('memory/2026-03-01.md')! / decayed.get('MEMORY.md')!).toBeCloseTo(0.5, 5);
    });

    it('keeps a conversation index: turns in order, units mapped to their turns, hits on turns only', async () => {
      const embedder = hashingEmbedder(32);
      const turns = ['Where did your sister move?', 'Lisbon, in March.', 'Lovely city.'].map((text, i) => ({
        id: `D1:${i + 1}`,
        speaker: i % 2 ? 'Ann' : 'Bo',
        text,
      }));
      await indexConversation(
        store,
        { id: 'c-1', sessions: [{ id: 'session_1', date: '2023-05-08', turns }] },
        { tenant: 't1', embedder, sessionSpan: 8 },
      );
      const index = await store.chunkIndex('t1', embedder.modelId);
      const units = unitIndexOf(index);
      const window = index.byId.get('conversation:c-1/session_1@window#2')!;
      expect(index.chunks.slice(units.coverFrom[window]!, units.coverTo[window]! + 1).map(turnIdOf)).toEqual([
        'D1:1',
        'D1:2',
        'D1:3',
      ]);
      for (const mode of ['default', 'cowagent'] as const) {
        const hits = await searchMemory(store, 't1', "Which city did Ann's sister move to?", {
          mode,
          embedder,
          now: T0,
          minScore: 0,
        });
        expect(hits.map((h) => turnIdOf(h.chunk)).sort()).toEqual(['D1:1', 'D1:2', 'D1:3']);
      }
    });

    it('deletes a memory together with its index chunk', async () => {
      await store.put(memory('gone', { content: 'zebra' }));
      expect(await store.delete('t1', ['gone', 'missing'])).toBe(1);
      expect((await store.keywordSearch('t1', toFtsQuery('zebra'), {}, 5)).length).toBe(0);
    });
  });
}
