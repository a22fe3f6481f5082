import { describe, expect, it } from 'vitest';
import {
  type Conversation,
  createInMemoryMemoryStore,
  hashingEmbedder,
  indexConversation,
  isCtxError,
  type MemoryStore,
  type SearchOptions,
  searchMemory,
  turnIdOf,
} from '../../../src/core/index.ts';
import { SEARCH_OFF as PLAIN } from '../../support/search-off.ts';

const NOW = Date.parse('2023-08-01T00:00:00Z');
const talk = (date: string, id: string, lines: [string, string][]) => ({
  id,
  date,
  turns: lines.map(([speaker, text], i) => ({ id: `${id}:${i + 1}`, speaker, text })),
});

async function indexed(sessions: Conversation['sessions'], embedder = hashingEmbedder(256)) {
  const store = createInMemoryMemoryStore();
  await indexConversation(store, { id: 'c1', sessions }, { tenant: 't', embedder, factKeys: false });
  return { store, embedder };
}

const turnIds = async (store: MemoryStore, query: string, options: SearchOptions) =>
  (await searchMemory(store, 't', query, { now: NOW, minScore: 0, ...options })).map((h) =>
    turnIdOf(h.chunk),
  );

describe('searchMemory, the statement query (default mode)', () => {
  it('ranks the turn that states the answer above the turn that asks the same question', async () => {
    const { store, embedder } = await indexed([
      talk('2023-05-08', 's1', [
        ['Bo', 'What does Ann do at weekends, what does she do?'],
        ['Ann', 'At weekends I partake in pottery.'],
        ['Bo', 'The weather was bad.'],
      ]),
    ]);
    const q = 'What does Ann partake in at weekends?';
    const vectorOnly = {
      ...PLAIN,
      embedder,
      keywordWeight: 0,
      listKeywordWeight: 0,
      neighbourWeight: 0,
      sourceWeight: 0,
    };
    expect((await turnIds(store, q, vectorOnly))[0]).toBe('s1:1');
    expect((await turnIds(store, q, { ...vectorOnly, statementWeight: 1 }))[0]).toBe('s1:2');
  });

  it("throws 'invalid_config' for a statement weight above 1", async () => {
    const { store } = await indexed([talk('2023-05-08', 's1', [['Ann', 'hi']])]);
    const error = await searchMemory(store, 't', 'hi', { statementWeight: 1.5 }).catch((e: unknown) => e);
    expect(isCtxError(error) && error.code === 'invalid_config' && error.path).toBe('statementWeight');
  });
});

describe('searchMemory, a question that asks for several things (default mode)', () => {
  const sessions = [
    talk('2023-05-08', 's1', [
      ['Ann', 'We did hikes in the hills, long hikes.'],
      ['Ann', 'More hikes on Sunday, hikes all day.'],
      ['Ann', 'Two hikes with the kids.'],
      ['Ann', 'Hikes again, the hikes were steep.'],
      ['Ann', 'The last of the hikes, hikes by the lake.'],
    ]),
    talk('2023-06-10', 's2', [['Ann', 'A hike up the coast.']]),
  ];

  it('takes at most listPerSession hits of one session before the other sessions', async () => {
    const { store } = await indexed(sessions);
    const list = 'What hikes has Ann done?';
    const top = async (q: string, listPerSession: number) =>
      (await turnIds(store, q, { ...PLAIN, maxResults: 5, listPerSession })).map((id) => id?.split(':')[0]);
    expect(await top(list, 0)).toEqual(['s1', 's1', 's1', 's1', 's1']);
    expect(await top(list, 4)).toEqual(['s1', 's1', 's1', 's1', 's2']);
    // A question for one thing keeps its ranking.
    expect(await top('Which hike did Ann like?', 4)).toEqual(await top('Which hike did Ann like?', 0));
  });

  it('uses the list keyword, fact and neighbour weights in place of the general ones', async () => {
    const { store, embedder } = await indexed(sessions);
    const list = { keywordWeight: 0.25, factWeight: 2, neighbourWeight: 0 };
    const asList = { listKeywordWeight: 0.25, listFactWeight: 2, listNeighbourWeight: 0 };
    const scored = async (q: string, o: SearchOptions) =>
      (await searchMemory(store, 't', q, { now: NOW, minScore: 0, embedder, ...o })).map((h) => [
        turnIdOf(h.chunk),
        h.score,
      ]);
    const several = 'What hikes has Ann done?';
    expect(await scored(several, { ...PLAIN, ...asList })).toEqual(
      await scored(several, { ...PLAIN, ...list, ...asList }),
    );
    expect(await scored(several, { ...PLAIN, ...asList })).not.toEqual(await scored(several, PLAIN));
    const one = 'Which hike did Ann like?';
    expect(await scored(one, { ...PLAIN, ...asList })).toEqual(await scored(one, PLAIN));
  });

  it("throws 'invalid_config' for a per-session cap that is not a whole number", async () => {
    const { store } = await indexed(sessions);
    const error = await searchMemory(store, 't', 'hikes', { listPerSession: 1.5 }).catch((e: unknown) => e);
    expect(isCtxError(error) && error.code === 'invalid_config' && error.path).toBe('listPerSession');
  });
});
