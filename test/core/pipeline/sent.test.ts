import { describe, expect, it } from 'vitest';
import {
  canonicalMessage,
  HASH_START,
  hashEnd,
  hashMore,
  hashText,
  messageDigest,
} from '../../../src/core/messages/digest.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { chainDigest, overheadDigest } from '../../../src/core/pipeline/engine/sent.ts';

const msg = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });
/** The chain as it is defined: the message digests joined by `|`, hashed once. */
const reference = (ms: readonly Message[], count = ms.length) =>
  hashText(
    ms
      .slice(0, count)
      .map((m) => messageDigest(m))
      .join('|'),
  );

describe('chainDigest', () => {
  const a = msg('a', 'first');
  const b = msg('b', 'second');
  const c = msg('c', 'third');

  it('is the hash of the joined message digests, for every prefix', () => {
    const ms = [a, b, c];
    for (let n = 0; n <= ms.length; n++) expect(chainDigest(ms, n)).toBe(reference(ms, n));
  });

  it('tells apart chains that differ in one message or in order', () => {
    expect(chainDigest([a, b, c])).not.toBe(chainDigest([a, c, b]));
    expect(chainDigest([a, b])).not.toBe(chainDigest([a, b, c]));
  });
});

describe('overheadDigest', () => {
  it('is the hash of the JSON of [system, tools], whatever was asked before', () => {
    const tools = [{ name: 'bash', description: 'run', parameters: { type: 'object' } }];
    const cases: Array<[string | undefined, typeof tools | undefined]> = [
      ['sys', tools],
      ['sys', tools],
      [undefined, undefined],
      ['sys', [...tools]],
      ['other', tools],
      ['sys', []],
    ];
    for (const [system, t] of cases)
      expect(overheadDigest(system, t)).toBe(hashText(JSON.stringify([system ?? '', t ?? []])));
    // A tool replaced in the same array is seen.
    const mutable = [...tools];
    const before = overheadDigest('sys', mutable);
    mutable[0] = { ...tools[0]!, description: 'changed' };
    expect(overheadDigest('sys', mutable)).not.toBe(before);
  });
});

describe('messageDigest of a copy', () => {
  it('is the original’s for a copy with the same parts (an archived result), and not for another role', () => {
    const original: Message = {
      id: 't1',
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', output: 'x'.repeat(50) }],
    };
    const archived: Message = { ...original, meta: { agentVisible: false, kind: 'tool_result_archived' } };
    const asUser: Message = { ...original, role: 'user' };
    expect(messageDigest(archived)).toBe(messageDigest(original));
    expect(messageDigest(asUser)).not.toBe(messageDigest(original));
    expect(messageDigest(asUser)).toBe(hashText(canonicalMessage(asUser)));
  });
});

describe('messageDigest is taken once per parts array', () => {
  it('does not read the content of a copy that shares the parts again', () => {
    let reads = 0;
    // JSON.stringify calls toJSON each time the canonical text is built.
    const output = {
      toJSON: () => {
        reads++;
        return 'y'.repeat(20);
      },
    } as unknown as string;
    const original: Message = {
      id: 't2',
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c2', output }],
    };
    const first = messageDigest(original);
    expect(reads).toBe(1);
    expect(messageDigest({ ...original, meta: { agentVisible: false } })).toBe(first);
    expect(messageDigest({ ...original, id: 'other' })).toBe(first);
    expect(reads).toBe(1);
    // Another role or name over the same parts is digested afresh.
    expect(messageDigest({ ...original, name: 'n' })).not.toBe(first);
    expect(reads).toBe(2);
  });
});

describe('chainDigest over the same messages again', () => {
  it('sees a message replaced in place in an array it digested before', () => {
    const ms = [msg('a', 'one'), msg('b', 'two'), msg('c', 'three')];
    const before = chainDigest(ms);
    expect(chainDigest(ms)).toBe(before);
    ms[1] = msg('b', 'edited');
    expect(chainDigest(ms)).toBe(reference(ms));
    expect(chainDigest(ms)).not.toBe(before);
    expect(chainDigest(ms, 1)).toBe(reference(ms, 1));
  });
});

describe('chainDigest continued from an earlier chain', () => {
  it('equals the chain taken afresh when a history extends, shrinks or branches from one digested before', () => {
    const base = Array.from({ length: 6 }, (_, i) => msg(`m${i}`, `text ${i}`));
    chainDigest(base);
    // Extends the digested chain (the next step's history), in a new array.
    const longer = [...base, msg('m6', 'six'), msg('m7', 'seven')];
    expect(chainDigest(longer)).toBe(reference(longer));
    // A prefix of it, and a branch that shares only the first messages.
    expect(chainDigest(longer, 3)).toBe(reference(longer, 3));
    const branch = [...base.slice(0, 4), msg('x', 'other'), ...base.slice(5)];
    expect(chainDigest(branch)).toBe(reference(branch));
    // The digested array changed in place after its chain was taken: not continued from the old chain.
    longer[2] = msg('m2', 'edited');
    longer.push(msg('m8', 'eight'));
    expect(chainDigest(longer)).toBe(reference(longer));
  });

  it('continues a hash exactly: hashing x then y is hashing x + y', () => {
    const x = 'abc|déf|🙂';
    const y = '|ghi\njkl';
    expect(hashEnd(hashMore(hashMore(HASH_START, x), y))).toBe(hashText(x + y));
    expect(hashText('')).toBe(hashEnd(HASH_START));
  });
});
