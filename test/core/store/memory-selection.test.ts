import { describe, expect, it } from 'vitest';
import {
  buildMemoryBlock,
  clearMemoryBlock,
  computeMemoryBlock,
  createInMemoryMemoryStore,
  createInMemorySessionStore,
  EMPTY_SESSION_STATE,
  ensureMemoryBlock,
  formatMemories,
  formatSessionRecall,
  type MemoryRecord,
  planConsolidation,
  scoreMemory,
  selectMemories,
  selectorTerms,
  type TokenCounter,
  user,
} from '../../../src/core/index.ts';

const NOW = Date.parse('2026-03-31T00:00:00Z');
const DAY = 86_400_000;
const m = (id: string, patch: Partial<MemoryRecord> = {}): MemoryRecord => ({
  tenant: 't',
  id,
  project: 'p',
  userId: '',
  type: 'project',
  class: 'durable',
  title: id,
  content: `about ${id}`,
  pinned: false,
  expiresAt: null,
  createdAt: Date.parse('2026-03-02T10:00:00Z'),
  updatedAt: NOW - DAY,
  lastSurfacedAt: null,
  ...patch,
});
const chars4: TokenCounter = {
  name: 'chars4',
  countText: (t) => Math.ceil(t.length / 4),
  countMessage: () => 0,
};

describe('selectorTerms', () => {
  it('keeps identifier-like terms and words of 3+ chars', () => {
    expect(selectorTerms('Fix a bug in src/app.ts ok')).toEqual(['fix', 'bug', 'src/app.ts']);
  });
});

describe('scoreMemory', () => {
  it('adds class, type, pin, query and recency bonuses as 002 does', () => {
    const decision = m('use-pnpm', {
      type: 'decision',
      pinned: true,
      title: 'use pnpm',
      content: 'we use pnpm workspaces',
    });
    // durable 50 + decision 35 + pinned 40 + title==query 70 + content contains 20
    // + terms: "use" title 30 + content 15, "pnpm" title 30 + content 15 + recent decision 18
    expect(scoreMemory(decision, 'use pnpm', NOW)).toBe(50 + 35 + 40 + 70 + 20 + 45 + 45 + 18);
  });

  it('penalises a working memory not surfaced for 60 days', () => {
    const old = m('w', { class: 'working', updatedAt: NOW - 61 * DAY });
    expect(scoreMemory(old, '', NOW)).toBe(20 + 30 - 35);
  });
});

describe('selectMemories', () => {
  it('returns the 6 best non-expired memories, priority first', () => {
    const all = [
      m('expired', { class: 'priority', expiresAt: NOW - 1 }),
      m('prio', { class: 'priority' }),
      ...Array.from({ length: 8 }, (_, i) => m(`p${i}`, { updatedAt: NOW - i })),
    ];
    const picked = selectMemories(all, { now: NOW }).map((x) => x.id);
    expect(picked).toEqual(['prio', 'p0', 'p1', 'p2', 'p3', 'p4']);
  });
});

describe('formatMemories', () => {
  it('renders 002 sections in order with caps and date suffixes', () => {
    const text = formatMemories([
      m('P', { class: 'priority', content: 'x'.repeat(300) }),
      m('Proj'),
      m('Pref', { type: 'user' }),
      m('Dec', { type: 'decision' }),
      ...Array.from({ length: 6 }, (_, i) => m(`W${i}`, { class: 'working' })),
      ...Array.from({ length: 4 }, (_, i) => m(`C${i}`, { type: 'compaction', class: 'working' })),
    ]);
    const sections = text.split('\n\n').slice(1);
    expect(text.startsWith('\n\n# Memories\n\n## Priority Context\n')).toBe(true);
    expect(sections.map((s) => s.split('\n')[0])).toEqual([
      '# Memories',
      '## Priority Context',
      '## Project Knowledge',
      '## User Preferences',
      '## Key Decisions',
      '## Working Memory',
      '## Previous Sessions',
    ]);
    expect(text).toContain(`- P: ${'x'.repeat(237)}...\n`);
    expect(text).toContain('- Proj: about Proj (2026-03-02)');
    expect(text).toContain('- Pref: about Pref\n');
    expect(sections[5]!.split('\n').length).toBe(6);
    expect(sections[6]).toBe('## Previous Sessions\n- [2026-03-02] C0\n- [2026-03-02] C1\n- [2026-03-02] C2');
  });

  it('is empty when there are no memories', () => {
    expect(formatMemories([])).toBe('');
  });
});

