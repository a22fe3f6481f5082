/**
 * The offline summary of the real Claude Code sessions (../shared/data): decisions that say something,
 * and the work of the folded part (files changed, errors, what was done) in prose of its own.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../../../src/core/adapters/openai.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';
import { isFiller } from '../../../src/core/summarizers/extract.ts';

const DIR = join(import.meta.dirname, '../../../../shared/data/trajectories/claude-code');
const present = existsSync(DIR);

/** The long sessions' history before Claude Code's own compaction. */
function prefixes(): Array<{ file: string; messages: Message[] }> {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json') && !f.includes('__agent-'))
    .sort()
    .flatMap((file) => {
      const messages = fromOpenAI(JSON.parse(readFileSync(join(DIR, file), 'utf8')).messages);
      const at = messages.findIndex((m) => m.meta?.isCompactSummary === true);
      return at > 0 ? [{ file, messages: messages.slice(0, at) }] : [];
    });
}

function section(summary: string, title: string): string[] {
  const block = summary.split('\n\n').find((b) => b.startsWith(`## ${title}\n`));
  return block ? block.split('\n').slice(1) : [];
}

describe.skipIf(!present)('createDeterministicSummarizer on the Claude Code sessions', () => {
  const s = createDeterministicSummarizer();
  it('lists no filler among the decisions or the memories they title', async () => {
    const cases = prefixes();
    expect(cases).toHaveLength(3);
    for (const { file, messages } of cases) {
      const r = await s.summarize({
        purpose: 'compaction',
        preset: 'default',
        messages,
        maxOutputChars: 24_000,
      });
      expect(r.summary, file).not.toContain('that alias');
      for (const line of section(r.summary, 'Key Decisions'))
        expect(isFiller(line.slice(2)), line).toBe(false);
      for (const m of r.memories ?? []) expect(isFiller(m.content), m.title).toBe(false);
      // What the agent did is said, not only named: the files it changed and what it recorded as done.
      expect(section(r.summary, 'Files Changed').length, file).toBeGreaterThan(2);
      expect(
        section(r.summary, 'Done').some((l) => /^- (Committed|Closed): /.test(l)),
        file,
      ).toBe(true);
    }
  });
});

describe.skipIf(present)('createDeterministicSummarizer on the Claude Code sessions (real data)', () => {
  it.skip(`skipped: ${DIR} is absent (see ../shared/data/README.md)`, () => {});
});
