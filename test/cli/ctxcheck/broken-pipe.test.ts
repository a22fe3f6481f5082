/**
 * `ctxcheck … | head`: a reader that closes the pipe before the output ends stops the command
 * quietly with SIGPIPE's status (141), as `cat` or `git log` — no stack trace of an unhandled EPIPE.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_PIPE_EXIT } from '../../../src/cli/io.ts';
import { tempDir, writeJson } from './helpers.ts';

const bin = resolve(import.meta.dirname, '../../../bin/ctxcheck.mjs');
let dir: string;

beforeAll(async () => {
  dir = await tempDir();
  // About 2 MB of conversation: far more than a pipe holds, so the writer meets the closed end.
  const messages = Array.from({ length: 400 }, (_, i) => [
    { role: 'user', content: `question ${i} ${'word '.repeat(500)}` },
    { role: 'assistant', content: `answer ${i} ${'word '.repeat(500)}` },
  ]).flat();
  await writeJson(dir, 'big.json', messages);
});

/** Runs ctxcheck, reads its first chunk of stdout, then closes the pipe; resolves to the exit and stderr. */
function runAndCloseEarly(args: string[]): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let read = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.once('data', (d: Buffer) => {
      read = d.length;
      child.stdout.destroy();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr, read }));
  });
}

describe('ctxcheck bin', () => {
  it('exits 141 without a stack trace when the reader closes stdout early (compact … | head -1)', async () => {
    const r = await runAndCloseEarly(['compact', 'big.json', '--window', '2000000', '--to', 'neutral']);
    expect(r.read).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/EPIPE|node:events|\n\s+at /);
    expect(r.code).toBe(BROKEN_PIPE_EXIT);
  }, 60_000);
});
