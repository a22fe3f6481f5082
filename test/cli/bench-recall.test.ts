import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { earlyFacts, FACT_RULES } from '../../src/cli/bench-recall/facts.ts';
import { createFactProcedure } from '../../src/cli/bench-recall/procedure.ts';
import { createCli } from '../../src/cli/cli.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { fromOpenAI } from '../../src/core/index.ts';

/** Tool outputs printing one value of each kind, padded, then a user message after the early 75. */
const OUTPUTS = [
  '{"sessionId":"0b6f7c1e-1111-4a4a-9c9c-123456789abc","type":"user"}',
  'File content (91234 tokens) exceeds maximum allowed tokens (25000).',
  '[feature-x 9f8e7d6] feat: add the parser\n 3 files changed, 120 insertions(+), 4 deletions(-)',
  'File created successfully at: /home/u/plans/quiet-river-plan.md',
  'Finished in 0.4 seconds\n17 tests, 0 failures',
  'Command running in background with ID: c0ffee1. Output is being written to: /tmp/x',
  'Owner: Ada Lovelace · Type: task',
  'Analysis took 1 second (0.2s to load, 0.8s running 57 checks on 2 files)\n12 mods/funs, found no issues.',
  'Found 4 total occurrences across 2 files.',
];

function session(): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Work on the parser task.' }];
  for (let i = 0; i < 40; i++) {
    const id = `call_${i}`;
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id, type: 'function', function: { name: 'Bash', arguments: `{"command":"step ${i}"}` } },
      ],
    });
    const fact = OUTPUTS[i] ?? '';
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: `${fact}\n${`line ${i} of padding output for the replay\n`.repeat(120)}`,
    });
  }
  messages.push({ role: 'user', content: 'Continue where you left off.' });
  return messages;
}

describe('earlyFacts', () => {
  it('takes one fact per kind with a single value, and leaves out a kind with several', () => {
    const raw = session() as { content: string }[];
    (raw[4] as { content: string }).content += '\nCommand running in background with ID: dead000';
    const facts = earlyFacts(fromOpenAI(raw));
    expect(facts.map((f) => f.kind)).not.toContain('background task');
    expect(facts.find((f) => f.kind === 'commit id')?.value).toBe('9f8e7d6');
    expect(facts.every((f) => FACT_RULES.some((r) => r.kind === f.kind && r.query === f.query))).toBe(true);
  });
});

describe('createFactProcedure', () => {
  it('recalls, rereads the refs the answer names, and counts a fact the prompt held as prompt', () => {
    const facts = [
      { kind: 'a', value: 'ALPHA', query: 'qa', at: 0 },
      { kind: 'b', value: 'BETA', query: 'qb', at: 1 },
    ];
    const p = createFactProcedure(facts);
    expect(p.next(undefined, 'nothing')).toEqual({ tool: 'recall', args: { query: 'qa' } });
    expect(p.next("[reread('m0123456789ab'): …] no", 'nothing')).toEqual({
      tool: 'reread',
      args: { ref: 'm0123456789ab' },
    });
    expect(p.next('… ALPHA …', 'BETA is here')).toEqual({ tool: 'recall', args: { query: 'qb' } });
    expect(p.next('nothing found', 'BETA is here')).toBeUndefined();
    expect(p.outcomes).toEqual(['reread', 'prompt']);
  });
});

describe('ctxcheck bench recall', () => {
  it('prints the facts in the prompt beside the facts the tools return for a session with ten facts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-recall-'));
    writeFileSync(join(dir, 'session.json'), JSON.stringify({ id: 's', messages: session() }));
    const io = bufferIo({ cwd: dir });
    expect(await createCli(['bench', 'recall', '--data', '.', '--windows', '8000', '--json'], io).run()).toBe(
      0,
    );
    const out = JSON.parse(io.stdout()) as {
      sessions: { rows: { facts: number; inPrompt: number; returned: number }[] }[];
    };
    const row = out.sessions[0]!.rows[0]!;
    expect(row.facts).toBe(10);
    expect(row.inPrompt).toBeLessThan(10);
    expect(row.returned).toBe(10);
  });

  it('skips with one line when the data folder is absent, and exits 2 naming a bad option', async () => {
    const io = bufferIo({ cwd: tmpdir() });
    expect(await createCli(['bench', 'recall', '--data', 'no-such-folder'], io).run()).toBe(0);
    expect(io.stderr()).toMatch(/skipped, no sessions at/);
    const bad = bufferIo({ cwd: tmpdir() });
    expect(await createCli(['bench', 'recall', '--windows', '12'], bad).run()).toBe(2);
    expect(bad.stderr()).toMatch(/--windows/);
  });
});
