import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { messageSchema, PARSE_IN_ENGLISH, quickValidMessage } from '../../src/core/messages/schema.ts';
import { historyArb } from '../support/arbitraries.ts';

const zodAccepts = (m: unknown) => z.safeParse(messageSchema, m, PARSE_IN_ENGLISH).success;

/** Values that are wrong somewhere in a message: the quick check must never accept one zod refuses. */
const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -1,
  1.5,
  0,
  '',
  'x',
  true,
  [],
  {},
  [undefined],
  { a: undefined },
  { a: Number.NaN },
  { [Symbol('k')]: 1 },
  new Date(0),
  new Map(),
  () => 1,
  Symbol('s'),
  10n,
);
const keys = fc.constantFrom(
  'id',
  'role',
  'parts',
  'meta',
  'usage',
  'model',
  'name',
  'extra',
  'provider',
  'unknown',
  'type',
  'text',
  'callId',
  'output',
  'args',
  'isError',
  'signature',
  'inputTokens',
  'kind',
  'agentVisible',
  'openai',
);

/** Sets `key` to `value` on one object reachable in `m` (the message, a part, meta, usage, provider…). */
function mutate(m: Record<string, unknown>, pick: number, key: string, value: unknown): unknown {
  const copy = structuredClone(m);
  const targets: Record<string, unknown>[] = [copy];
  const walk = (v: unknown, depth: number) => {
    if (depth > 3 || typeof v !== 'object' || v === null) return;
    if (!Array.isArray(v)) targets.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) walk(x, depth + 1);
  };
  for (const v of Object.values(copy)) walk(v, 1);
  const target = targets[pick % targets.length]!;
  if (value === undefined && pick % 2 === 0) delete target[key];
  else target[key] = value;
  return copy;
}

describe('quickValidMessage', () => {
  it('accepts only messages zod accepts, whatever is changed in them', () => {
    fc.assert(
      fc.property(
        historyArb({ maxTurns: 3 }),
        fc.nat(),
        fc.nat(40),
        keys,
        odd,
        ({ messages }, which, pick, key, value) => {
          const m = messages[which % messages.length]! as unknown as Record<string, unknown>;
          // The generated message as it is: the quick check may pass it to zod, never contradict it.
          if (quickValidMessage(m)) expect(zodAccepts(m)).toBe(true);
          const changed = mutate(m, pick, key, value);
          if (quickValidMessage(changed)) expect(zodAccepts(changed), JSON.stringify(changed)).toBe(true);
        },
      ),
      { numRuns: 3000, seed: 20261127 },
    );
  });

  it('answers yes for the usual shapes without zod, and no where zod must name the fault', () => {
    const plain = {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'think', signature: 's' },
        { type: 'text', text: 'hi' },
        { type: 'tool-call', id: 'c1', name: 'bash', args: { cmd: 'ls', n: [1, 2] } },
      ],
      usage: { inputTokens: 10, outputTokens: 2, stopReason: 'tool_use' },
      meta: { kind: 'x', agentVisible: true, custom: { a: [1] } },
      model: 'm',
    };
    expect(quickValidMessage(plain)).toBe(true);
    expect(
      quickValidMessage({
        id: 't',
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'c1', output: 'ok' }],
      }),
    ).toBe(true);
    for (const bad of [
      { ...plain, id: '' },
      { ...plain, role: 'robot' },
      { ...plain, parts: [{ type: 'text', text: 1 }] },
      { ...plain, usage: { inputTokens: -1, outputTokens: 0 } },
      { ...plain, usage: { inputTokens: 1.5, outputTokens: 0 } },
      { ...plain, meta: { pinned: 'yes' } },
      { ...plain, meta: { custom: Number.NaN } },
      { ...plain, parts: [{ type: 'tool-call', id: 'c', name: 'n', args: { d: new Date(0) } }] },
      { ...plain, extra: 1 },
      { ...plain, surprise: true },
    ]) {
      expect(quickValidMessage(bad)).toBe(false);
      expect(zodAccepts(bad)).toBe(false);
    }
  });
});
