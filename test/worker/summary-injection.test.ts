import { afterAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker | undefined;
afterAll(async () => {
  await w?.dispose();
});

function chat(turns: number) {
  const messages: unknown[] = [];
  for (let i = 0; i < turns; i++)
    messages.push(
      { role: 'user', content: `Question ${i} about topic ${i}` },
      { role: 'assistant', content: `Answer ${i}: topic ${i} is fine.` },
    );
  return { format: 'openai', messages };
}

describe('background summary injection (cowagent preset)', () => {
  it('is pending after a trim, survives a restart, and is applied from the next turn', async () => {
    w = await startWorker();
    const key = await w.createKey('acme');
    let api = client(w, key);
    await api.post('/v1/sessions', {
      id: 'c',
      preset: 'cowagent',
      config: { cowagentTrim: { maxContextTurns: 4 } },
    });
    await api.post('/v1/sessions/c/messages', chat(6));

    const first = await api.post('/v1/sessions/c/prepare', {});
    expect(first.body.events.map((e: { type: string }) => e.type)).toContain('summary-pending');
    expect(first.body.contextIds).toEqual(['m7', 'm8', 'm9', 'm10', 'm11', 'm12']);
    expect(first.body.messages[0].parts[0].text).toBe('Question 3 about topic 3');
    expect((await api.get('/v1/sessions/c/stats')).body.pendingInjections).toBe(1);

    // The pending injection lives in D1 with the session state, not in the object's memory.
    await w.dispose({ keepState: true });
    w = await startWorker({ persistDir: w.persistDir, migrate: false });
    api = client(w, key);

    await api.post('/v1/sessions/c/messages', {
      format: 'openai',
      messages: [{ role: 'user', content: 'next question' }],
    });
    const second = await api.post('/v1/sessions/c/prepare', {});
    expect(second.body.events).toEqual([
      { type: 'summary-applied', stage: 'apply-pending-injections', targetId: 'm7' },
    ]);
    const text = second.body.messages[0].parts[0].text as string;
    expect(text.startsWith('[System: Previous conversation summary — 3 turns were compacted]')).toBe(true);
    expect(text).toContain('Question 0 about topic 0');
    expect(text.endsWith('Question 3 about topic 3')).toBe(true);
    // Applied once: the next turn sends the same text and reports nothing new.
    const third = await api.post('/v1/sessions/c/prepare', {});
    expect(third.body.events).toEqual([]);
    expect(third.body.messages[0].parts[0].text).toBe(text);
  });

  it('writes the trimmed turns to the daily memory document', async () => {
    const api = client(w!, await w!.createKey('acme'));
    const docs = (await api.get('/v1/memory-documents?prefix=memory/')).body.documents as Array<{
      path: string;
      content: string;
    }>;
    expect(docs).toHaveLength(1);
    expect(docs[0]!.path).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.md$/);
    expect(docs[0]!.content).toMatch(/\n## Trimmed Context \(\d{2}:\d{2}\)\n/);
    expect(docs[0]!.content).toContain('Question 2 about topic 2');
  });
});
