import { describe, expect, it } from 'vitest';
import { assistant, system, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import { kosmokratorCompaction } from '../../../src/core/pipeline/presets/kosmokrator/kosmokrator-compaction.ts';
import {
  kosmokratorTranscript,
  TRANSCRIPT_TRUNCATED_LINE,
  wrapKosmoSummary,
} from '../../../src/core/pipeline/presets/kosmokrator/kosmokrator-transcript.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, ids, makeCtx, violations, withState } from './compaction-helpers.ts';

const memory = { type: 'decision' as const, title: 'Use zod', content: 'validate config with zod' };

describe('kosmokratorCompaction', () => {
  it('keeps the last 3 user turns after the protected context and the wrapped system summary', async () => {
    const summarizer = createScriptedSummarizer({
      answers: [{ summary: '## Goal\nship it', memories: [memory] }],
    });
    const input = deepFreeze(conversation(6, { tools: true }));
    const stage = kosmokratorCompaction({
      protectedContext: { mode: 'Edit', cwd: '/repo', gitBranch: 'main' },
    });
    const r = await stage.run(input, makeCtx({ summarizer, preset: 'kosmokrator' }));
    expect(r.report.status).toBe('applied');
    expect(r.messages.map((m) => m.role).slice(0, 3)).toEqual(['system', 'system', 'user']);
    expect(r.messages[0]!.parts[0]).toEqual({
      type: 'text',
      text: '## Protected Context\n- Mode: Edit\n- Working directory: /repo\n- Git branch: main',
    });
    expect(r.messages[1]!.parts[0]).toEqual({ type: 'text', text: wrapKosmoSummary('## Goal\nship it') });
    expect(ids(r.messages).slice(2)).toEqual([
      'u4',
      'c4',
      'r4',
      'a4',
      'u5',
      'c5',
      'r5',
      'a5',
      'u6',
      'c6',
      'r6',
      'a6',
    ]);
    expect(r.memories).toEqual([memory]);
    expect(r.state).toMatchObject({ compactionFailures: 0, lastSummary: '## Goal\nship it' });
    expect(summarizer.requests[0]).toMatchObject({ purpose: 'compaction', preset: 'kosmokrator' });
    expect(summarizer.requests[0]!.transcript!.split('\n')[0]).toBe('[user]: question 1 about src/file1.ts ');
    expect(r.journal.filter((j) => j.action === 'summarized')).toHaveLength(12);
    expect(violations(r.messages, input)).toEqual([]);
  });

  it('wraps the summary with the HEAD markers', () => {
    expect(wrapKosmoSummary('S')).toBe(
      '## Compacted Conversation Summary\n\nThis is historical reference only. The latest user message, current operational mode, current system prompt, and current tool results override this summary. Do not resume stale tasks unless the latest user asks for them.\n\nS\n\n<!-- /kosmo:compacted-summary -->',
    );
    expect(wrapKosmoSummary(wrapKosmoSummary('S'))).toBe(wrapKosmoSummary('S'));
  });

  it('reports "Nothing to compact." with fewer than 4 user turns', async () => {
    const input = deepFreeze(conversation(3));
    const r = await kosmokratorCompaction().run(input, makeCtx());
    expect(r.messages).toBe(input);
    expect(r.report).toMatchObject({ status: 'noop', detail: 'Nothing to compact.' });
  });

  it('treats an empty summary as nothing to compact, not a failure', async () => {
    const ctx = withState(
      makeCtx({ summarizer: createScriptedSummarizer({ answers: [{ summary: '  ' }] }) }),
      {
        compactionFailures: 2,
      },
    );
    const input = deepFreeze(conversation(5));
    const r = await kosmokratorCompaction().run(input, ctx);
    expect(r.messages).toBe(input);
    expect(r.report.detail).toBe('Nothing to compact.');
    expect(r.state).toBeUndefined();
  });

  it('counts a failure, returns the input and opens the breaker at the third', async () => {
    const ctx = withState(
      makeCtx({ summarizer: createScriptedSummarizer({ answers: [{ error: 'rate limit' }] }) }),
      {
        compactionFailures: 2,
      },
    );
    const input = deepFreeze(conversation(5));
    const r = await kosmokratorCompaction().run(input, ctx);
    expect(r.messages).toBe(input);
    expect(r.report).toMatchObject({ status: 'failed', error: 'rate limit' });
    expect(r.state!.compactionFailures).toBe(3);
    expect(r.events.at(-1)).toEqual({ type: 'breaker-open', failures: 3 });
    const skipped = await kosmokratorCompaction().run(input, withState(ctx, { compactionFailures: 3 }));
    expect(skipped.report).toMatchObject({ status: 'skipped', detail: 'circuit breaker open' });
  });

  it('resets the failure count on success', async () => {
    const ctx = withState(makeCtx(), { compactionFailures: 2 });
    const r = await kosmokratorCompaction().run(deepFreeze(conversation(5)), ctx);
    expect(r.state!.compactionFailures).toBe(0);
  });

  it('keeps pinned messages and the caller system prompt', async () => {
    const input = deepFreeze([
      system('you are helpful', { id: 's0' }),
      ...conversation(5).map((m) => (m.id === 'a1' ? { ...m, meta: { pinned: true } } : m)),
    ]);
    const r = await kosmokratorCompaction().run(input, makeCtx());
    expect(ids(r.messages).filter((id) => !id.startsWith('summary'))).toEqual([
      's0',
      'a1',
      'u3',
      'a3',
      'u4',
      'a4',
      'u5',
      'a5',
    ]);
  });
});

describe('kosmokratorTranscript', () => {
  it('formats calls, results and over-long text with the 002 caps', () => {
    const t = kosmokratorTranscript([
      user('hi'),
      assistant('done', [
        toolCall('c', 'file_edit', { path: 'a.ts', old_string: 'x', new_string: 'y', n: 2 }),
      ]),
      toolResult('c', 'file_edit', 'r'.repeat(250)),
      system('s'),
    ]);
    expect(t.split('\n')).toEqual([
      '[user]: hi',
      '[assistant → tool_call]: file_edit(path: a.ts, old_string: [...], new_string: [...], n: 2)',
      '[assistant]: done',
      `[tool_result]: ${'r'.repeat(200)} [truncated — 250 chars]`,
      '[system]: s',
    ]);
  });

  it('drops the oldest lines first and puts the marker line first', () => {
    const msgs = Array.from({ length: 10 }, (_, i) => user(`${i}`.repeat(50)));
    const lines = kosmokratorTranscript(msgs, { maxChars: 200 }).split('\n');
    expect(lines[0]).toBe(TRANSCRIPT_TRUNCATED_LINE);
    expect(lines.at(-1)).toBe(`[user]: ${'9'.repeat(50)}`);
    const head = kosmokratorTranscript(msgs, { maxChars: 200, capDrops: 'newest' }).split('\n');
    expect(head.at(-1)).toBe(TRANSCRIPT_TRUNCATED_LINE);
    expect(head[0]).toBe(`[user]: ${'0'.repeat(50)}`);
  });
});
