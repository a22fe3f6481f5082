import { describe, expect, it } from 'vitest';
import {
  type Conversation,
  createInMemoryMemoryStore,
  hashingEmbedder,
  indexConversation,
  indexDocument,
  isCtxError,
  type MemoryStore,
  namedSpeakers,
  saveMemory,
  searchMemory,
  sourceRole,
  turnIdOf,
  unitIndexOf,
} from '../../../src/core/index.ts';
import { SEARCH_OFF as OFF } from '../../support/search-off.ts';

const NOW = Date.parse('2023-08-01T00:00:00Z');

function conversation(sessions: Conversation['sessions']): Conversation {
  return { id: 'c1', sessions };
}

const talk = (date: string, id: string, lines: [string, string][]) => ({
  id,
  date,
  turns: lines.map(([speaker, text], i) => ({ id: `${id}:${i + 1}`, speaker, text })),
});

async function indexed(c: Conversation, options: Partial<Parameters<typeof indexConversation>[2]> = {}) {
  const store = createInMemoryMemoryStore();
  const written = await indexConversation(store, c, { tenant: 't', ...options });
  return { store, written };
}

const turnIds = async (store: MemoryStore, query: string, options = {}) =>
  (await searchMemory(store, 't', query, { now: NOW, minScore: 0, ...options })).map((h) =>
    turnIdOf(h.chunk),
  );

describe('indexConversation', () => {
  it('writes every turn and window, span and fact-key units that map back to the turns they cover', async () => {
    const { store, written } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Ann', 'hi'],
          ['Bo', 'hello'],
          ['Ann', 'bye'],
        ]),
      ]),
      { sessionSpan: 2 },
    );
    expect(written).toEqual({ turns: 3, units: { window: 3, session: 2, keys: 3, facts: 0 } });
    const index = await store.chunkIndex('t', null);
    const units = unitIndexOf(index);
    const covered = (id: string) => {
      const u = index.byId.get(id)!;
      return index.chunks.slice(units.coverFrom[u]!, units.coverTo[u]! + 1).map((c) => turnIdOf(c));
    };
    expect(covered('conversation:c1/s1@window#1')).toEqual(['s1:1', 's1:2']);
    expect(covered('conversation:c1/s1@window#2')).toEqual(['s1:1', 's1:2', 's1:3']);
    expect(covered('conversation:c1/s1@session#3-3')).toEqual(['s1:3']);
    expect(covered('conversation:c1/s1@keys#2')).toEqual(['s1:2']);
    expect(units.speaker.filter((s) => s !== null)).toEqual(['Ann', 'Bo', 'Ann']);
    expect(sourceRole('conversation:c1/s1@keys')).toEqual({
      role: 'unit',
      kind: 'keys',
      turnSource: 'conversation:c1/s1',
    });
  });

  it.each([
    [{ id: 'has space', sessions: [] }, 'conversation.id'],
    [conversation([talk('8 May', 's1', [['Ann', 'hi']])]), 'conversation.sessions[0].date'],
    [
      conversation([{ id: 's1', turns: [{ id: 'a', speaker: 'Ann: x', text: 'hi' }] }]),
      'conversation.sessions[0].turns[0].speaker',
    ],
    [
      conversation([
        {
          id: 's1',
          turns: [
            { id: 'a', speaker: 'A', text: '1' },
            { id: 'a', speaker: 'B', text: '2' },
          ],
        },
      ]),
      'conversation.sessions[0].turns[1].id',
    ],
  ])("throws 'invalid_input' naming the field for %j", async (bad, path) => {
    const error = await indexConversation(createInMemoryMemoryStore(), bad as Conversation, {
      tenant: 't',
    }).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_input') && error.path).toBe(path);
  });

  it("throws 'invalid_config' for an even window", async () => {
    const error = await indexConversation(createInMemoryMemoryStore(), conversation([]), {
      tenant: 't',
      windowTurns: 2,
    }).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_config') && error.path).toBe('windowTurns');
  });
});

