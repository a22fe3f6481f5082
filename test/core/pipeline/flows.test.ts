import { describe, expect, it } from 'vitest';
import { createMemoryBlobStore } from '../../../src/core/blobs/memory-blob-store.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createPipeline, type PipelineOptions } from '../../../src/core/pipeline/pipeline.ts';
import { INITIAL_STATE } from '../../../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';

/** `turns` user turns, each with one file_read of `chars` characters and a reply. */
function session(turns: number, chars: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(user(`question ${i}`, { id: `u${i}` }));
    out.push(assistant('', [toolCall(`c${i}`, 'file_read', { path: `src/f${i}.ts` })], { id: `a${i}` }));
    out.push(toolResult(`c${i}`, 'file_read', `${i}`.repeat(chars), { id: `t${i}` }));
    out.push(assistant(`answer ${i}`, [], { id: `r${i}` }));
  }
  return out;
}

const env = { clock: fixedClock('2026-01-01T00:00:00Z'), ids: sequentialIds() };
/** Levels at 6000 / 8000 / 9000 tokens. */
const budget = {
  contextWindow: 10_000,
  reserveOutput: 0,
  warningBuffer: 4_000,
  autoCompactBuffer: 2_000,
  blockingBuffer: 1_000,
};
/**
 * `default` cuts a tool output over a twentieth of usable input when it arrives (2,000 bytes here):
 * these cases keep the 4,000-character outputs whole, so that the context is at the level they test.
 */
const wholeOutputs = { config: { outputTruncation: { maxBytes: 51_200 } } };
const ok = () => createScriptedSummarizer({ fallback: { summary: '## Goal\nRead the files.' } });
const down = () => createScriptedSummarizer({ fallback: { error: 'provider down' } });

function statuses(run: { reports: Array<{ stage: string; status: string }> }): string[] {
  return run.reports.map((r) => `${r.stage}:${r.status}`);
}

describe('createPipeline kosmokrator pre-flight (002 §4.6)', () => {
  const kosmo = (extra: Partial<PipelineOptions> = {}) =>
    createPipeline({ preset: 'kosmokrator', budget, summarizer: ok(), ...env, ...extra });

  it('resets the breaker and runs nothing else when the estimate is below warning', async () => {
    const run = await kosmo().prepare({
      messages: session(2, 100),
      state: { ...INITIAL_STATE, compactionFailures: 2 },
    });
    expect(run.state.compactionFailures).toBe(0);
    expect(statuses(run)).toEqual([
      'dedup:noop',
      'pruning:skipped',
      'kosmokrator-compaction:skipped',
      'emergency-trim:skipped',
    ]);
  });

  it('trims the oldest turn once instead of compacting when the breaker is open at blocking', async () => {
    const messages = session(8, 4_000); // ≈ 10,100 tokens ≥ blocking 9000
    const run = await kosmo().prepare({ messages, state: { ...INITIAL_STATE, compactionFailures: 3 } });
    expect(statuses(run).slice(2)).toEqual(['kosmokrator-compaction:skipped', 'emergency-trim:applied']);
    expect(run.events.map((e) => e.type)).toContain('breaker-open');
    expect(run.messages[0]!.id).toBe('u1');
  });

  it('counts a failure and trims the oldest turn immediately when compaction throws', async () => {
    const messages = session(7, 4_000); // ≈ 8,900 tokens: between auto-compact and blocking
    const run = await kosmo({ summarizer: down() }).prepare({ messages });
    expect(run.state.compactionFailures).toBe(1);
    expect(statuses(run).slice(2)).toEqual(['kosmokrator-compaction:failed', 'emergency-trim:applied']);
  });
});

