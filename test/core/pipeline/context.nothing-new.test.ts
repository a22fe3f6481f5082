/**
 * A call through the incremental context with nothing new must not redo what the context did for
 * the messages it has seen: no pipeline run, no validation, no count, and no comparison of a caller
 * object it has already matched (the same objects, or those handed over the call before); a rebuilt
 * object is compared once. The validation and the comparison are spied on at their modules: a
 * regression that re-validates, re-counts or re-compares makes the counts below non-zero. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../../src/core/index.ts';

const spies = vi.hoisted(() => ({ parse: 0, compare: 0, digest: 0 }));

vi.mock('../../../src/core/messages/schema.ts', async (original) => {
  const m = await original<typeof import('../../../src/core/messages/schema.ts')>();
  return {
    ...m,
    parseWith: (...args: Parameters<typeof m.parseWith>) => {
      spies.parse++;
      return m.parseWith(...args);
    },
  };
});
vi.mock('../../../src/core/messages/digest.ts', async (original) => {
  const m = await original<typeof import('../../../src/core/messages/digest.ts')>();
  return {
    ...m,
    sameContent: (a: Message, b: Message) => {
      // Counted when it compares (the same object is no comparison).
      if (a !== b) spies.compare++;
      return m.sameContent(a, b);
    },
    messageDigest: (a: Message) => {
      spies.digest++;
      return m.messageDigest(a);
    },
  };
});

const { createContext } = await import('../../../src/core/pipeline/engine/context.ts');

/** A coding session of `n` messages: a question, then tool steps (call, result) and a few answers. */
function session(n: number): Message[] {
  const out: Message[] = [
    { id: 'u0', role: 'user', parts: [{ type: 'text', text: 'Fix the failing build.' }] },
  ];
  for (let i = 1; out.length < n; i++) {
    if (i % 10 === 0) {
      out.push({
        id: `a${i}`,
        role: 'assistant',
        parts: [{ type: 'text', text: `Step ${i} done. `.repeat(20) }],
      });
      out.push({ id: `u${i}`, role: 'user', parts: [{ type: 'text', text: `Go on with step ${i + 1}.` }] });
      continue;
    }
    out.push({
      id: `a${i}`,
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: `c${i}`, name: 'read', args: { path: `src/f${i}.ts`, lines: [1, 80] } },
      ],
    });
    out.push({
      id: `t${i}`,
      role: 'tool',
      parts: [{ type: 'tool-result', callId: `c${i}`, output: `export const f${i} = ${i};\n`.repeat(60) }],
    });
  }
  return out.slice(0, n);
}

const SYSTEM = { system: 'You are a coding agent.' };

