import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';

const session: Message[] = [
  user('Please fix the failing test in src/core/budget/budget.ts. You must not change the public API.'),
  assistant('Let me look.', [toolCall('c1', 'read_file', { path: 'src/core/budget/budget.ts' })]),
  toolResult('c1', 'read_file', 'export function createBudget() {}\n// see test/core/budget.test.ts'),
  assistant('The issue is that `effectiveTokenLimit` ignores reserveTokens.', [
    toolCall('c2', 'edit_file', { path: 'src/core/budget/budget.ts', old_string: 'a', new_string: 'b' }),
  ]),
  toolResult('c2', 'edit_file', 'ok'),
  assistant('', [toolCall('c3', 'bash', { command: 'npx vitest run test/core/budget.test.ts' })]),
  toolResult('c3', 'bash', 'FAIL: expected 111616', { isError: true }),
  user('Also check README.md and the KEEP_RECENT_TOKENS constant.'),
];

function section(summary: string, title: string): string[] {
  const block = summary.split('\n\n').find((b) => b.startsWith(`## ${title}\n`));
  return block ? block.split('\n').slice(1) : [];
}

/** Reference sections are comma-separated lines (cheaper in tokens than a bullet per item). */
function refs(summary: string, title: string): string[] {
  return section(summary, title).flatMap((line) => line.split(', '));
}

