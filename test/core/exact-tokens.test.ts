import { describe, expect, it } from 'vitest';
import { assistant, createTiktokenCounter, toolCall, user } from '../../src/core/index.ts';

describe('createTiktokenCounter', () => {
  it('counts o200k and cl100k tokens exactly, plus a per-message overhead', async () => {
    const o200k = await createTiktokenCounter('o200k_base');
    const cl100k = await createTiktokenCounter('cl100k_base');
    expect(o200k.countText('hello world')).toBe(2);
    expect(cl100k.countText('hello world')).toBe(2);
    expect(o200k.countText('')).toBe(0);
    expect(o200k.countMessage(user('hello world'))).toBe(6);
  });

  it('treats special-token text as plain text instead of throwing', async () => {
    const c = await createTiktokenCounter('o200k_base');
    expect(c.countText('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('counts tool-call names and JSON arguments', async () => {
    const c = await createTiktokenCounter('o200k_base');
    const m = assistant('', [toolCall('c1', 'grep', { pattern: 'TODO' })]);
    expect(c.countMessage(m)).toBe(4 + c.countText('grep') + c.countText('{"pattern":"TODO"}'));
  });

  it('counts with the encoding a bundled app passes as load', async () => {
    const c = await createTiktokenCounter('o200k_base', {
      load: async () => ({ countTokens: (text: string) => text.split(' ').length }),
    });
    expect(c.countText('one two three')).toBe(3);
    expect(c.name).toBe('o200k');
  });
});