describe('createContext, a call with nothing new', () => {
  beforeEach(() => {
    spies.parse = 0;
    spies.compare = 0;
    spies.digest = 0;
  });
  afterEach(() => vi.restoreAllMocks());

  /** Spies on the context's pipeline run and counter (the memoized one every stage counts with). */
  function watch(ctx: ReturnType<typeof createContext>) {
    const prepare = vi.spyOn(ctx.pipeline, 'prepare');
    const countMessage = vi.spyOn(ctx.pipeline.counter, 'countMessage');
    const countText = vi.spyOn(ctx.pipeline.counter, 'countText');
    return () => ({
      runs: prepare.mock.calls.length,
      counts: countMessage.mock.calls.length + countText.mock.calls.length,
      parses: spies.parse,
      compares: spies.compare,
      digests: spies.digest,
    });
  }
  const reset = () => {
    vi.clearAllMocks();
    spies.parse = 0;
    spies.compare = 0;
    spies.digest = 0;
  };

  // 1M: nothing is reduced, every message is the caller's; 64K: pruning and tool archiving rewrite
  // over half of them (the rewritten ones are compared with the caller's once, then known to differ).
  describe.each([1_000_000, 64_000])('at a %i-token window', (contextWindow) => {
    const history = session(300);

    it('with the same objects: no run, validation, count or comparison; the caller’s objects back', async () => {
      const ctx = createContext({ budget: { contextWindow }, dialect: 'anthropic' });
      const first = await ctx.prepare(history, SYSTEM);
      const seen = watch(ctx);
      reset();
      for (let i = 0; i < 3; i++) {
        const run = await ctx.prepare(history, SYSTEM);
        expect([run.match, run.fed]).toEqual(['unchanged', 0]);
        expect(run.send).toEqual(first.send);
        const mine = new Set(history);
        for (const [j, m] of run.send.entries())
          if (first.send[j] === history[j]) expect(mine.has(m)).toBe(true);
      }
      expect(seen()).toEqual({ runs: 0, counts: 0, parses: 0, compares: 0, digests: 0 });
    });

    it('with objects rebuilt every call: each compared once, nothing run, validated or counted', async () => {
      const ctx = createContext({ budget: { contextWindow }, dialect: 'anthropic' });
      await ctx.prepare(history, SYSTEM);
      const seen = watch(ctx);
      for (let i = 0; i < 3; i++) {
        const copy = structuredClone(history);
        reset();
        const run = await ctx.prepare(copy, SYSTEM);
        expect([run.match, run.fed]).toEqual(['unchanged', 0]);
        const { compares, ...rest } = seen();
        expect(rest).toEqual({ runs: 0, counts: 0, parses: 0, digests: 0 });
        // One comparison per caller object, plus (when stages rewrote some) one per rewritten message.
        if (contextWindow === 1_000_000) expect(compares).toBe(history.length);
        else expect(compares).toBeLessThanOrEqual(history.length + run.messages.length);
        // Every message no stage changed is handed back as the copy's object, none as the first ones.
        const mine = new Set(copy);
        const first = new Set(history);
        expect(run.send.filter((m) => first.has(m))).toEqual([]);
        const kept = run.send.filter((m) => mine.has(m)).length;
        if (contextWindow === 1_000_000) expect(kept).toBe(history.length);
        else expect(kept).toBeGreaterThan(0);
        // The same copy again: known now, not compared.
        reset();
        await ctx.prepare(copy, SYSTEM);
        expect(seen()).toEqual({ runs: 0, counts: 0, parses: 0, compares: 0, digests: 0 });
      }
    });

    it('with two sets of objects in turn: each compared once, then matched by identity', async () => {
      const ctx = createContext({ budget: { contextWindow }, dialect: 'anthropic' });
      const copy = structuredClone(history);
      await ctx.prepare(history, SYSTEM);
      await ctx.prepare(copy, SYSTEM);
      await ctx.prepare(history, SYSTEM);
      const seen = watch(ctx);
      reset();
      for (let i = 0; i < 4; i++) {
        const run = await ctx.prepare(i % 2 === 0 ? copy : history, SYSTEM);
        expect(run.match).toBe('unchanged');
      }
      expect(seen()).toEqual({ runs: 0, counts: 0, parses: 0, compares: 0, digests: 0 });
    });
  });

  it('still sees an edit in a rebuilt history after its objects were known', async () => {
    const history = session(120);
    const ctx = createContext({ budget: { contextWindow: 1_000_000 }, dialect: 'anthropic' });
    for (const n of [40, 80, 120]) await ctx.prepare(history.slice(0, n), SYSTEM);
    const copy = structuredClone(history);
    await ctx.prepare(copy, SYSTEM);
    const edited = [...copy];
    edited[50] = { ...copy[50]!, parts: [{ type: 'text', text: 'Use the staging database instead.' }] };
    const run = await ctx.prepare(edited, SYSTEM);
    expect(run.match).toBe('rebased');
    expect(run.send).toContain(edited[50]);
    expect(run.send).not.toContain(copy[50]);
    expect(run.send).not.toContain(history[50]);
    // Back to the first objects: the edit is undone, and found without comparing them again.
    reset();
    const back = await ctx.prepare(history, SYSTEM);
    expect([back.match, back.fed]).toEqual(['rebased', 80]);
    expect(back.send).toHaveLength(history.length);
    for (const [i, m] of back.send.entries()) expect(m).toBe(history[i]);
    // The edited position is compared (against the last history and the last send), not the 120.
    expect(spies.compare).toBeLessThan(10);
  });
});
