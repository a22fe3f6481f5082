import { describe, expect, it } from 'vitest';
import {
  compactionMemories,
  createInMemoryMemoryStore,
  createInMemorySessionStore,
  fixedClock,
  runCleanup,
  sequentialIds,
} from '../../../src/core/index.ts';

const NOW = Date.parse('2026-03-01T00:00:00Z');
const DAY = 86_400_000;

describe('compactionMemories', () => {
  it('saves the summary for 14 days and extracted working memories for 1–30 days', () => {
    const out = compactionMemories(
      `## Goal\n${'g'.repeat(100)}`,
      [
        { type: 'decision', title: 'use pnpm', content: 'workspaces' },
        { type: 'project', title: 'tmp', content: 'x', class: 'working', expiresDays: 90 },
        { type: 'user', title: 'short', content: 'y', class: 'working', expiresDays: 0 },
        { type: 'user', title: ' ', content: 'dropped' },
      ],
      { tenant: 't', project: 'p', now: NOW, ids: sequentialIds() },
    );
    expect(
      out.map((m) => [m.id, m.type, m.class, m.expiresAt === null ? null : (m.expiresAt - NOW) / DAY]),
    ).toEqual([
      ['mem_1', 'compaction', 'working', 14],
      ['mem_2', 'decision', 'durable', null],
      ['mem_3', 'project', 'working', 30],
      ['mem_4', 'user', 'working', 1],
    ]);
    expect(out[0]!.title.length).toBe(80);
  });
});

describe('runCleanup', () => {
  it('removes sessions idle for more than 30 days and expired memories of the tenant', async () => {
    const clock = fixedClock(NOW);
    const sessions = createInMemorySessionStore({ clock });
    const memories = createInMemoryMemoryStore();
    await sessions.create({ tenant: 't', id: 'old' });
    clock.advance(30 * DAY + 1);
    await sessions.create({ tenant: 't', id: 'new' });
    await memories.put({
      ...compactionMemories('sum', [], { tenant: 't', now: NOW, ids: sequentialIds() })[0]!,
    });
    const result = await runCleanup({ now: clock.now(), tenant: 't', sessions, memories });
    expect(result).toEqual({ sessions: 1, memories: 1 });
  });
});