describe('createPipeline default pre-flight', () => {
  it('compacts at the compact level and returns the extracted memories', async () => {
    const summarizer = createScriptedSummarizer({
      fallback: {
        summary: '## Goal\nRead the files.',
        memories: [{ type: 'project', title: 'files', content: 'f0…f6 read' }],
      },
    });
    const run = await createPipeline({ budget, summarizer, ...env, ...wholeOutputs }).prepare({
      messages: session(7, 4_000),
    });
    expect(run.reports.find((r) => r.stage === 'compaction')?.status).toBe('applied');
    expect(run.memories.map((m) => m.title)).toEqual(['files']);
    expect(run.estimate.after).toBeLessThan(run.estimate.before);
  });

  it('escalates to masking and trimming when a compaction leaves the context above 60% of its trigger', async () => {
    const messages = session(7, 4_000);
    const run = await createPipeline({ budget, summarizer: ok(), ...env, ...wholeOutputs }).prepare({
      messages,
      state: { ...INITIAL_STATE, lastCompactionTokens: 7_000 },
    });
    expect(run.events.some((e) => e.type === 'escalated')).toBe(true);
    expect(run.reports.find((r) => r.stage === 'compaction')?.status).toBe('skipped');
    expect(run.estimate.level === 'ok' || run.estimate.level === 'warn').toBe(true);
  });

  it('anchors the estimate to a usage that answered its own previous send', async () => {
    const p = createPipeline({ budget, ...env });
    const messages = session(2, 100);
    const first = await p.prepare({ messages: messages.slice(0, 3) });
    const answered = { ...messages[3]!, usage: { inputTokens: 500, outputTokens: 20 } };
    const run = await p.prepare({ messages: [...first.messages, answered], state: first.state });
    expect(run.estimate.anchored).toBe(true);
    expect(run.estimate.before).toBeGreaterThanOrEqual(520);
  });

  it('rejects a history with a duplicate message id, naming both positions', async () => {
    const messages = session(2, 10);
    messages[3] = { ...messages[3]!, id: messages[1]!.id };
    await expect(createPipeline({ budget, ...env }).prepare({ messages })).rejects.toThrow(
      /duplicate message id "a0" at messages\[1\] and messages\[3\]/,
    );
  });

  it('keeps the input of a stage whose output would be larger (a marker longer than a tiny result)', async () => {
    const read = (id: string, out: string): Message[] => [
      assistant('', [toolCall(`c${id}`, 'Read', { file_path: '/p/a.py' })], { id: `a${id}` }),
      toolResult(`c${id}`, 'Read', out, { id: `t${id}` }),
    ];
    const messages = [user('fix a.py', { id: 'u1' }), ...read('1', 'x = 1'), ...read('2', 'x = 1')];
    const run = await createPipeline({ ...env, counter: createChars4Counter() }).prepare({ messages });
    const dedup = run.reports.find((r) => r.stage === 'dedup')!;
    expect(dedup).toMatchObject({ status: 'noop' });
    expect(dedup.detail).toMatch(/larger than its input/);
    expect(run.messages).toBe(messages);
  });

  it('counts instead of anchoring when the usage measured a context it did not send', async () => {
    const messages = session(2, 100);
    messages[3] = { ...messages[3]!, usage: { inputTokens: 500_000, outputTokens: 20 } };
    const p = createPipeline({ budget, ...env });
    const run = await p.prepare({ messages });
    expect(run.estimate.anchored).toBe(false);
    expect(run.estimate.level).toBe('ok');
    expect(p.estimate({ messages, state: run.state }).anchored).toBe(false);
  });
});

describe('createPipeline cowagent pre-flight (000 §1.6–1.8)', () => {
  it('plans the summary injection in one run and applies it from the next', async () => {
    const p = createPipeline({
      preset: 'cowagent',
      config: { cowagentTrim: { maxContextTurns: 4 } },
      summarizer: ok(),
      ...env,
    });
    const first = await p.prepare({ messages: session(5, 50) });
    expect(first.state.pendingInjections.length).toBe(1);
    const second = await p.prepare({
      messages: [...first.messages, user('next', { id: 'u9' })],
      state: first.state,
    });
    expect(second.reports[0]).toMatchObject({ stage: 'apply-pending-injections', status: 'applied' });
    const target = second.messages.find((m) => m.id === first.state.pendingInjections[0]!.targetId);
    const part = target?.parts[0];
    expect(part?.type === 'text' ? part.text : '').toMatch(
      /^\[System: Previous conversation summary — 2 turns were compacted\]/,
    );
  });
});

describe('Pipeline.recoverOverflow', () => {
  it('compacts and retries once, then gives up, when tiancai overflows twice', async () => {
    const p = createPipeline({
      preset: 'tiancai',
      budget: { contextWindow: 30_000 },
      summarizer: ok(),
      ...env,
    });
    const messages = session(8, 4_000);
    const first = await p.recoverOverflow({ messages, error: new Error('context_length_exceeded') });
    expect([first.retry, first.state.overflowAttempts]).toEqual([true, 1]);
    const second = await p.recoverOverflow({
      messages: first.messages,
      state: first.state,
      error: 'prompt is too long',
    });
    expect(second.retry).toBe(false);
  });

  it('does not retry when the error is not about the context size', async () => {
    const run = await createPipeline(env).recoverOverflow({
      messages: session(1, 10),
      error: new Error('rate limited'),
    });
    expect([run.retry, run.reports[0]?.status]).toEqual([false, 'skipped']);
  });

  it('clears the history and journals every message when cowagent gives up', async () => {
    const p = createPipeline({ preset: 'cowagent', summarizer: ok(), ...env });
    const messages = session(2, 10);
    const run = await p.recoverOverflow({ messages, error: 'context length exceeded', attempt: 2 });
    expect([run.retry, run.cleared, run.messages.length]).toEqual([false, true, 0]);
    expect(run.journal.filter((e) => e.action === 'removed').map((e) => e.messageId)).toEqual(
      messages.map((m) => m.id),
    );
  });
});

