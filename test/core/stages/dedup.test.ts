import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { JsonValue, Message } from '../../../src/core/messages/types.ts';
import {
  createDedup,
  normalizePathLexically,
  pathBasename,
  SUPERSEDED_IDENTICAL,
  SUPERSEDED_STALE,
} from '../../../src/core/pipeline/stages/dedup.ts';
import { frozen, makeCtx, out } from './cheap-helpers.ts';

let n = 0;
/** An assistant call and its result. */
function call(
  name: string,
  args: Record<string, JsonValue>,
  output: string,
  meta?: Message['meta'],
): Message[] {
  n += 1;
  const id = `c${n}`;
  return [
    assistant('', [toolCall(id, name, args)], { id: `a${n}` }),
    toolResult(id, name, output, { id: `t${n}`, ...(meta ? { meta } : {}) }),
  ];
}

describe('createDedup', () => {
  const stage = createDedup({ mode: 'kosmokrator' });

  it('supersedes an identical earlier read with the exact-repeat marker', () => {
    const input = frozen([
      user('go'),
      ...call('file_read', { path: 'a.ts' }, 'A'),
      ...call('file_read', { path: 'a.ts' }, 'A'),
    ]);
    const r = stage.run(input, makeCtx());
    expect([out(r.messages[2]), out(r.messages[4])]).toEqual([SUPERSEDED_IDENTICAL, 'A']);
    expect(SUPERSEDED_IDENTICAL).toBe('[Superseded — identical result returned by later call]');
    expect(r.journal.map((j) => [j.action, j.messageId])).toEqual([['replaced', input[2]!.id]]);
  });

  it('treats args with keys in another order as the same call', () => {
    const input = frozen([
      user('go'),
      ...call('grep', { pattern: 'x', path: 'src' }, 'hits'),
      ...call('grep', { path: 'src', pattern: 'x' }, 'hits'),
    ]);
    expect(out(stage.run(input, makeCtx()).messages[2])).toBe(SUPERSEDED_IDENTICAL);
  });

  it('supersedes a read made stale by a write before a later re-read', () => {
    const input = frozen([
      user('go'),
      ...call('file_read', { path: 'src/a.ts' }, 'v1'),
      ...call('file_edit', { path: './src/a.ts' }, 'ok'),
      ...call('file_read', { path: 'src/a.ts' }, 'v2'),
    ]);
    const r = stage.run(input, makeCtx());
    expect([out(r.messages[2]), out(r.messages[4]), out(r.messages[6])]).toEqual([
      SUPERSEDED_STALE,
      'ok',
      'v2',
    ]);
  });

  it('keeps a read that was re-read without a write in between', () => {
    const input = frozen([
      user('go'),
      ...call('file_read', { path: 'a' }, 'v1'),
      ...call('file_read', { path: 'a' }, 'v2'),
    ]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('supersedes a grep on a file that a later message reads', () => {
    const input = frozen([
      user('go'),
      ...call('grep', { pattern: 'foo', path: 'lib/util.ts' }, '3: foo'),
      ...call('file_read', { path: 'lib/util.ts' }, 'whole file'),
    ]);
    expect(out(stage.run(input, makeCtx()).messages[2])).toBe(
      '[Superseded — content included in later file_read of util.ts]',
    );
  });

  it('does not treat a grep on a directory as subsumed', () => {
    const input = frozen([
      user('go'),
      ...call('grep', { pattern: 'foo', path: 'lib/' }, 'hits'),
      ...call('file_read', { path: 'lib' }, 'odd'),
    ]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('skips results already superseded or cleared, and tools it does not know', () => {
    const input = frozen([
      user('go'),
      ...call('file_read', { path: 'a' }, '[Old file_read output cleared for a]'),
      ...call('file_read', { path: 'a' }, '[Old file_read output cleared for a]'),
      ...call('bash', { command: 'ls' }, 'same'),
      ...call('bash', { command: 'ls' }, 'same'),
    ]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('ignores Claude Code names in kosmokrator mode and maps them in default mode', () => {
    const input = frozen([
      user('go'),
      ...call('Read', { file_path: '/r/a.ts' }, 'v1'),
      ...call('Edit', { file_path: '/r/a.ts', old_string: 'a', new_string: 'b' }, 'ok'),
      ...call('Read', { file_path: '/r/a.ts' }, 'v2'),
    ]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
    expect(out(createDedup().run(input, makeCtx()).messages[2])).toBe(SUPERSEDED_STALE);
  });

  it('indexes but never replaces pinned messages and excluded tools', () => {
    const input = frozen([
      user('go'),
      ...call('file_read', { path: 'a' }, 'A', { pinned: true }),
      ...call('grep', { path: 'b', pattern: 'x' }, 'G'),
      ...call('grep', { path: 'b', pattern: 'x' }, 'G'),
      ...call('file_read', { path: 'a' }, 'A'),
    ]);
    expect(stage.run(input, makeCtx({ excludeTools: new Set(['grep']) })).messages).toBe(input);
  });

  it('returns the input itself on a second run', () => {
    const input = frozen([
      user('go'),
      ...call('glob', { pattern: '*' }, 'x'),
      ...call('glob', { pattern: '*' }, 'x'),
    ]);
    const first = stage.run(input, makeCtx());
    expect(first.report.status).toBe('applied');
    expect(stage.run(frozen(first.messages), makeCtx()).messages).toBe(first.messages);
  });
});

describe('normalizePathLexically', () => {
  it('resolves dot segments and repeated slashes by string only', () => {
    expect([
      normalizePathLexically('./src//a.ts'),
      normalizePathLexically('/x/y/../z'),
      normalizePathLexically('../a'),
      normalizePathLexically('.'),
    ]).toEqual(['src/a.ts', '/x/z', '../a', '.']);
  });
});

describe('pathBasename', () => {
  it('returns the last segment like PHP basename', () => {
    expect([pathBasename('/a/b/c.ts'), pathBasename('c.ts'), pathBasename('dir/')]).toEqual([
      'c.ts',
      'c.ts',
      'dir',
    ]);
  });
});
