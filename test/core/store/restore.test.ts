import { describe, expect, it } from 'vitest';
import {
  assistant,
  cowAgentRestoreTurns,
  createInMemorySessionStore,
  EMPTY_SESSION_STATE,
  type Message,
  restoreCowAgent,
  restoreKosmoKrator,
  resumeSession,
  type StoredMessage,
  system,
  toolCall,
  toolResult,
  user,
} from '../../../src/core/index.ts';

const texts = (ms: readonly Message[]) =>
  ms.map((m) => `${m.role}:${m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join('|')}`);

describe('cowAgentRestoreTurns', () => {
  it('is max(3, turns // 6) when given 20, 24, 30 and 6', () => {
    expect([20, 24, 30, 6].map(cowAgentRestoreTurns)).toEqual([3, 4, 5, 3]);
  });
});

describe('restoreCowAgent', () => {
  const turn = (n: number): Message[] => [
    user(`q${n}`, { id: `u${n}` }),
    assistant(`thinking aloud ${n}`, [toolCall(`c${n}`, 'grep')], { id: `a${n}` }),
    toolResult(`c${n}`, 'grep', 'out', { id: `t${n}` }),
    {
      id: `r${n}`,
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'hidden' },
        { type: 'text', text: `final ${n}` },
      ],
    },
    assistant('', [], { id: `e${n}` }),
  ];

  it('keeps the newest 3 turns as user text + last non-empty assistant text when 5 turns exist', () => {
    const log = [assistant('orphan before any user'), ...[1, 2, 3, 4, 5].flatMap(turn)];
    expect(texts(restoreCowAgent(log, { maxContextTurns: 20 }))).toEqual([
      'user:q3',
      'assistant:final 3',
      'user:q4',
      'assistant:final 4',
      'user:q5',
      'assistant:final 5',
    ]);
  });

  it('joins the text blocks of a user message and drops a turn-less assistant prefix when restoring all turns', () => {
    const log: Message[] = [
      assistant('before', [], { id: 'x' }),
      user([
        { type: 'text', text: ' a ' },
        { type: 'text', text: 'b' },
      ]),
      user('only the user spoke'),
    ];
    expect(texts(restoreCowAgent(log))).toEqual(['user:a \nb', 'user:only the user spoke']);
  });

  it('returns nothing when the log has no user text', () => {
    expect(restoreCowAgent([assistant('hi')])).toEqual([]);
  });
});

describe('restoreKosmoKrator', () => {
  const row = (seq: number, message: Message, compacted: boolean): StoredMessage => ({
    seq,
    message,
    createdAt: 0,
    compacted,
  });

  it('puts the summary BEFORE the non-compacted rows when the session was compacted', () => {
    const rows = [
      row(1, user('old'), true),
      row(2, assistant('old a'), true),
      row(3, user('recent'), false),
      row(4, assistant('ok'), false),
    ];
    const working = { throughSeq: 3, items: [{ message: system('## Goal\nsummary') }, { seq: 3 }] };
    expect(texts(restoreKosmoKrator(rows, working))).toEqual([
      'system:## Goal\nsummary',
      'user:recent',
      'assistant:ok',
    ]);
  });

  it('returns every row when the session was never compacted', () => {
    const rows = [row(1, user('a'), false), row(2, assistant('b'), false)];
    expect(texts(restoreKosmoKrator(rows, null))).toEqual(['user:a', 'assistant:b']);
  });
});

describe('resumeSession', () => {
  it('returns the working context, or a preset restore, when the session exists', async () => {
    const store = createInMemorySessionStore();
    await store.create({ tenant: 't', id: 's' });
    await store.append('t', 's', [
      user('q1', { id: 'u1' }),
      assistant('a1', [], { id: 'a1' }),
      user('q2', { id: 'u2' }),
    ]);
    await store.setState('t', 's', {
      ...EMPTY_SESSION_STATE,
      working: { throughSeq: 3, items: [{ seq: 3 }, { message: system('sum', { id: 'sum' }) }] },
    });
    const ids = async (mode: 'working' | 'kosmokrator' | 'cowagent') =>
      (await resumeSession(store, 't', 's', { mode }))!.messages.map((m) => m.id);
    expect(await ids('working')).toEqual(['u2', 'sum']);
    expect(await ids('kosmokrator')).toEqual(['sum', 'u2']);
    expect(await ids('cowagent')).toEqual(['u1', 'a1', 'u2']);
    expect(await resumeSession(store, 't', 'missing')).toBeUndefined();
  });
});
