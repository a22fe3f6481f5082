import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsPathHooks } from '../../src/cli/fs-path-hooks.ts';
import { createDedup, SUPERSEDED_STALE } from '../../src/core/index.ts';
import { assistant, toolCall, toolResult, user } from '../../src/core/messages/builders.ts';
import { makeCtx, out } from '../core/stages/cheap-helpers.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxkit-paths-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'a.ts'), 'x');
  await symlink(join(dir, 'src', 'a.ts'), join(dir, 'link.ts'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fsPathHooks', () => {
  it('resolves existing files with realpath and keeps unknown paths as they are', () => {
    const hooks = fsPathHooks(dir);
    expect(hooks.normalizePath('link.ts')).toBe(hooks.normalizePath('src/a.ts'));
    expect(hooks.normalizePath('missing.ts')).toBe('missing.ts');
    expect([hooks.isDirectory('src'), hooks.isDirectory('src/a.ts'), hooks.isDirectory('nope')]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('lets dedup see a symlinked read and an edit of the target as the same file', () => {
    const input = [
      user('go'),
      assistant('', [toolCall('c1', 'file_read', { path: 'link.ts' })]),
      toolResult('c1', 'file_read', 'v1'),
      assistant('', [toolCall('c2', 'file_edit', { path: 'src/a.ts' })]),
      toolResult('c2', 'file_edit', 'ok'),
      assistant('', [toolCall('c3', 'file_read', { path: join(dir, 'src/a.ts') })]),
      toolResult('c3', 'file_read', 'v2'),
    ];
    const r = createDedup({ mode: 'kosmokrator', ...fsPathHooks(dir) }).run(input, makeCtx());
    expect(out(r.messages[2])).toBe(SUPERSEDED_STALE);
  });
});
