/**
 * `ctxcheck inspect` on a transcript whose harness compacted it: it counts from the last compaction
 * boundary (what the model saw, as the provider's recorded usage does), and `--whole` counts the file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lastBoundary, trajectoryBoundaries } from '../../../src/cli/transcripts/boundary.ts';
import { parseTranscript } from '../../../src/cli/transcripts/load-transcript.ts';
import type { Message } from '../../../src/core/index.ts';
import { ctxcheck, tempDir, writeJson } from '../ctxcheck/helpers.ts';

const TRAJECTORY = join(
  import.meta.dirname,
  '../../../../shared/data/trajectories/claude-code/258c7280-ae70-4798-800f-63464d01a85d.json',
);

interface Report {
  messages: number;
  tokens: number;
  level: string;
  boundary?: { index: number; left: number; source: string; trigger?: string; preTokens?: number };
  recorded?: { id: string; tokens: number };
}

const text = (id: string, role: 'system' | 'user' | 'assistant', t: string): Message => ({
  id,
  role,
  parts: [{ type: 'text', text: t }],
});

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe('lastBoundary', () => {
  const messages = [
    text('u1', 'user', 'first'),
    text('a1', 'assistant', 'one'),
    { ...text('s', 'user', 'This session is being continued…'), meta: { isCompactSummary: true } },
    text('a2', 'assistant', 'two'),
  ];
  it('takes the last boundary event inside the messages, with its trigger and size', () => {
    const events = trajectoryBoundaries([
      { type: 'compact_boundary', at_message_index: 2, compactMetadata: { trigger: 'auto', preTokens: 900 } },
      { type: 'other', at_message_index: 3 },
    ]);
    expect(lastBoundary(messages, events)).toEqual({
      index: 2,
      source: 'compact_boundary',
      trigger: 'auto',
      preTokens: 900,
    });
  });

  it('falls back to the summary message when the transcript carries no event, and is absent without one', () => {
    expect(lastBoundary(messages)).toEqual({ index: 2, source: 'isCompactSummary' });
    expect(lastBoundary(messages.slice(0, 2))).toBeUndefined();
  });
});

describe('parseTranscript', () => {
  it('places a Claude Code JSONL compact_boundary before the summary message that follows it', () => {
    const line = (o: object) => JSON.stringify({ sessionId: 's', timestamp: '2026-01-01T00:00:00Z', ...o });
    const jsonl = [
      line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'fix the parser' } }),
      line({ type: 'assistant', uuid: 'a1', message: { id: 'm1', role: 'assistant', content: 'done' } }),
      line({
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'c',
        compactMetadata: { trigger: 'manual', preTokens: 5 },
      }),
      line({
        type: 'user',
        uuid: 'u2',
        isCompactSummary: true,
        message: { role: 'user', content: 'Summary…' },
      }),
      line({ type: 'user', uuid: 'u3', message: { role: 'user', content: 'go on' } }),
    ].join('\n');
    const t = parseTranscript(jsonl);
    expect(t.boundary).toEqual({
      index: 2,
      source: 'compact_boundary',
      line: 3,
      trigger: 'manual',
      preTokens: 5,
    });
    expect(t.messages[2]!.id).toBe('u2');
  });
});

describe.skipIf(!existsSync(TRAJECTORY))('ctxcheck inspect on a session that compacted itself', () => {
  it('counts from the compaction boundary, as the recorded usage does, when the file marks one', async () => {
    const r = await ctxcheck(['inspect', TRAJECTORY, '--window', '128000', '--json'], dir);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.boundary).toMatchObject({
      index: 229,
      left: 229,
      source: 'compact_boundary',
      trigger: 'auto',
    });
    expect(report.messages).toBe(115);
    // The provider counted 77,334 input tokens for the last request, with Claude Code's system prompt
    // and tools that the file does not hold; the messages alone are fewer, never the whole file.
    expect(report.recorded).toEqual({ id: 'm343', tokens: 77_334 });
    expect(report.tokens).toBeLessThan(report.recorded!.tokens);
    expect(report.level).toBe('ok');
    const text = await ctxcheck(['inspect', TRAJECTORY, '--window', '128000'], dir);
    expect(text.stdout).toContain('115 of 344 messages, those after its compaction boundary');
    expect(text.stdout).toContain('the 229 messages before it are not in the context');
  });

  it('counts the whole file with --whole', async () => {
    const r = await ctxcheck(['inspect', TRAJECTORY, '--window', '128000', '--json', '--whole'], dir);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.boundary).toBeUndefined();
    expect(report.messages).toBe(344);
    expect(report.level).toBe('block');
  });
});

describe('ctxcheck inspect on a neutral transcript with a summary message', () => {
  it('counts from the summary message, the system prompt kept, when no event marks the boundary', async () => {
    await writeJson(dir, 'neutral.json', [
      text('sys', 'system', 'You are careful.'),
      text('u1', 'user', 'x '.repeat(4000)),
      text('a1', 'assistant', 'ok'),
      { ...text('s', 'user', 'Earlier: the parser was fixed.'), meta: { isCompactSummary: true } },
      text('a2', 'assistant', 'continuing'),
    ]);
    const r = await ctxcheck(['inspect', 'neutral.json', '--window', '32000', '--json'], dir);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.boundary).toMatchObject({ index: 3, left: 2, source: 'isCompactSummary' });
    // The system prompt stays: it is in every request, before and after the harness compacted.
    expect(report.messages).toBe(3);
    expect(report.tokens).toBeLessThan(100);
  });
});