describe('formatSessionRecall', () => {
  it('prints up to 3 lines with the session title or id and the role', () => {
    const hits = Array.from({ length: 4 }, (_, i) => ({
      sessionId: `s${i}`,
      title: i === 0 ? 'Deploy' : null,
      role: 'user',
      text: 'kube',
      seq: 1,
    }));
    expect(formatSessionRecall(hits)).toBe(
      '\n\n## Session Recall\n- Deploy [user]: kube\n- s1 [user]: kube\n- s2 [user]: kube',
    );
  });
});

describe('buildMemoryBlock', () => {
  it('drops recall first, then trailing memories, until the block fits the token cap', () => {
    const memories = Array.from({ length: 6 }, (_, i) => m(`M${i}`, { content: 'y'.repeat(200) }));
    const recall = [{ sessionId: 's', title: null, role: 'user', text: 'z'.repeat(200), seq: 1 }];
    const block = buildMemoryBlock(memories, recall, { counter: chars4, maxTokens: 150, now: NOW });
    expect(block.recallCount).toBe(0);
    expect(block.memoryIds).toEqual(['M0', 'M1']);
    expect(block.tokens).toBeLessThanOrEqual(150);
  });
});

describe('ensureMemoryBlock', () => {
  it('computes once and returns the same state afterwards, until compaction clears it', async () => {
    let calls = 0;
    const compute = async () => {
      calls++;
      return { text: 'x', memoryIds: [], recallCount: 0, tokens: 1, computedAt: calls };
    };
    const first = await ensureMemoryBlock(EMPTY_SESSION_STATE, compute);
    const second = await ensureMemoryBlock(first.state, compute);
    expect(second.state).toBe(first.state);
    const cleared = clearMemoryBlock(second.state);
    await ensureMemoryBlock(cleared, compute);
    expect(calls).toBe(2);
    expect(clearMemoryBlock(cleared)).toBe(cleared);
  });
});

describe('planConsolidation', () => {
  it('never removes pinned memories, even expired or beyond the compaction cap', () => {
    const ms = [
      ...Array.from({ length: 11 }, (_, i) => m(`c${i}`, { type: 'compaction', updatedAt: NOW - i })),
      m('pin', { type: 'compaction', pinned: true, updatedAt: 0 }),
      m('pin-exp', { pinned: true, expiresAt: 1 }),
      m('exp', { expiresAt: NOW }),
    ];
    expect(planConsolidation(ms, { now: NOW }).sort()).toEqual(['c10', 'exp']);
  });
});

describe('computeMemoryBlock', () => {
  it('injects the selected memories and recall from other sessions, and marks them surfaced', async () => {
    const memories = createInMemoryMemoryStore();
    const sessions = createInMemorySessionStore();
    await memories.put(m('deploy', { content: 'helm chart lives in ops/' }));
    await memories.put(m('other-project', { project: 'q' }));
    await sessions.create({ tenant: 't', id: 'old', project: 'p', title: 'Earlier' });
    await sessions.append('t', 'old', [user('the helm deploy broke yesterday')]);
    const block = await computeMemoryBlock({
      memories,
      sessions,
      tenant: 't',
      project: 'p',
      sessionId: 'now',
      query: 'helm deploy',
      now: NOW,
      counter: chars4,
    });
    expect(block.memoryIds).toEqual(['deploy']);
    expect(block.text).toContain('- deploy: helm chart lives in ops/ (2026-03-02)');
    expect(block.text).toContain('## Session Recall\n- Earlier [user]: the helm deploy broke yesterday');
    expect((await memories.get('t', 'deploy'))?.lastSurfacedAt).toBe(NOW);
  });
});
