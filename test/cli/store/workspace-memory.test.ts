import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../../src/cli/memory/open-workspace.ts';
import { loadUseLiteEmbedder, USE_LITE_MODEL_ID } from '../../../src/cli/memory/use-lite-embedder.ts';
import { indexWorkspace, nodeMemoryFiles } from '../../../src/cli/memory/workspace-files.ts';
import {
  cosine,
  createInMemoryMemoryStore,
  exportMarkdown,
  isCtxError,
  searchMemory,
  user,
  writeFlush,
} from '../../../src/core/index.ts';

const hasUse = await import('@energetic-ai/embeddings').then(
  () => true,
  () => false,
);

describe('nodeMemoryFiles', () => {
  it('creates the daily file with its header on the first write only, as real files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxkit-ws-'));
    const files = nodeMemoryFiles(root);
    expect(await files.read('memory/2026-03-01.md')).toBeUndefined();
    await writeFlush(files, {
      reason: 'daily',
      date: '2026-03-01',
      time: '23:55',
      daily: '- a',
      longTerm: ['x'],
    });
    await writeFlush(files, {
      reason: 'other',
      date: '2026-03-01',
      time: '23:56',
      daily: '- b',
      userId: 'u1',
    });
    await writeFlush(files, { reason: 'other', date: '2026-03-01', time: '23:57', daily: '- c' });
    expect(readFileSync(join(root, 'memory', '2026-03-01.md'), 'utf8')).toBe(
      '# Daily Memory: 2026-03-01\n\n\n## Daily Summary (23:55)\n\n- a\n\n## Session Notes (23:57)\n\n- c\n',
    );
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).toBe('- (2026-03-01) x\n');
    expect(Object.keys(await exportMarkdown(files))).toEqual([
      'MEMORY.md',
      'memory/2026-03-01.md',
      'memory/users/u1/2026-03-01.md',
    ]);
  });

  it("throws 'invalid_input' when a path escapes the workspace", async () => {
    const files = nodeMemoryFiles(mkdtempSync(join(tmpdir(), 'ctxkit-ws-')));
    const error = await files.append('../evil.md', 'x').catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_input')).toBe(true);
  });
});

describe('indexWorkspace', () => {
  it('indexes MEMORY.md and daily files so that search finds them, per user', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxkit-ws-'));
    const files = nodeMemoryFiles(root);
    await writeFlush(files, {
      reason: 'daily',
      date: '2026-03-01',
      time: '10:00',
      daily: '- deployed with helm',
      longTerm: ['prefers tabs'],
    });
    await writeFlush(files, {
      reason: 'daily',
      date: '2026-03-01',
      time: '10:00',
      daily: '- secret helm',
      userId: 'bob',
    });
    const store = createInMemoryMemoryStore();
    expect(await indexWorkspace(store, files, { tenant: 't' })).toBe(3);
    const now = Date.parse('2026-03-02T00:00:00Z');
    const shared = await searchMemory(store, 't', 'helm', { now, minScore: 0 });
    expect(shared.map((h) => h.chunk.source)).toEqual(['memory/2026-03-01.md']);
    const bob = await searchMemory(store, 't', 'helm', { now, minScore: 0, userId: 'bob' });
    expect(bob.map((h) => h.chunk.source).sort()).toEqual([
      'memory/2026-03-01.md',
      'memory/users/bob/2026-03-01.md',
    ]);
  });
});

describe('loadUseLiteEmbedder', () => {
  it.skipIf(!hasUse)(
    'embeds offline into 512 dimensions with paraphrases closer than unrelated text',
    async () => {
      const e = await loadUseLiteEmbedder();
      const [a, b, c] = await e.embed([
        'I adopted a puppy',
        'we got a young dog',
        'quarterly tax filing deadline',
      ]);
      expect([e.modelId, e.dimensions, a!.length]).toEqual([USE_LITE_MODEL_ID, 512, 512]);
      expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
    },
  );
});

describe('openWorkspace', () => {
  it('keeps sessions in ctxkit.db across reopening the workspace folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-ws-'));
    const first = openWorkspace({ dir });
    await first.sessions.create({ tenant: 'local', id: 's1' });
    await first.sessions.append('local', 's1', [user('remember me')]);
    first.close();
    const second = openWorkspace({ dir });
    const rows = await second.sessions.messages('local', 's1');
    second.close();
    expect(rows.map((r) => r.message.parts[0])).toEqual([{ type: 'text', text: 'remember me' }]);
    expect(existsSync(join(dir, 'ctxkit.db'))).toBe(true);
  });
});
