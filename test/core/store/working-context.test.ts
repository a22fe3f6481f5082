import { describe, expect, it } from 'vitest';
import {
  assistant,
  resolveWorkingContext,
  type StoredMessage,
  system,
  toWorkingContext,
  user,
} from '../../../src/core/index.ts';

const rows: StoredMessage[] = [
  { seq: 1, message: user('q1', { id: 'u1' }), createdAt: 0, compacted: false },
  { seq: 2, message: assistant('a1', [], { id: 'a1' }), createdAt: 0, compacted: false },
  { seq: 3, message: user('q2', { id: 'u2' }), createdAt: 0, compacted: false },
];

describe('toWorkingContext', () => {
  it('references unchanged rows by seq and keeps new or changed messages literally', () => {
    const summary = system('sum', { id: 's' });
    const edited = { ...user('q2 edited', { id: 'u2' }) };
    const w = toWorkingContext(rows, [summary, rows[1]!.message, edited]);
    expect(w.throughSeq).toBe(3);
    expect(w.items.map((i) => ('seq' in i ? i.seq : i.message.id))).toEqual(['s', 2, 'u2']);
    expect(resolveWorkingContext(rows, w).map((m) => m.id)).toEqual(['s', 'a1', 'u2']);
  });
});

describe('resolveWorkingContext', () => {
  it('appends rows newer than throughSeq when the log grew after compaction', () => {
    const w = { throughSeq: 2, items: [{ seq: 2 }] };
    expect(resolveWorkingContext(rows, w).map((m) => m.id)).toEqual(['a1', 'u2']);
  });
});
