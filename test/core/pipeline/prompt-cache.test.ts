import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../../src/core/adapters/anthropic.ts';
import { createMemoryBlobStore } from '../../../src/core/blobs/memory-blob-store.ts';
import { outputText } from '../../../src/core/messages/text.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createContext } from '../../../src/core/pipeline/engine/context.ts';
import { fixedClock } from '../../../src/core/ports.ts';
import { createRecall } from '../../../src/core/recall/options.ts';
import { clockedContext, codingSession, extendsSend, sendPoints } from './prompt-cache-helpers.ts';

const SYSTEM = { system: 'You are a coding agent.' };
/** A result's text in a send, or undefined when no message answers `callId`. */
function resultOf(send: readonly Message[], callId: string): string | undefined {
  for (const m of send)
    for (const p of m.parts) if (p.type === 'tool-result' && p.callId === callId) return outputText(p.output);
  return undefined;
}
const compacted = (run: { reports: ReadonlyArray<{ stage: string; status: string }> }) =>
  run.reports.some((r) => r.stage === 'compaction' && r.status === 'applied');

// With the recall tools on, stubs and markers name refs: the same guarantees hold (a ref is taken of
// content, so the same history gives the same marker).
describe.each(['off', 'on'])('createContext (default preset, prompt cache, recall %s)', (mode) => {
  const recall = () => (mode === 'on' ? { recall: createRecall() } : {});
  it('leaves a superseded result deep in the history as sent until the next compaction while the cache is warm', async () => {
    const history = codingSession(40);
    const { ctx, clock } = clockedContext(recall());
    let stale: string | undefined; // the first read as first sent (cut on arrival if it was too long)
    let previous: Message[] | undefined;
    let deferredSeen = false;
    let compactedAt = -1;
    for (const i of sendPoints(history)) {
      clock.advance(15_000);
      const run = await ctx.prepare(history.slice(0, i), SYSTEM);
      if (compacted(run)) {
        compactedAt = i;
        // The compaction folded the stale read (or it rode on it as a superseded marker).
        expect(resultOf(run.send, 'read1')).not.toBe(stale);
        break;
      }
      if (previous) expect(extendsSend(previous, run.send), `send before message ${i}`).toBe(true);
      stale ??= resultOf(run.send, 'read1');
      // Once the re-read has arrived, the stale read stays as it was sent.
      if (resultOf(run.send, 'read2') !== undefined) {
        expect(resultOf(run.send, 'read1')).toBe(stale);
        const dedup = run.reports.find((r) => r.stage === 'dedup');
        if (dedup?.status === 'skipped' && /deferred/.test(dedup.detail ?? '')) deferredSeen = true;
      }
      previous = run.send;
    }
    expect(deferredSeen).toBe(true);
    expect(compactedAt).toBeGreaterThan(0);
  });

  it('applies the deferred reduction once the cache has gone cold', async () => {
    const history = codingSession(6);
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const ctx = createContext({
      budget: { contextWindow: 200_000 },
      dialect: 'anthropic',
      clock,
      ...recall(),
    });
    const points = sendPoints(history);
    for (const i of points.slice(0, -1)) {
      clock.advance(10_000);
      const run = await ctx.prepare(history.slice(0, i), SYSTEM);
      expect(run.cache.status === 'first' || run.cache.status === 'append').toBe(true);
    }
    clock.advance(10 * 60_000); // idle past Anthropic's five minutes
    const run = await ctx.prepare(history.slice(0, points.at(-1)), SYSTEM);
    expect(run.cache.status).toBe('cold');
    expect(resultOf(run.send, 'read1')).toMatch(/^\[Superseded/);
    if (mode === 'on') expect(resultOf(run.send, 'read1')).toMatch(/; whole: reread\('m[0-9a-f]{12}'\)\]$/);
    expect(run.cache.rewrite).toMatchObject({ stage: 'dedup', reason: expect.stringMatching(/cold/) });
  });

  it('reports the unchanged prefix of each send, and where and why a send departs from the last one', async () => {
    const history = codingSession(3);
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const ctx = createContext({
      budget: { contextWindow: 200_000 },
      dialect: 'anthropic',
      clock,
      ...recall(),
    });
    const [first, second, third] = sendPoints(history);
    const a = await ctx.prepare(history.slice(0, first), SYSTEM);
    expect(a.cache).toMatchObject({ status: 'first', prefix: 0, cached: 0 });
    clock.advance(5_000);
    const b = await ctx.prepare(history.slice(0, second), SYSTEM);
    expect(b.cache.status).toBe('append');
    expect(b.cache.prefix).toBe(a.cache.tokens);
    expect(b.cache.cost).toBeCloseTo(b.cache.cached * 0.1 + (b.cache.tokens - b.cache.cached) * 1.25);
    clock.advance(5_000);
    const c = await ctx.prepare(history.slice(0, third), { system: 'You are a careful coding agent.' });
    expect(c.cache).toMatchObject({ status: 'rewrite', prefix: 0, rewrite: { stage: 'caller', index: 0 } });
  });

  it('gives byte-identical sends for the same history, run twice with random ids and a blob store', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `row ${i}: ${'x'.repeat(20)}`).join('\n');
    const history = codingSession(4);
    history.splice(
      4,
      0,
      ...codingSession(0)
        .slice(1, 3)
        .map((m) => ({ ...m, id: `${m.id}-x` })),
    );
    const withBig = history.map((m) =>
      m.id === 't-sh1'
        ? { ...m, parts: m.parts.map((p) => (p.type === 'tool-result' ? { ...p, output: big } : p)) }
        : m,
    );
    const make = () =>
      createContext({
        budget: { contextWindow: 32_000 },
        dialect: 'anthropic',
        blobs: createMemoryBlobStore(),
        ...recall(),
      });
    const one = make();
    const two = make();
    let spilled = false;
    for (const i of sendPoints(withBig)) {
      const h = withBig.slice(0, i);
      const a = await one.prepare(h, SYSTEM);
      const b = await two.prepare(structuredClone(h), SYSTEM);
      expect(JSON.stringify(toAnthropic(b.send, SYSTEM))).toBe(JSON.stringify(toAnthropic(a.send, SYSTEM)));
      if (a.journal.some((e) => e.action === 'spilled')) spilled = true;
    }
    expect(spilled).toBe(true);
  });
});