describe('searchMemory over a conversation (default mode)', () => {
  it('ranks the turns of the speaker the question names first (the speaker query)', async () => {
    const { store } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Bo', 'You play the violin so well, Ann! Play the violin more often!'],
          ['Ann', 'Thanks! I practise the violin every morning.'],
          ['Bo', 'Lovely weather today.'],
        ]),
      ]),
    );
    const q = 'How often does Ann play the violin?';
    expect((await turnIds(store, q, OFF))[0]).toBe('s1:1');
    expect((await turnIds(store, q, { ...OFF, speakerWeight: 0.3 }))[0]).toBe('s1:2');
    expect((await turnIds(store, q))[0]).toBe('s1:2');
  });

  it('ranks a turn of the day the question names first (time-aware expansion)', async () => {
    const { store } = await indexed(
      conversation([
        talk('2023-03-02', 's1', [
          ['Ann', 'We went hiking.'],
          ['Bo', 'Sounds fun.'],
        ]),
        talk('2023-07-08', 's2', [
          ['Ann', 'We went hiking yesterday, up the hills.'],
          ['Bo', 'Nice.'],
        ]),
      ]),
      { factKeys: false },
    );
    const q = 'Where did Ann go hiking on 7 July, 2023?';
    expect((await turnIds(store, q, OFF))[0]).toBe('s1:1');
    expect((await turnIds(store, q, { ...OFF, timeWeight: 0.2 }))[0]).toBe('s2:1');
    expect((await turnIds(store, q))[0]).toBe('s2:1');
  });

  it('lifts a turn through the window around it and names the window in the hit', async () => {
    const { store } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Bo', 'How was the weekend?'],
          ['Ann', 'Quiet, some gardening.'],
          ['Bo', 'Where did your sister move for the new job?'],
          ['Ann', 'Lisbon, she loves it there.'],
          ['Bo', 'Sorry to hear.'],
        ]),
      ]),
      { factKeys: false },
    );
    const q = 'Which city did the sister move to for her new job?';
    const answer = async (options: object) =>
      (await searchMemory(store, 't', q, { now: NOW, minScore: 0, ...options })).find(
        (h) => turnIdOf(h.chunk) === 's1:4',
      )!;
    const without = await answer(OFF);
    const withWindows = await answer({ ...OFF, windowWeight: 0.5 });
    expect(without.keywordScore).toBe(0);
    expect(withWindows.score).toBeGreaterThan(without.score);
    expect(without.via).toBeUndefined();
    expect(withWindows.via?.kind).toBe('window');
    expect(withWindows.via?.id).toMatch(/^conversation:c1\/s1@window#[345]$/);
  });

  it("matches a turn's fact key: its speaker's name and its resolved dates", async () => {
    const { store } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Ann', 'Yesterday I adopted a puppy.'],
          ['Bo', 'A puppy!'],
        ]),
      ]),
      { windowTurns: 1 },
    );
    const [hit] = await searchMemory(store, 't', 'puppy adopted 7 May 2023', { now: NOW });
    expect(turnIdOf(hit!.chunk)).toBe('s1:1');
    expect(hit!.via?.kind).toBe('keys');
  });

  it('scores in 0–1 and returns only turns, never units', async () => {
    const embedder = hashingEmbedder(64);
    const { store } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Ann', 'I bake bread.'],
          ['Bo', 'I bake cakes.'],
        ]),
      ]),
      { embedder, sessionSpan: 4 },
    );
    const hits = await searchMemory(store, 't', 'When did Ann bake bread in May 2023?', {
      now: NOW,
      embedder,
      minScore: 0,
    });
    expect(hits.every((h) => sourceRole(h.chunk.source).role === 'turn' && h.score > 0 && h.score <= 1)).toBe(
      true,
    );
  });
});

describe('searchMemory, cowagent mode over a conversation', () => {
  it('never returns units', async () => {
    const embedder = hashingEmbedder(64);
    const { store } = await indexed(
      conversation([
        talk('2023-05-08', 's1', [
          ['Ann', 'I bake bread.'],
          ['Bo', 'Bread again?'],
        ]),
      ]),
      { embedder, sessionSpan: 4 },
    );
    const hits = await searchMemory(store, 't', 'bread', {
      mode: 'cowagent',
      now: NOW,
      embedder,
      minScore: 0,
    });
    expect(hits.map((h) => turnIdOf(h.chunk)).sort()).toEqual(['s1:1', 's1:2']);
  });
});

describe('searchMemory over plain memories (default mode)', () => {
  it('ranks and scores exactly as with every unit and query-signal weight at 0', async () => {
    const store = createInMemoryMemoryStore();
    const embedder = hashingEmbedder(64);
    await indexDocument(store, 'MEMORY.md', 'Ann plays the violin.\nBo bakes bread in May.', {
      tenant: 't',
      embedder,
    });
    await indexDocument(store, 'notes.md', 'The violin teacher moved to Lisbon in 2023.', {
      tenant: 't',
      embedder,
    });
    await saveMemory(
      store,
      {
        tenant: 't',
        id: 'm1',
        project: '',
        userId: '',
        type: 'user',
        class: 'durable',
        title: 'Ann',
        content: 'prefers tea',
        pinned: false,
        expiresAt: null,
        createdAt: 0,
        updatedAt: 0,
        lastSurfacedAt: null,
      },
      embedder,
    );
    for (const q of [
      'When did Ann start the violin in 2023?',
      'bread',
      'Who is Ann?',
      'What cities has Ann seen?',
    ]) {
      const now = { now: NOW, embedder, minScore: 0 };
      const a = await searchMemory(store, 't', q, now);
      const b = await searchMemory(store, 't', q, { ...now, ...OFF });
      expect(a.map((h) => [h.chunk.id, h.score])).toEqual(b.map((h) => [h.chunk.id, h.score]));
    }
  });
});

describe('searchMemory over daily memory (default mode)', () => {
  it('ranks the daily file of the month the query names first', async () => {
    const store = createInMemoryMemoryStore();
    await indexDocument(store, 'memory/2023-03-02.md', 'Budget review: the budget review went well.', {
      tenant: 't',
    });
    await indexDocument(store, 'memory/2023-07-08.md', 'Budget review, second round.', { tenant: 't' });
    const first = async (options: object) =>
      (await searchMemory(store, 't', 'budget review in July 2023', { now: NOW, ...options }))[0]!.chunk
        .source;
    expect(await first({ timeWeight: 0 })).toBe('memory/2023-03-02.md');
    expect(await first({})).toBe('memory/2023-07-08.md');
  });
});

describe('namedSpeakers', () => {
  it('finds whole-word names, possessives and any case, not names inside other words', () => {
    expect([...namedSpeakers("What is ann's job? Ask Bo.", ['ann', 'bo', 'annabel'])]).toEqual(['ann', 'bo']);
    expect([...namedSpeakers('Annabel and Bob', ['ann', 'bo'])]).toEqual([]);
  });
});