describe('createDeterministicSummarizer', () => {
  const s = createDeterministicSummarizer();

  it('builds the structured sections from the messages', async () => {
    const { summary } = await s.summarize({ purpose: 'compaction', preset: 'default', messages: session });
    expect(section(summary, 'Goal')).toEqual([
      'Please fix the failing test in src/core/budget/budget.ts. You must not change the public API.',
    ]);
    expect(section(summary, 'Key Decisions')).toEqual([
      '- The issue is that `effectiveTokenLimit` ignores reserveTokens.',
    ]);
    expect(section(summary, 'Files Changed')).toEqual(['- src/core/budget/budget.ts (edit_file)']);
    expect(section(summary, 'Errors')).toEqual([
      '- bash: npx vitest run test/core/budget.test.ts — FAIL: expected 111616',
    ]);
    expect(section(summary, 'Other Tool Calls')).toEqual(['- read_file: src/core/budget/budget.ts']);
    expect(section(summary, 'In Progress')).toEqual([
      '- Last request (unanswered): Also check README.md and the KEEP_RECENT_TOKENS constant.',
    ]);
    // Every file is in the summary, once: the prose spells these out already, so the index leaves them out.
    for (const file of ['test/core/budget.test.ts', 'README.md', 'src/core/budget/budget.ts'])
      expect(summary).toContain(file);
    expect(section(summary, 'Relevant Files')).toEqual([]);
    expect(section(summary, 'User Constraints')).toEqual(['- You must not change the public API.']);
    expect(summary).toContain('KEEP_RECENT_TOKENS');
    expect(summary).toContain('effectiveTokenLimit');
    expect(refs(summary, 'Identifiers')).toEqual(['old_string', 'new_string', 'createBudget']);
  });

  it('lists no tool-call ids among the identifiers, even when placeholders name them', async () => {
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [
        user('inspect the parser'),
        assistant('', [toolCall('toolu_01AbCdEfGh', 'read_file', { path: 'src/parse_input.ts' })]),
        toolResult(
          'toolu_01AbCdEfGh',
          'read_file',
          '[cleared — recover: call toolu_01AbCdEfGh is kept in the log]',
        ),
      ],
    });
    expect(summary).toContain('src/parse_input.ts');
    expect(summary).not.toContain('toolu_01AbCdEfGh');
  });

  it('is deterministic', async () => {
    const a = await s.summarize({ purpose: 'compaction', preset: 'default', messages: session });
    const b = await s.summarize({ purpose: 'compaction', preset: 'default', messages: session });
    expect(a).toEqual(b);
  });

  it('merges a previous summary: keeps its goal and files, adds the new ones first', async () => {
    const first = await s.summarize({ purpose: 'compaction', preset: 'default', messages: session });
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [
        user('Now document it in docs/budget.md'),
        assistant('Done; decided to use a table for the thresholds.'),
      ],
      previousSummary: first.summary,
    });
    expect(section(summary, 'Goal')[0]).toMatch(/^Please fix the failing test/);
    expect(summary).toContain('docs/budget.md');
    expect(summary).toContain('src/core/budget/budget.ts');
    expect(section(summary, 'Key Decisions')).toContain('- Done; decided to use a table for the thresholds.');
    // The first summary's work is carried: the file it changed and the error it hit.
    expect(section(summary, 'Files Changed')).toEqual(['- src/core/budget/budget.ts (edit_file)']);
    expect(section(summary, 'Errors')).toHaveLength(1);
    expect(section(summary, 'In Progress')).toEqual(['- Last request: Now document it in docs/budget.md']);
  });

  it('takes no message ctxkit inserted for a request: archive digests and pinned instructions', async () => {
    const digest = (text: string): Message => ({
      ...user(`[Tool output summary]\nTool: bash\nCall ID: c9\nStatus: ok\n${text}`),
      meta: { kind: 'tool_summary', agentVisible: true, userVisible: false },
    });
    const pinned: Message = {
      ...user('[Standing instructions from the user]\n- never touch migrations/'),
      meta: { kind: 'standing-instructions', pinned: true },
    };
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [
        pinned,
        digest('You must not rerun it. Output: 3 passed'),
        user('Run the tests in test/unit'),
        assistant('', [toolCall('c9', 'bash', { command: 'npm test' })]),
        toolResult('c9', 'bash', '3 passed'),
        // What archiving leaves after the step: a digest, after the answer.
        digest('Tool "bash" finished with status ok.'),
      ],
    });
    expect(section(summary, 'Goal')).toEqual(['Run the tests in test/unit']);
    // Answered by the assistant's call: the digest after it is no new, unanswered request.
    expect(section(summary, 'In Progress')).not.toContainEqual(expect.stringMatching(/Last request/));
    expect(summary).not.toContain('Tool output summary');
    expect(section(summary, 'User Constraints')).toEqual([]);
  });

  it('merges an earlier summary message found among the messages', async () => {
    const first = await s.summarize({ purpose: 'compaction', preset: 'default', messages: session });
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [
        user(`[Previous conversation summary]\n\n${first.summary}`, { meta: { kind: 'summary' } }),
        user('next: go'),
      ],
    });
    expect(section(summary, 'Goal')[0]).toMatch(/^Please fix/);
  });

  it('returns user constraints and decisions as memories', async () => {
    const { memories } = await s.summarize({
      purpose: 'compaction',
      preset: 'kosmokrator',
      messages: session,
    });
    expect(memories!.map((m) => m.type)).toEqual(['user', 'decision']);
  });

  it('clips to maxOutputChars by dropping the oldest list items first and repeating nothing', async () => {
    const many = [
      ...Array.from({ length: 200 }, (_, i) => user(`look at src/f${i}.ts please`)),
      assistant('done with src/f150.ts'),
    ];
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: many,
      maxOutputChars: 500,
    });
    expect(summary.length).toBeLessThanOrEqual(500);
    // The agent's own `src/f150.ts` first; then the most recent files, short names before longer paths
    // of the same score (they cost less); no reference inside another listed one (`f150.ts`), and
    // `src/f199.ts`, spelled out in the last request above the index, is not repeated.
    const files = refs(summary, 'Relevant Files');
    expect(files[0]).toBe('src/f150.ts');
    expect(files).toContain('src/f198.ts');
    expect(files.filter((f) => files.some((g) => g !== f && g.includes(f)))).toEqual([]);
    expect(files.some((f) => f.includes('f199'))).toBe(false);
    expect(section(summary, 'In Progress')).toEqual(['- Last request: look at src/f199.ts please']);
  });

  it('leaves the goal out when the prose share is too small for more than a fragment of it', async () => {
    const many = [
      ...Array.from({ length: 200 }, (_, i) => user(`look at src/f${i}.ts please`)),
      assistant('done with src/f150.ts'),
    ];
    const summarize = (maxOutputChars: number) =>
      s.summarize({ purpose: 'compaction', preset: 'default', messages: many, maxOutputChars });
    expect(section((await summarize(400)).summary, 'Goal')).toEqual([]);
    expect(section((await summarize(600)).summary, 'Goal')).toEqual(['look at src/f0.ts please']);
  });

  it('leaves out a reference contained in another listed one when they share the index', async () => {
    const { summary } = await s.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [
        user('run the tests'),
        assistant('Running reproduce_issue.py, then astropy/table/table.py and table.py again.'),
      ],
    });
    const all = [...refs(summary, 'Relevant Files'), ...refs(summary, 'Identifiers')];
    expect(all).toEqual(expect.arrayContaining(['reproduce_issue.py', 'astropy/table/table.py']));
    expect(all).not.toContain('table.py');
    expect(all).not.toContain('reproduce_issue');
  });

  it("gives 000's fallback lines for a memory flush", async () => {
    const { summary } = await s.summarize({
      purpose: 'memory-flush',
      preset: 'cowagent',
      messages: [
        user('hi'),
        assistant('hello'),
        user('summarise the report'),
        assistant('\nHere it is.\nMore'),
      ],
    });
    expect(summary).toBe('- 用户: summarise the report → 回复: Here it is.');
  });

  it("gives 003's heuristic texts for tool results", async () => {
    const one = await s.summarize({
      purpose: 'tool-result',
      preset: 'tiancai',
      messages: [toolResult('c9', 'grep', 'a\nb', { isError: true })],
    });
    expect(one.summary).toBe('Tool "grep" finished with status error. Output excerpt:\na\nb');
    const batch = await s.summarize({
      purpose: 'tool-batch',
      preset: 'tiancai',
      messages: [toolResult('c1', 'ls', 'x\ny'), toolResult('c2', 'cat', 'z')],
    });
    expect(batch.summary).toBe('- [c1] ls (ok): x y\n- [c2] cat (ok): z');
  });
});

