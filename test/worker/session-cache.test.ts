import { describe, expect, it } from 'vitest';
import { EMPTY_SESSION_STATE, type Message, type SessionInfo } from '../../src/core/index.ts';
import {
  afterAppend,
  afterSetState,
  freshView,
  rememberView,
  type SessionCache,
  VIEW_TTL_MS,
} from '../../src/worker/session/session-cache.ts';

const info: SessionInfo = {
  tenant: 't',
  id: 's',
  project: '',
  title: null,
  createdAt: 0,
  lastActive: 0,
  lastSeq: 0,
};
const msg = (id: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text: id }] });

describe('session cache', () => {
  it('serves a view until it is older than the TTL', () => {
    const cache: SessionCache = {};
    rememberView(cache, { info, rows: [], state: EMPTY_SESSION_STATE, readAt: 1000 });
    expect(freshView(cache, 1000 + VIEW_TTL_MS - 1)).toBeDefined();
    expect(freshView(cache, 1000 + VIEW_TTL_MS)).toBeUndefined();
  });

  it('adds appended rows with their seqs and moves lastSeq', () => {
    const cache: SessionCache = {};
    rememberView(cache, { info, rows: [], state: EMPTY_SESSION_STATE, readAt: 0 });
    afterAppend(cache, [msg('a'), msg('b')], 1, 5);
    expect(cache.view?.rows.map((r) => [r.seq, r.message.id, r.compacted])).toEqual([
      [1, 'a', false],
      [2, 'b', false],
    ]);
    expect([cache.view?.info.lastSeq, cache.view?.info.lastActive]).toEqual([2, 5]);
  });

  it('flags rows as setState does: at or before throughSeq and not referenced', () => {
    const cache: SessionCache = {};
    rememberView(cache, { info, rows: [], state: EMPTY_SESSION_STATE, readAt: 0 });
    afterAppend(cache, [msg('a'), msg('b'), msg('c')], 1, 0);
    afterSetState(cache, { ...EMPTY_SESSION_STATE, working: { throughSeq: 2, items: [{ seq: 2 }] } }, 0);
    expect(cache.view?.rows.map((r) => r.compacted)).toEqual([true, false, false]);
    afterSetState(cache, EMPTY_SESSION_STATE, 0);
    expect(cache.view?.rows.map((r) => r.compacted)).toEqual([false, false, false]);
  });

  it('does nothing without a cached view', () => {
    const cache: SessionCache = {};
    afterAppend(cache, [msg('a')], 1, 0);
    expect(cache.view).toBeUndefined();
  });
});
