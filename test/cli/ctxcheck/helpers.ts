import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCli } from '../../../src/cli/cli.ts';
import { bufferIo } from '../../../src/cli/io.ts';

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ctxcheck-'));
}

export async function writeJson(dir: string, name: string, value: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

/** Runs the CLI in-process; returns the exit code and both streams. */
export async function ctxcheck(args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  const io = bufferIo({ cwd, env });
  const code = await createCli(args, io).run();
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

export const passing = {
  name: 'two turns stay',
  preset: 'cowagent',
  steps: [
    {
      do: 'append',
      messages: [
        { id: 'u1', user: 'hello' },
        { id: 'a1', assistant: 'hi' },
      ],
      expect: { turns: 1, tokens: 3 },
    },
    { do: 'prepare', expect: { unchanged: true, ids: ['u1', 'a1'] } },
  ],
};

export const failing = {
  name: 'wrong expectation',
  preset: 'cowagent',
  steps: [
    { do: 'append', messages: [{ id: 'u1', user: 'hello' }] },
    { do: 'prepare', expect: { count: 3, text: [{ at: 'u1', equals: 'goodbye' }] } },
  ],
};
