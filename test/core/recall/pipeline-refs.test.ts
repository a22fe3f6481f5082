import { describe, expect, it } from 'vitest';
import {
  createContext,
  createMemoryRecallArchive,
  createRecall,
  isRef,
  type Message,
  messageText,
  outputText,
  sequentialIds,
  toolResult,
} from '../../../src/core/index.ts';
import { codingSession } from './coding-session.ts';

const session = codingSession;

const partText = (m: Message) =>
  m.parts
    .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-result' ? outputText(p.output) : ''))
    .join('\n');

describe('recall option (stubs and summaries carry refs)', () => {
  it('names a reread ref in every stub and summary it sends, and each ref reads back the whole original', async () => {
    const archive = createMemoryRecallArchive();
    const ctx = createContext({
      budget: { contextWindow: 16_000 },
      recall: createRecall({ archive, maxTokens: 100_000 }),
      ids: sequentialIds(),
    });
    const history = session(40);
    const run = await ctx.prepare(history);
    expect(run.journal.some((e) => e.action === 'summarized')).toBe(true);
    const refs = [
      ...run.send
        .map(partText)
        .join('\n')
        .matchAll(/reread\('([ms][0-9a-f]{12})'\)/g),
    ].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(isRef(ref)).toBe(true);
      const back = await ctx.pipeline.recall!.reread({ ref });
      expect(back, ref).not.toMatch(/^Unknown ref/);
    }
    // Every fact that left the prompt reads back, whole, through recall then reread.
    const sent = run.send.map(partText).join('\n');
    let gone = 0;
    for (let i = 0; i < 40; i++) {
      const fact = `FACT-${i}: version 7.${i}.3 commit ${(0xabc000 + i).toString(16)}`;
      if (sent.includes(fact)) continue;
      gone++;
      const hits = await ctx.pipeline.recall!.recall({ query: `FACT-${i} version` });
      const ref = hits.match(/reread\('([ms][0-9a-f]{12})'\)/)?.[1];
      expect(ref, `fact ${i}`).toBeDefined();
      expect(await ctx.pipeline.recall!.reread({ ref: ref! })).toContain(fact);
    }
    expect(gone).toBeGreaterThan(10);
    // The archive holds each message once, by its content.
    expect(archive.size()).toBeGreaterThan(0);
  });

  it('writes no reread note and archives nothing when recall is off', async () => {
    const ctx = createContext({ budget: { contextWindow: 16_000 }, ids: sequentialIds() });
    const run = await ctx.prepare(session(40));
    expect(run.send.map(messageText).join('\n')).not.toContain('reread(');
    expect(ctx.pipeline.recall).toBeUndefined();
  });
});

describe('recall option (a tool output cut at arrival)', () => {
  it('ends the cut output with its reread ref, which reads the whole output back', async () => {
    const ctx = createContext({
      budget: { contextWindow: 16_000 },
      recall: createRecall({ maxTokens: 100_000 }),
    });
    const big = toolResult('c1', 'bash', `${'x'.repeat(100_000)}\nMIDDLE-FACT 42\n${'y'.repeat(100_000)}`, {
      id: 't1',
    });
    const { message, journal } = await ctx.pipeline.admitToolResult(big);
    const text = partText(message);
    const ref = text.match(/\[whole: reread\('([ms][0-9a-f]{12})'\)\]$/)?.[1];
    expect(ref).toBeDefined();
    expect(journal[0]?.ref).toBe(ref);
    expect(text).not.toContain('MIDDLE-FACT 42');
    expect(await ctx.pipeline.recall!.reread({ ref: ref! })).toContain('MIDDLE-FACT 42');
  });
});

describe('recall option (a manual compaction)', () => {
  it('names the span it folds, and reread returns the folded messages in order', async () => {
    const ctx = createContext({
      budget: { contextWindow: 64_000 },
      recall: createRecall({ maxTokens: 100_000 }),
    });
    await ctx.prepare(session(6));
    const run = await ctx.compact();
    const summary = run.send.find((m) => partText(m).startsWith('[Compacted conversation summary]'));
    const ref = summary && partText(summary).match(/reread\('(s[0-9a-f]{12})'\)/)?.[1];
    expect(ref).toBeDefined();
    const back = await ctx.pipeline.recall!.reread({ ref: ref! });
    expect(back.indexOf('FACT-0: version 7.0.3')).toBeGreaterThan(-1);
    expect(back.indexOf('FACT-0: version 7.0.3')).toBeLessThan(back.indexOf('FACT-1: version 7.1.3'));
  });
});
