/**
 * The service as `npm start` runs it (scripts/start.mjs, its own local state) with a fake provider
 * behind the proxy, for the browser tests: start, the API with a key, a proxied call, stop.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider-server.ts';
import { openAIHistory, spilledTurn } from '../../worker/support/proxy-history.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const SHOTS = join(ROOT, 'screenshots');
export const OPENAI = '/v1/proxy/openai/chat/completions';
const ADMIN = 'admin-token-for-the-browser-test-0123456789';

export function findChromium(): string | undefined {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface Service {
  base: string;
  key: string;
  otherKey: string;
  fake: FakeProvider;
  api(path: string, init?: RequestInit & { as?: string }): Promise<Response>;
  /** A Chat Completions call through the proxy; the fake answers `reply` (default: "done"). */
  proxied(
    session: string,
    body: { messages: unknown[]; tools?: unknown[] },
    window: number,
    options?: { as?: string; reply?: Parameters<FakeProvider['script']>[0] },
  ): Promise<string>;
  stop(): Promise<void>;
}

export async function startService(): Promise<Service> {
  const fake = await startFakeProvider({ port: 0 });
  const persist = mkdtempSync(join(tmpdir(), 'ctxkit-browser-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const vars = {
    UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
    UPSTREAM_OPENAI_API_KEY: 'sk-fake',
    ADMIN_TOKEN: ADMIN,
  };
  const args = ['scripts/start.mjs', '--port', String(port), '--persist-to', persist];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const until = Date.now() + 150_000;
  while (!/ready on/.test(log)) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`npm start did not come up:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const key = /export CTXKIT_KEY=(\S+)/.exec(log)![1]!;
  const issued = await fetch(`${base}/v1/admin/tenants/other/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  const otherKey = ((await issued.json()) as { key: string }).key;
  const api: Service['api'] = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${init.as ?? key}`);
    if (init.body) headers.set('content-type', 'application/json');
    return fetch(base + path, { ...init, headers });
  };
  return {
    base,
    key,
    otherKey,
    fake,
    api,
    async proxied(session, body, window, options = {}) {
      fake.script(options.reply ?? { kind: 'answer', text: 'done' });
      const res = await api(OPENAI, {
        method: 'POST',
        ...(options.as ? { as: options.as } : {}),
        headers: { 'x-ctxkit-session': session, 'x-ctxkit-window': String(window) },
        body: JSON.stringify({ model: 'gpt-4o', ...body }),
      });
      if (res.status !== 200) throw new Error(`proxy ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return res.headers.get('x-ctxkit-journal')!;
    },
    async stop() {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {}
      }
      await fake.close();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}

/**
 * A session `id` whose one proxied call has every kind of row: 30 turns of large tool outputs at a
 * 16K window (truncated, archived, left out) and a tool result spilled to a blob. Its journal link.
 */
export function spilledSession(s: Service, id = 'ui-1'): Promise<string> {
  const messages = [...openAIHistory(30, 400), ...spilledTurn(), { role: 'user', content: 'Summarize.' }];
  return s.proxied(id, { messages }, 16_384);
}

/** A project memory "Build command" of the service's tenant (the memories view's row). */
export async function buildCommandMemory(s: Service, pinned = false): Promise<void> {
  const body = {
    type: 'project',
    title: 'Build command',
    content: 'Run npm run build before release.',
    pinned,
  };
  const res = await s.api('/v1/memories', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`memory ${res.status}: ${await res.text()}`);
}
