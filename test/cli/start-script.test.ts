import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without declarations
import { parseStartArgs } from '../../scripts/start-args.mjs';

const root = join(import.meta.dirname, '..', '..');

describe('parseStartArgs', () => {
  it('collects each --var KEY:VALUE as a binding when given, keeping colons in the value', () => {
    const parsed = parseStartArgs([
      '--var',
      'UPSTREAM_OPENAI_BASE_URL:http://127.0.0.1:11434/v1',
      '--var',
      'PROXY_TIMING:1',
      '--port',
      '9000',
    ]);
    expect(parsed.ok).toBe(true);
    expect(parsed.value.vars).toEqual({
      UPSTREAM_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      PROXY_TIMING: '1',
    });
    expect(parsed.value.port).toBe(9000);
  });

  it('names the expected form when --var has no KEY:', () => {
    const parsed = parseStartArgs(['--var', 'UPSTREAM_OPENAI_BASE_URL']);
    expect(parsed).toMatchObject({ ok: false, error: expect.stringContaining('--var needs KEY:VALUE') });
  });

  it('refuses an unknown argument listing the known ones', () => {
    const parsed = parseStartArgs(['--bogus']);
    expect(parsed).toMatchObject({ ok: false, error: expect.stringContaining('--var KEY:VALUE') });
  });
});

describe('npm start (scripts/start.mjs)', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 2 with one line naming the port and --port when the port is busy', () => {
    const result = spawnSync(process.execPath, ['scripts/start.mjs', '--port', String(port)], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(lines[0]).toContain('npm start -- --port');
    // Stopped before the migrations: nothing of the set-up ran.
    expect(result.stdout).not.toContain('applying D1 migrations');
  });
});
