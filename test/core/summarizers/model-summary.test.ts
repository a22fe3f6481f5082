import { describe, expect, it } from 'vitest';
import { assistant, user } from '../../../src/core/messages/builders.ts';
import { isModelSummary, isRequest } from '../../../src/core/messages/text.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { findInstructions } from '../../../src/core/pipeline/stages/standing-instructions.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';

/** Claude Code's compaction summary as a proxy receives it: a user message, no flag. */
const CLAUDE_CODE =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n- Always run `mix test` before committing.\n- Fixed by using `with` instead of `case`.';

describe('isModelSummary', () => {
  it('is true when a user-role message opens like a harness summary or carries the flag', () => {
    expect(isModelSummary(user(CLAUDE_CODE, { id: 's' }))).toBe(true);
    const flagged: Message = {
      ...user('Earlier: the build was fixed.', { id: 'f' }),
      meta: { isCompactSummary: true },
    };
    expect(isModelSummary(flagged)).toBe(true);
    expect(isModelSummary(user('[Summary of 12 earlier messages]\n…', { id: 'k' }))).toBe(true);
  });

  it('is false when the user merely mentions a summary', () => {
    expect(isModelSummary(user('Write a summary of this session, then stop.', { id: 'u' }))).toBe(false);
    expect(isModelSummary(assistant('Done.', [], { id: 'a' }))).toBe(false);
  });
});

describe('isRequest', () => {
  it('is false when the turn start is a model-written summary', () => {
    expect(isRequest(user(CLAUDE_CODE, { id: 's' }))).toBe(false);
    expect(isRequest(user('Always run mix test before committing.', { id: 'u' }))).toBe(true);
  });
});

describe('findInstructions', () => {
  it('pins nothing from a model-written summary, flagged or not', () => {
    expect(findInstructions(user(CLAUDE_CODE, { id: 's' }))).toEqual([]);
    const flagged: Message = {
      ...user('Always run mix test.', { id: 'f' }),
      meta: { isCompactSummary: true },
    };
    expect(findInstructions(flagged)).toEqual([]);
  });
});

describe('createDeterministicSummarizer', () => {
  it('does not call a harness summary the goal or the last request when it folds one', async () => {
    const messages = [
      user(CLAUDE_CODE, { id: 's' }),
      assistant('Continuing with the tests.', [], { id: 'a' }),
      user('Now add the `close_review_session` event test.', { id: 'u' }),
      assistant('Added it.', [], { id: 'a2' }),
    ];
    const { summary } = await createDeterministicSummarizer().summarize({
      purpose: 'compaction',
      preset: 'default',
      messages,
    });
    expect(summary).not.toContain('Last request: This session is being continued');
    expect(summary).toMatch(/## Goal\nNow add the `close_review_session` event test\./);
  });
});
