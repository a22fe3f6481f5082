/**
 * The watches of `prefixStable` (incremental.ts): dedup's (stages/dedup.ts `watch()`) runs dedup in
 * full only when a new result may supersede an earlier one; historical truncation's (cowagent) only
 * when a new user message makes a long result historical. Property: replayed step by step as an
 * agent runs (the previous output plus the new messages), the watched stage returns exactly what a
 * fresh stage returns on the same input, at every step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { historicalAffects, prefixStable } from '../../../src/core/pipeline/engine/incremental.ts';
import { createDedup } from '../../../src/core/pipeline/stages/dedup.ts';
import { createHistoricalTruncation } from '../../../src/core/pipeline/stages/historical-truncation.ts';
import { makeCtx } from '../stages/cheap-helpers.ts';

const ctx = makeCtx({ excludeTools: new Set(['bash']) });

const PATHS = ['src/a.ts', 'src/b.ts', './src/a.ts', 'docs/'];
const TOOLS = ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'file_read', 'grep', 'bash', 'web_fetch'];
const OUTPUTS = ['same text', 'other text', 'x'.repeat(40)];

interface Call {
  tool: number;
  path: number;
  output: number;
  pinned: boolean;
  hidden: boolean;
}

const callArb = fc.record({
  tool: fc.nat(TOOLS.length - 1),
  path: fc.nat(PATHS.length - 1),
  output: fc.nat(OUTPUTS.length - 1),
  pinned: fc.constantFrom(false, false, false, false, true),
  hidden: fc.constantFrom(false, false, false, false, true),
});

const stepsArb = fc.array(
  fc.record({
    calls: fc.array(callArb, { minLength: 0, maxLength: 3 }),
    userText: fc.boolean(),
    /** Ids `c0`, `c1`… again (ids repeat in some providers' logs). */
    reuseIds: fc.constantFrom(false, false, false, true),
  }),
  { minLength: 1, maxLength: 14 },
);

/** One step: an assistant message with parallel calls, their results, maybe a user message. */
function render(steps: Array<{ calls: Call[]; userText: boolean; reuseIds: boolean }>): Message[][] {
  let n = 0;
  return steps.map((s, k) => {
    const out: Message[] = [];
    const ids = s.calls.map((_, i) => (s.reuseIds && n > 0 ? `c${i}` : `c${++n}`));
    const calls = s.calls.map((c, i) => {
      const tool = TOOLS[c.tool]!;
      const key = tool === 'Read' || tool === 'Edit' || tool === 'Write' ? 'file_path' : 'path';
      return toolCall(ids[i]!, tool, { [key]: PATHS[c.path]! });
    });
    out.push(assistant(calls.length ? '' : 'thinking', calls, { id: `a${k}` }));
    s.calls.forEach((c, i) => {
      const meta = { ...(c.pinned ? { pinned: true } : {}), ...(c.hidden ? { agentVisible: false } : {}) };
      const m = toolResult(ids[i]!, TOOLS[c.tool]!, OUTPUTS[c.output]!, { id: `t${k}-${i}` });
      out.push(Object.keys(meta).length ? { ...m, meta } : m);
    });
    if (s.userText) out.push(user(`next ${k}`, { id: `u${k}` }));
    return out;
  });
}

describe('historical truncation watch (cowagent)', () => {
  it('gives what a fresh stage gives at every step of a replay', async () => {
    let watched = 0;
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(stepsArb, async (steps) => {
        const options = { mode: 'cowagent' as const, maxChars: 30 };
        const incremental = prefixStable(
          createHistoricalTruncation(options),
          historicalAffects('cowagent', 30, 2),
        );
        let working: Message[] = [user('start', { id: 'u-start' })];
        for (const chunk of render(steps)) {
          const input = working.concat(chunk);
          const got = await incremental.run(input, ctx);
          const want = createHistoricalTruncation(options).run(input, ctx);
          expect(got.messages).toEqual(want.messages);
          if (got.report.detail?.startsWith('unchanged')) watched += 1;
          if (want.report.status === 'applied') applied += 1;
          working = got.messages;
        }
      }),
      { numRuns: 400, seed: 20261124 },
    );
    expect(watched).toBeGreaterThan(200);
    expect(applied).toBeGreaterThan(20);
  });
});

describe('dedup watch', () => {
  it('gives what a fresh dedup gives at every step of a replay', async () => {
    let watched = 0;
    await fc.assert(
      fc.asyncProperty(stepsArb, async (steps) => {
        const stage = createDedup({ mode: 'default' });
        const incremental = prefixStable(stage, stage.watch());
        let working: Message[] = [user('start', { id: 'u-start' })];
        for (const chunk of render(steps)) {
          const input = working.concat(chunk);
          const got = await incremental.run(input, ctx);
          const want = createDedup({ mode: 'default' }).run(input, ctx);
          expect(got.messages).toEqual(want.messages);
          if (got.report.detail?.startsWith('unchanged')) watched += 1;
          working = got.messages;
        }
      }),
      { numRuns: 400, seed: 20261123 },
    );
    // The early exit is taken (the property is not only about full runs).
    expect(watched).toBeGreaterThan(200);
  });

  it('runs dedup in full when a new read supersedes an earlier one', async () => {
    const stage = createDedup({ mode: 'default' });
    const incremental = prefixStable(stage, stage.watch());
    const first = [
      user('q', { id: 'u1' }),
      assistant('', [toolCall('c1', 'Read', { file_path: 'src/a.ts' })], { id: 'a1' }),
      toolResult('c1', 'Read', 'v1', { id: 't1' }),
      assistant('', [toolCall('c2', 'Edit', { file_path: 'src/a.ts' })], { id: 'a2' }),
      toolResult('c2', 'Edit', 'ok', { id: 't2' }),
    ];
    expect((await incremental.run(first, ctx)).report.status).toBe('noop');
    const unrelated = [
      ...first,
      assistant('', [toolCall('c3', 'Read', { file_path: 'src/b.ts' })], { id: 'a3' }),
      toolResult('c3', 'Read', 'b', { id: 't3' }),
    ];
    expect((await incremental.run(unrelated, ctx)).report.detail).toMatch(/^unchanged/);
    const reread = [
      ...unrelated,
      assistant('', [toolCall('c4', 'Read', { file_path: 'src/a.ts' })], { id: 'a4' }),
      toolResult('c4', 'Read', 'v2', { id: 't4' }),
    ];
    const result = await incremental.run(reread, ctx);
    expect(result.report.status).toBe('applied');
  });

  it('runs dedup in full when a new call reuses an earlier id (old results answer it now)', async () => {
    const stage = createDedup({ mode: 'default' });
    const incremental = prefixStable(stage, stage.watch());
    const first = [
      user('q', { id: 'u1' }),
      assistant('', [toolCall('c0', 'Read', { file_path: 'src/a.ts' })], { id: 'a1' }),
      toolResult('c0', 'Read', 'v1', { id: 't1' }),
    ];
    expect((await incremental.run(first, ctx)).report.status).toBe('noop');
    const next = [
      ...first,
      assistant('', [toolCall('c0', 'Read', { file_path: 'src/b.ts' })], { id: 'a2' }),
      toolResult('c0', 'Read', 'v1', { id: 't2' }),
    ];
    const want = createDedup({ mode: 'default' }).run(next, ctx);
    expect(want.report.status).toBe('applied');
    expect((await incremental.run(next, ctx)).messages).toEqual(want.messages);
  });
});
