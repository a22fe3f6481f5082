import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import {
  type Alignment,
  aheadCover,
  align,
  onInput,
  staleness,
} from '../../../src/core/pipeline/stages/compaction-ahead.ts';
import type { PipelineState, StageContext } from '../../../src/core/pipeline/types.ts';

const state = { compactionFailures: 0 } as PipelineState;
const ctx = { state } as StageContext;

function history(): Message[] {
  return [
    user('read the config', { id: 'u1' }),
    assistant('', [toolCall('c1', 'read', { path: 'a.ts' })], { id: 'a1' }),
    { ...toolResult('c1', 'read', 'export const a = 1;', { id: 't1' }), meta: { kind: 'tool_result' } },
    assistant('a is 1', [], { id: 'a2' }),
  ];
}

/** What tool-result archiving does to a result: the same message, hidden from the agent. */
const archived = (m: Message): Message => ({
  ...m,
  meta: { ...m.meta, agentVisible: false, kind: 'tool_result_archived' },
});

describe('staleness', () => {
  it('still covers a history whose tool result was archived since, content unchanged', () => {
    const before = history();
    const cover = aheadCover(before, ctx);
    const after = before.map((m, i) => (i === 2 ? archived(structuredClone(m)) : m));
    expect(staleness(cover, after, ctx)).toBeUndefined();
  });

  it('still covers a result pruned or deduplicated since (its output a placeholder), archived or not', () => {
    const before = history();
    const cover = aheadCover(before, ctx);
    const cleared = (m: Message, output: string): Message => ({
      ...m,
      parts: [{ ...m.parts[0]!, output } as Message['parts'][0]],
    });
    for (const change of [
      (m: Message) => cleared(m, '[Old read output cleared: 6 tokens]'),
      (m: Message) => cleared(m, '[Superseded by a later read of a.ts]'),
      (m: Message) => archived(cleared(m, '[Old tool result content cleared]')),
    ]) {
      const after = before.map((m, i) => (i === 2 ? change(m) : m));
      expect(staleness(cover, after, ctx)).toBeUndefined();
    }
  });

  it('is stale when the archived result also changed content, pins or id', () => {
    const before = history();
    const cover = aheadCover(before, ctx);
    const changes: Array<(m: Message) => Message> = [
      (m) => ({
        ...archived(m),
        parts: [{ ...m.parts[0]!, output: 'export const a = 2;' } as Message['parts'][0]],
      }),
      // A placeholder on another call id is not a reduction of this result.
      (m) => ({
        ...m,
        parts: [{ ...m.parts[0]!, callId: 'c9', output: '[Old read output cleared]' } as Message['parts'][0]],
      }),
      (m) => ({ ...archived(m), meta: { ...archived(m).meta, pinned: true } }),
      (m) => ({ ...archived(m), id: 't1-other' }),
    ];
    for (const change of changes) {
      const after = before.map((m, i) => (i === 2 ? change(m) : m));
      expect(staleness(cover, after, ctx)).toMatch(/message 2/);
    }
    // Only tool results are archived: the same marks on a user message are a change.
    const marked = before.map((m, i) => (i === 0 ? archived(m) : m));
    expect(staleness(cover, marked, ctx)).toMatch(/message 0/);
    // The covered message itself changed in place after it was prepared: its key no longer matches.
    const mutable = history();
    const moved = aheadCover(mutable, ctx);
    const copy = mutable.map((m) => structuredClone(m));
    (mutable[2]!.parts[0] as { output: string }).output = 'export const a = 3;';
    copy[2] = archived(copy[2]!);
    expect(staleness(moved, copy, ctx)).toMatch(/message 2/);
  });
});

/** What archiving inserts: a digest with a fresh id, its own on every pre-flight. */
const digest = (id: string, text = '[Tool output summary]\nTool: read\nCall ID: c1'): Message => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
  meta: { kind: 'tool_summary', agentVisible: true, userVisible: false },
});

describe('align', () => {
  it("skips archiving's digests on both sides: the preparation's own and the step's, with other ids and places", () => {
    const base = history();
    const cover = aheadCover([...base.slice(0, 2), archived(base[2]!), base[3]!, digest('toolsum_1')], ctx);
    const since = [user('next question', { id: 'u2' })];
    // The step archived the same result and put its digest at the end, after what arrived since.
    const input = [...base.slice(0, 2), archived(base[2]!), base[3]!, ...since, digest('toolsum_7')];
    const a = align(cover, input, ctx);
    expect(typeof a).toBe('object');
    expect((a as Alignment).end).toBe(4);
    // In place, between covered messages, too.
    const inPlace = [...base.slice(0, 2), archived(base[2]!), digest('toolsum_8'), base[3]!];
    expect(staleness(cover, inPlace, ctx)).toBeUndefined();
    // A covered message that is not a digest missing is a rewind, whatever digests stand in its place.
    expect(staleness(cover, [...base.slice(0, 2), archived(base[2]!), digest('toolsum_9')], ctx)).toMatch(
      /rewound/,
    );
    // A result archived in the preparation's view but visible again is not a reduction.
    expect(
      staleness(
        cover,
        inPlace.map((m, i) => (i === 2 ? base[2]! : m)),
        ctx,
      ),
    ).toMatch(/message 2/);
    expect(staleness(cover, [...base.slice(0, 2), base[3]!, digest('x')], ctx)).toMatch(/message 2/);
  });

  it('puts the step’s own kept messages and digests after the prepared head, never the preparation’s digest twice', () => {
    const base = history();
    const prepDigest = digest('toolsum_1');
    const covers = [...base, prepDigest];
    const cover = aheadCover(covers, ctx);
    const summary = user('[summary of u1..t1]', { id: 'sum' });
    // The prepared result: a summary for the first three, the last two covered messages kept verbatim.
    const prepared = {
      ...cover,
      result: { messages: [summary, base[3]!, prepDigest] },
      guardLine: 1e9,
    } as never;
    const reducedA2 = base[3]!; // unchanged
    const input = [
      ...base.slice(0, 2),
      archived(base[2]!),
      reducedA2,
      user('more', { id: 'u2' }),
      digest('toolsum_5'),
    ];
    const a = align(cover, input, ctx) as Alignment;
    const out = onInput(prepared, input, a);
    expect(out.map((m) => m.id)).toEqual(['sum', 'a2', 'u2', 'toolsum_5']);
    expect(out[1]).toBe(base[3]);
  });
});
