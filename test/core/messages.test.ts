import { describe, expect, it } from 'vitest';
import {
  ARCHIVED_RESULT_STUB,
  assistant,
  checkInvariants,
  countTurns,
  fromOpenAI,
  parseMessages,
  segmentTurns,
  toModelView,
  toolCall,
  toolResult,
  user,
} from '../../src/core/index.ts';

describe('segmentTurns', () => {
  it('starts a turn at user text, not at tool results, and keeps a leading partial turn', () => {
    const ms = [
      assistant('hello'),
      user('q1'),
      assistant('', [toolCall('c', 'f')]),
      toolResult('c', 'f', 'x'),
      user([{ type: 'tool-result', callId: 'z', output: 'y' }]),
      user('q2'),
    ];
    expect(segmentTurns(ms).map((t) => [t.start, t.end, t.leading])).toEqual([
      [0, 1, true],
      [1, 5, false],
      [5, 6, false],
    ]);
    expect(countTurns(ms)).toBe(2);
  });
});

describe('parseMessages', () => {
  it('names the path and reason of a malformed message', () => {
    expect(() => parseMessages([{ id: 'x', role: 'user', parts: [{ type: 'sound' }] }])).toThrow(
      /messages\[0\]\.parts\[0\]\.type: unknown part type/,
    );
    expect(() => parseMessages([{ id: 'x', parts: [] }])).toThrow(/messages\[0\]\.role: role is required/);
  });

  it('accepts a well-formed message with meta extras', () => {
    const [m] = parseMessages([
      { id: 'x', role: 'user', parts: [{ type: 'text', text: 'hi' }], meta: { isMeta: true } },
    ]);
    expect(m!.meta).toEqual({ isMeta: true });
  });
});

describe('toModelView', () => {
  it('returns the input when everything is visible', () => {
    const ms = [user('q')];
    expect(toModelView(ms)).toBe(ms);
  });

  it('replaces an archived result whose call is visible by a stub, keeping pairs valid', () => {
    const ms = [
      user('q'),
      assistant('', [toolCall('c', 'grep')]),
      toolResult('c', 'grep', 'long output', { meta: { agentVisible: false, kind: 'tool_result_archived' } }),
      user('hidden', { meta: { agentVisible: false } }),
    ];
    const view = toModelView(ms);
    expect(view.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(view[2]!.parts[0]).toMatchObject({ output: ARCHIVED_RESULT_STUB });
    expect(checkInvariants(view, { dialect: 'openai' })).toEqual([]);
  });
});

describe('zod errors from unions', () => {
  it('says a missing union value is required and lists the expected types of a wrong one', () => {
    expect(() => fromOpenAI([{ role: 'user' }])).toThrow(/messages\[0\]\.content: is required/);
    expect(() => fromOpenAI([{ role: 'user', content: 5 }])).toThrow(
      /messages\[0\]\.content: expected string or array, received number/,
    );
  });
});
