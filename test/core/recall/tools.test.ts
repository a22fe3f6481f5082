import { describe, expect, it } from 'vitest';
import {
  assistant,
  contentRef,
  createInMemoryMemoryStore,
  createMemoryRecallArchive,
  createPipeline,
  createRecall,
  createRecallTools,
  fixedClock,
  isCtxError,
  type Message,
  sequentialIds,
  spanRef,
  toolCall,
  toolResult,
  user,
} from '../../../src/core/index.ts';
import { archivedMessages } from '../../../src/core/recall/record.ts';

const counter = { name: 'chars4', countText: (t: string) => Math.ceil(t.length / 4), countMessage: () => 0 };

function tools(maxTokens = 500, memory = false) {
  const archive = createMemoryRecallArchive();
  const store = createInMemoryMemoryStore();
  const t = createRecallTools({
    archive,
    ...(memory ? { memory: { store, tenant: 't', sessionId: 's1' } } : {}),
    counter,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
    maxTokens,
  });
  return { t, archive, store };
}

const history = (): Message[] => [
  user('run the tests', { id: 'u1' }),
  assistant('', [toolCall('c1', 'bash', { command: 'npm test' })], { id: 'a1' }),
  toolResult('c1', 'bash', `${'line\n'.repeat(400)}Tests: 1598 passed, 2 failed (commit 4f2a9c1)\n`, {
    id: 't1',
  }),
  user('what broke?', { id: 'u2' }),
];

describe('createRecallTools', () => {
  it('rereads the whole original by its ref, and finds it by recall, after a journal says it left', async () => {
    const { t, archive } = tools(10_000);
    const h = history();
    const ref = contentRef(h[2]!);
    await archive.put(
      archivedMessages(
        h,
        [
          {
            stage: 'pruning',
            action: 'replaced',
            messageId: 't1',
            tokensBefore: 1,
            tokensAfter: 0,
            location: 'session-log',
            recover: '',
            ref,
          },
        ],
        1,
      ),
    );
    const back = await t.call('reread', { ref });
    expect(back).toContain('Tests: 1598 passed, 2 failed (commit 4f2a9c1)');
    expect(back.match(/line/g)?.length).toBe(400);
    const hits = await t.call('recall', JSON.stringify({ query: 'commit 4f2a9c1' }));
    expect(hits).toContain(`reread('${ref}')`);
    expect(hits).toContain('4f2a9c1');
  });

  it('truncates a large reread to its budget with the call that continues it, and the pieces make the whole', async () => {
    const { t, archive } = tools(100);
    const h = history();
    const ref = contentRef(h[2]!);
    await archive.put(
      archivedMessages(
        h,
        [
          {
            stage: 's',
            action: 'removed',
            messageId: 't1',
            tokensBefore: 0,
            tokensAfter: 0,
            location: 'session-log',
            recover: '',
          },
        ],
        1,
      ),
    );
    let offset = 0;
    let whole = '';
    for (let i = 0; i < 100; i++) {
      const page = await t.reread({ ref, offset });
      const m = page.match(
        /\n\[truncated at character (\d+) of (\d+): call reread\('(\w+)', \{offset: \d+\}\) for the rest\]$/,
      );
      if (!m) {
        whole += page;
        break;
      }
      expect(counter.countText(page.slice(0, m.index))).toBeLessThanOrEqual(100);
      whole += page.slice(0, m.index);
      offset = Number(m[1]);
    }
    expect(whole).toContain('Tests: 1598 passed');
    expect(whole.match(/line/g)?.length).toBe(400);
  });

  it('returns the messages of a summary span in order', async () => {
    const { t, archive } = tools(10_000);
    const h = history();
    const span = spanRef(h.slice(0, 3));
    const entries = h.slice(0, 3).map((m) => ({
      stage: 'compaction',
      action: 'summarized' as const,
      messageId: m.id,
      tokensBefore: 0,
      tokensAfter: 0,
      location: 'session-log',
      recover: '',
      ref: span,
    }));
    await archive.put(archivedMessages(h, entries.reverse(), 1));
    const back = await t.reread({ ref: span });
    expect(back.indexOf('run the tests')).toBeLessThan(back.indexOf('npm test'));
    expect(back.indexOf('npm test')).toBeLessThan(back.indexOf('1598 passed'));
  });

  it('says a ref is unknown, and rejects bad arguments naming them', async () => {
    const { t } = tools();
    expect(await t.reread({ ref: 'm000000000000' })).toMatch(/^Unknown ref/);
    await expect(t.call('reread', { ref: 3 })).rejects.toSatisfy(
      (e) => isCtxError(e, 'invalid_input') && /reread\.ref/.test(String(e)),
    );
    await expect(t.call('recall', { query: 'x', limit: 0 })).rejects.toThrow(/recall\.limit/);
    await expect(t.call('remember', { text: 'x' })).rejects.toThrow(/no memory store/);
    await expect(t.call('forget', {})).rejects.toThrow(/unknown recall tool/);
  });

  it('remembers a fact with its provenance, and recall finds it in memory', async () => {
    const { t, store } = tools(500, true);
    expect(t.definitions.map((d) => d.name)).toEqual(['recall', 'reread', 'remember']);
    expect(await t.call('remember', { text: 'The deploy key lives in vault path ops/deploy' })).toMatch(
      /^Remembered as memory mem_1/,
    );
    const saved = await store.get('t', 'mem_1');
    expect(saved).toMatchObject({ source: 'tool', sessionId: 's1', scope: 'session' });
    expect(await t.recall({ query: 'deploy key vault' })).toContain('ops/deploy');
  });
});

describe('createPipeline recall option', () => {
  it('rejects a bad recall option naming the field', () => {
    expect(() => createRecall({ maxTokens: 3 })).toThrow(/recall\.maxTokens/);
    expect(() => createRecall({ archve: {} } as never)).toThrow(/recall\.archve/);
    expect(() => createPipeline({ recall: 'yes' as never })).toThrow(
      /recall: expected the result of createRecall/,
    );
    expect(() => createPipeline({ recall: { archive: {} } as never })).toThrow(/createRecall/);
  });

  it('counts the recall definitions in the estimate when on', () => {
    const off = createPipeline({ budget: { contextWindow: 32_000 } });
    const on = createPipeline({ budget: { contextWindow: 32_000 }, recall: createRecall() });
    const messages = [user('hi', { id: 'u' })];
    const d = on.estimate({ messages }).tokens - off.estimate({ messages }).tokens;
    expect(d).toBeGreaterThan(50);
    expect(d).toBeLessThan(400);
    expect(on.recall?.definitions.map((x) => x.name)).toEqual(['recall', 'reread']);
  });
});