describe('the summarizer that read ahead and summarized before (memo and name index)', () => {
  const sentence = fc
    .array(
      fc.constantFrom(
        'You must keep',
        'never touch',
        'We should use',
        'because',
        'the fix is',
        'src/core/a.ts',
        'a.ts',
        'lib/core/a.ts',
        'parseWith',
        'parse_with_x',
        'core/a',
        'Next, run',
        'TODO',
        '.',
        '\n',
      ),
      { minLength: 1, maxLength: 12 },
    )
    .map((ws) => ws.join(' '));
  const turn = fc.tuple(fc.constantFrom('user', 'assistant'), sentence);

  it('gives every request the answer of a fresh summarizer, texts edited in place included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 2, maxLength: 24 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 200, max: 3000 }), fc.nat(), sentence), {
          minLength: 1,
          maxLength: 5,
        }),
        async (turns, requests) => {
          const messages: Message[] = turns.map(([role, text]) =>
            role === 'user' ? user(text) : assistant(text),
          );
          const warm = createDeterministicSummarizer();
          for (const [end, max, edit, text] of requests) {
            warm.ahead?.(messages);
            // An edit in place after the read ahead: the memo is keyed by text, never stale.
            const part = messages[edit % messages.length]!.parts[0];
            if (part?.type === 'text') part.text = text;
            const request = {
              purpose: 'compaction' as const,
              preset: 'default' as const,
              messages: messages.slice(0, 1 + (end % messages.length)),
              maxOutputChars: max,
            };
            const fresh = await createDeterministicSummarizer().summarize(request);
            expect(await warm.summarize(request)).toEqual(fresh);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
