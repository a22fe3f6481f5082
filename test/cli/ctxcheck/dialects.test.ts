import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, tempDir, writeJson } from './helpers.ts';

const SAMPLES = resolve(import.meta.dirname, '../../fixtures/dialects');
let dir: string;

beforeAll(async () => {
  dir = await tempDir();
  const rs = JSON.parse(await readFile(join(SAMPLES, 'responses-agent-loop.json'), 'utf8'));
  const gm = JSON.parse(await readFile(join(SAMPLES, 'gemini-3-parallel-calls.json'), 'utf8'));
  await writeJson(dir, 'rs.json', { instructions: rs.instructions, input: rs.input });
  await writeJson(dir, 'gm.json', gm.request);
});

describe('ctxcheck compact with Responses and Gemini transcripts', () => {
  it('reads a Responses request and writes it back unchanged when nothing needs compacting', async () => {
    const r = await ctxcheck(['compact', 'rs.json', '--window', '200000', '--out', 'rs-out.json'], dir);
    expect(r.code).toBe(0);
    const [input, output] = await Promise.all(
      ['rs.json', 'rs-out.json'].map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8'))),
    );
    expect(output).toEqual(input);
    expect(r.stdout).toContain('(responses)');
  });

  it('converts between them with --to', async () => {
    const r = await ctxcheck(
      ['compact', 'gm.json', '--window', '200000', '--to', 'responses', '--out', 'x.json'],
      dir,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(await readFile(join(dir, 'x.json'), 'utf8')) as {
      input: Array<{ type?: string }>;
    };
    expect(out.input.filter((i) => i.type === 'function_call').length).toBe(3);
    expect(out.input.filter((i) => i.type === 'function_call_output').length).toBe(3);
    const back = await ctxcheck(['compact', 'rs.json', '--window', '200000', '--to', 'gemini'], dir);
    expect(back.code).toBe(0);
    expect(
      JSON.parse(back.stdout.slice(0, back.stdout.lastIndexOf('}') + 1)).contents.length,
    ).toBeGreaterThan(5);
  });

  it('exits 2 with one line naming the item it cannot read', async () => {
    await writeJson(dir, 'bad.json', { input: [{ type: 42, id: 'cu_1' }] });
    const r = await ctxcheck(['compact', 'bad.json', '--window', '1000'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('input[0].type');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
