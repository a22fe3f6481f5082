/**
 * The journal's recovery texts fit who reads them: a bare pipeline's caller (its own history, or
 * `run.messages` for what it hid), a session store, the service's route, a transcript file.
 */
import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import {
  callerRecover,
  journalFor,
  recoverText,
  repairsToJournal,
  SESSION_LOG,
} from '../../../src/core/pipeline/engine/journal.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { createToolArchiving } from '../../../src/core/pipeline/stages/archiving.ts';
import type { JournalEntry } from '../../../src/core/pipeline/types.ts';
import { makeCtx } from '../stages/cheap-helpers.ts';

const removed: JournalEntry = {
  stage: 'emergency-trim',
  action: 'removed',
  messageId: 'm7',
  tokensBefore: 40,
  tokensAfter: 0,
  location: SESSION_LOG,
  recover: callerRecover('m7'),
};

describe('callerRecover', () => {
  it('tells a library caller that ctxkit kept nothing, or where a hidden message still is', () => {
    expect(callerRecover('m7')).toContain('not kept by ctxkit');
    expect(callerRecover('m7')).toContain('keep your own history');
    expect(callerRecover('m7', true)).toContain('kept in run.messages as hidden');
  });
});

describe('recoverText', () => {
  it('names the route of the service, with the session, when the service keeps the log', () => {
    expect(recoverText(removed, { kind: 'service', session: 's/1' })).toBe(
      'message m7 is kept whole in the session log: GET /v1/sessions/s%2F1/messages',
    );
  });

  it('names the place in the file when the history is a transcript file', () => {
    const position = (id: string) => (id === 'm7' ? 6 : undefined);
    expect(recoverText(removed, { kind: 'file', file: 'session.jsonl', position })).toBe(
      'message m7 is message 7 of session.jsonl, unchanged',
    );
  });

  it('keeps the text of an entry that lost nothing or is kept elsewhere', () => {
    const blob = { ...removed, location: 'blob:b1', recover: 'read blob b1' };
    expect(recoverText(blob, { kind: 'session-store' })).toBe('read blob b1');
    const [moved] = repairsToJournal([{ kind: 'moved-result', messageId: 'm2', detail: 'moved' }]);
    expect(recoverText(moved!, { kind: 'session-store' })).toBe(moved!.recover);
  });
});

describe('journalFor', () => {
  it('returns the same entries when the keeper is the caller', () => {
    const journal = [removed];
    expect(journalFor(journal, { kind: 'caller' })[0]).toBe(removed);
  });
});

describe('a bare pipeline’s journal', () => {
  it('points to no service route and no session log when a run leaves messages out', async () => {
    const history: Message[] = [];
    for (let i = 0; i < 30; i++)
      history.push(
        user(`question ${i} ${'word '.repeat(60)}`),
        assistant(`answer ${i} ${'word '.repeat(60)}`),
      );
    const run = await createPipeline({ budget: { contextWindow: 4000 } }).prepare({ messages: history });
    const lost = run.journal.filter((e) => e.location === SESSION_LOG && e.action !== 'inserted');
    expect(lost.length).toBeGreaterThan(0);
    for (const e of run.journal) {
      expect(e.recover).not.toContain('/v1/sessions');
      expect(e.recover).not.toContain('session log');
    }
    expect(lost.every((e) => e.recover.includes('keep your own history'))).toBe(true);
  });

  it('says an archived result is still in run.messages, hidden', async () => {
    const input: Message[] = [user('go', { id: 'u0' })];
    for (let i = 1; i <= 12; i++)
      input.push(
        assistant('', [toolCall(`c${i}`, 'bash')], { id: `a${i}` }),
        toolResult(`c${i}`, 'bash', `output ${i}`, { id: `t${i}` }),
      );
    const r = await createToolArchiving({ strategy: 'heuristic', cutoff: 10 }).run(input, makeCtx());
    const archived = r.journal.filter((e) => e.action === 'archived');
    expect(archived.map((e) => e.messageId)).toEqual(['t1', 't2']);
    for (const e of archived) expect(e.recover).toContain('kept in run.messages as hidden');
  });
});