describe('Pipeline.recoverOverflow clearing', () => {
  it('keeps an excludeTools call and result, reduced to that call, when cowagent clears the history', async () => {
    const messages = [
      user('q', { id: 'u1' }),
      assistant('looking', [toolCall('c1', 'memory_get'), toolCall('c2', 'bash')], { id: 'a1' }),
      toolResult('c1', 'memory_get', 'remembered', { id: 't1' }),
      toolResult('c2', 'bash', 'ok', { id: 't2' }),
    ];
    const p = createPipeline({ preset: 'cowagent', excludeTools: ['memory_get'], summarizer: ok(), ...env });
    const run = await p.recoverOverflow({ messages, error: 'context length exceeded', attempt: 2 });
    expect(run.messages.map((m) => `${m.id}:${m.parts.map((x) => x.type).join('+')}`)).toEqual([
      'a1:tool-call',
      't1:tool-result',
    ]);
    expect(run.journal.map((e) => `${e.action}:${e.messageId}`)).toEqual([
      'removed:u1',
      'replaced:a1',
      'removed:t2',
    ]);
  });
});

describe('Pipeline.recoverOverflow clearing with reasoning', () => {
  it('keeps the reasoning and the signed call with the excluded call it keeps', async () => {
    const thinking = { type: 'reasoning' as const, text: 'check memory', signature: 'EqQBsig' };
    const signed = {
      ...toolCall('c2', 'bash'),
      provider: { gemini: { part: { thoughtSignature: 'CiQBsig' } } },
    };
    const messages: Message[] = [
      user('q', { id: 'u1' }),
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          thinking,
          { type: 'text', text: 'looking' },
          signed,
          toolCall('c1', 'memory_get'),
          toolCall('c3', 'grep'),
        ],
      },
      toolResult('c2', 'bash', 'ok', { id: 't2' }),
      toolResult('c1', 'memory_get', 'remembered', { id: 't1' }),
      toolResult('c3', 'grep', 'none', { id: 't3' }),
    ];
    const p = createPipeline({ preset: 'cowagent', excludeTools: ['memory_get'], summarizer: ok(), ...env });
    const run = await p.recoverOverflow({ messages, error: 'context length exceeded', attempt: 2 });
    expect(
      run.messages.map(
        (m) => `${m.id}:${m.parts.map((x) => (x.type === 'tool-call' ? x.id : x.type)).join('+')}`,
      ),
    ).toEqual(['a1:reasoning+c2+c1', 't2:tool-result', 't1:tool-result']);
    expect(run.messages[0]!.parts[0]).toBe(thinking);
    expect(run.messages[0]!.parts[1]).toBe(signed);
  });
});

describe('Pipeline.compact', () => {
  it('replaces the history with the two co-cli messages when /compact runs', async () => {
    const run = await createPipeline({ preset: 'co-cli', summarizer: ok(), ...env }).compact({
      messages: session(3, 10),
    });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('passes focus instructions to the summarizer when the default preset compacts by hand', async () => {
    const summarizer = ok();
    await createPipeline({ summarizer, ...env }).compact({
      messages: session(6, 50),
      instructions: 'keep the file names',
    });
    expect(summarizer.requests.map((r) => r.instructions)).toEqual(['keep the file names']);
  });
});

describe('Pipeline.admitToolResult', () => {
  it('spills a huge output to the blob store and journals it when kosmokrator admits it', async () => {
    const blobs = createMemoryBlobStore();
    const p = createPipeline({ preset: 'kosmokrator', blobs, ...env });
    const big = toolResult('c1', 'bash', 'line\n'.repeat(3_000), { id: 't1' });
    const { message, report, journal } = await p.admitToolResult(big);
    expect(report.status).toBe('applied');
    expect(String((message.parts[0] as { output: string }).output)).toMatch(
      /\[truncated - full output saved to /,
    );
    expect(journal.map((e) => e.action)).toEqual(['spilled']);
  });

  it('reports skipped when co-cli admits a result', async () => {
    const { report } = await createPipeline({ preset: 'co-cli', ...env }).admitToolResult(
      toolResult('c1', 'bash', 'x'),
    );
    expect(report.status).toBe('skipped');
  });
});
