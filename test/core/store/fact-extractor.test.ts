import { describe, expect, it } from 'vitest';
import {
  type Conversation,
  createInMemoryMemoryStore,
  FACT_SYSTEM_PROMPT,
  type FactCall,
  factExtractorFrom,
  type IndexedFacts,
  indexConversation,
  indexFacts,
  isCtxError,
  searchMemory,
  turnIdOf,
} from '../../../src/core/index.ts';

const conversation: Conversation = {
  id: 'c1',
  sessions: [
    {
      id: 's1',
      date: '2023-05-08',
      turns: [
        { id: 'D1:1', speaker: 'Ann', text: 'Guess what, we got a dog!' },
        { id: 'D1:2', speaker: 'Bo', text: 'What is its name?' },
        { id: 'D1:3', speaker: 'Ann', text: 'Biscuit. A golden retriever.' },
        { id: 'D1:4', speaker: 'Bo', text: 'Cute!' },
      ],
    },
    { id: 's2', date: '2023-06-01', turns: [{ id: 'D2:1', speaker: 'Ann', text: 'Hello again.' }] },
  ],
};

const answer = JSON.stringify({
  facts: [
    { fact: 'Ann adopted a golden retriever named Biscuit in May 2023.', turns: ['D1:1', 'D1:3', 'D9:9'] },
    { fact: 'Nobody knows.', turns: ['D9:9'] },
  ],
});

describe('factExtractorFrom', () => {
  it('asks with the session date and turn ids, and keeps facts citing known turns', async () => {
    const calls: FactCall[] = [];
    const extractor = factExtractorFrom((call) => {
      calls.push(call);
      return `\`\`\`json\n${answer}\n\`\`\``;
    });
    const facts = await extractor.extract(conversation.sessions[0]!);
    expect(calls[0]!.system).toBe(FACT_SYSTEM_PROMPT);
    expect(calls[0]!.prompt).toContain('Session date: 2023-05-08');
    expect(calls[0]!.prompt).toContain('[D1:3] Ann: Biscuit. A golden retriever.');
    expect(facts).toEqual([
      { text: 'Ann adopted a golden retriever named Biscuit in May 2023.', turns: ['D1:1', 'D1:3'] },
    ]);
  });

  it.each([
    ['not json', /not JSON/],
    ['{"items":[]}', /no "facts" array/],
  ])("throws 'provider_error' when the model answers %s", async (text, message) => {
    const error = await factExtractorFrom(() => text)
      .extract(conversation.sessions[0]!)
      .catch((e: unknown) => e);
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(String(error)).toMatch(message);
  });
});

describe('indexFacts', () => {
  it('writes one facts unit per run of cited turns, found by search with the fact as provenance', async () => {
    const store = createInMemoryMemoryStore();
    await indexConversation(store, conversation, { tenant: 't', windowTurns: 1, factKeys: false });
    const failing = factExtractorFrom((call) => {
      if (call.prompt.includes('Hello again')) throw new Error('rate limited');
      return answer;
    });
    const result = await indexFacts(store, conversation, failing, { tenant: 't' });
    expect(result.facts).toBe(1);
    expect(result.failed).toEqual([{ session: 's2', error: expect.stringMatching(/rate limited/) }]);
    const index = await store.chunkIndex('t', null);
    expect(
      index.chunks.filter((c) => c.source.endsWith('@facts')).map((c) => [c.startLine, c.endLine]),
    ).toEqual([
      [1, 1],
      [3, 3],
    ]);
    const [hit] = await searchMemory(store, 't', 'What breed is the dog Ann adopted?', { minScore: 0 });
    expect(turnIdOf(hit!.chunk)).toBe('D1:1');
    expect(hit!.via?.kind).toBe('facts');
  });
});

describe('indexConversation with facts', () => {
  it('resolves before the model answers and hands the fact indexing to defer, which then adds the facts', async () => {
    const store = createInMemoryMemoryStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const calls: string[] = [];
    const extractor = factExtractorFrom(async (call) => {
      calls.push(call.prompt);
      await gate;
      return call.prompt.includes('D1:1') ? answer : '{"facts":[]}';
    });
    const deferred: Promise<IndexedFacts>[] = [];
    const indexed = await indexConversation(store, conversation, {
      tenant: 't',
      facts: { extractor, defer: (work) => deferred.push(work) },
    });
    expect(indexed.turns).toBe(5);
    expect(deferred).toHaveLength(1);
    const factChunks = async () =>
      (await store.chunkIndex('t', null)).chunks.filter((c) => c.source.endsWith('@facts')).length;
    expect(await factChunks()).toBe(0);
    release();
    expect(await deferred[0]).toEqual({ facts: 1, failed: [] });
    expect(calls).toHaveLength(2);
    // One fact citing D1:1 and D1:3: two runs of turns, two units.
    expect(await factChunks()).toBe(2);
    const hits = await searchMemory(store, 't', 'golden retriever adopted', { minScore: 0 });
    expect(hits.map((h) => turnIdOf(h.chunk))).toContain('D1:1');
  });

  it('reports a failing model in the deferred result and never rejects', async () => {
    const deferred: Promise<IndexedFacts>[] = [];
    await indexConversation(createInMemoryMemoryStore(), conversation, {
      tenant: 't',
      facts: {
        extractor: factExtractorFrom(() => Promise.reject(new Error('model down'))),
        defer: (work) => deferred.push(work),
      },
    });
    const result = await deferred[0]!;
    expect([result.facts, result.failed.map((f) => f.session)]).toEqual([0, ['s1', 's2']]);
    expect(result.failed[0]!.error).toContain('model down');
  });

  it('reports a failing write in the deferred result instead of rejecting', async () => {
    const store = createInMemoryMemoryStore();
    const deferred: Promise<IndexedFacts>[] = [];
    await indexConversation(store, conversation, {
      tenant: 't',
      facts: { extractor: factExtractorFrom(() => answer), defer: (work) => deferred.push(work) },
    });
    store.replaceChunks = () => Promise.reject(new Error('disk full'));
    // The write of the first session's facts fails after indexConversation resolved.
    const result = await deferred[0]!;
    expect(result.failed).toEqual([{ session: '*', error: 'disk full' }]);
  });

  it('refuses a facts option without an extractor or defer, naming it, before writing anything', async () => {
    const store = createInMemoryMemoryStore();
    const error = await indexConversation(store, conversation, {
      tenant: 't',
      facts: { extractor: factExtractorFrom(() => answer) } as never,
    }).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_config') && error.path).toBe('facts');
    expect((await store.chunkIndex('t', null)).chunks).toHaveLength(0);
  });
});
