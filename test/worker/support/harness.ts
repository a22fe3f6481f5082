/**
 * Runs the bundled Worker in workerd through Miniflare's API, with D1, the session Durable Object
 * and R2 bound as in `wrangler.toml`, and a persistence directory so that a test can stop the
 * runtime and start it again on the same state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare } from 'miniflare';
import { generateApiKey, insertApiKey } from '../../../src/worker/auth/api-keys.ts';
import { bundleWorker } from './bundle.ts';
import { applyMigrations } from './migrations.ts';

export interface WorkerOptions {
  /** Reuse the state of an earlier run. @default a fresh temporary directory */
  persistDir?: string;
  /** Extra `[vars]` / secrets. */
  bindings?: Record<string, string>;
  /** Apply the migrations (skip on a restart). @default true */
  migrate?: boolean;
  /** Bind `AI` to a fake Workers AI whose embeddings are letter-trigram counts (384 dims). @default false */
  fakeAi?: boolean;
  /** Receives the runtime's stdout and stderr (the Worker's console output), chunk by chunk. */
  onLog?: (text: string) => void;
  /** Bind the per-tenant object (`TENANTS`: calls in flight, stored bytes). @default true */
  tenantLimits?: boolean;
  /** Rate limiting bindings, as `[[ratelimits]]` in wrangler.toml. @default none (limits off) */
  ratelimits?: Record<string, { simple: { limit: number; period?: 10 | 60 } }>;
  /** A Worker bundled elsewhere (e.g. from an earlier commit: `npm run bench:proxy -- --before REF`). @default this tree's */
  scriptPath?: string;
  /** Open workerd's inspector on this port (a CPU profile of the Worker: `npm run bench:proxy -- --profile`). */
  inspectorPort?: number;
  /** The test build, whose fault points a request arms (src/worker/test-faults.ts). @default false */
  testFaults?: boolean;
}

/** A wrapped binding standing in for Workers AI: deterministic, offline, lexical "embeddings". */
const FAKE_AI = `export default function () {
  const embed = (text) => {
    const v = new Array(384).fill(0);
    const t = text.toLowerCase();
    for (let i = 0; i + 3 <= t.length; i++) {
      let h = 0;
      for (const ch of t.slice(i, i + 3)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[h % 384] += 1;
    }
    return v;
  };
  return { async run(model, input) { return { shape: [input.text.length, 384], data: input.text.map(embed) }; } };
}`;

export interface RunningWorker {
  mf: Miniflare;
  persistDir: string;
  /** `http://127.0.0.1:<port>` of the running worker. */
  url: URL;
  request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  /** A fresh API key for `tenant`, stored hashed. */
  createKey(tenant: string): Promise<string>;
  db(): Promise<D1Database>;
  dispose(options?: { keepState?: boolean }): Promise<void>;
}

export async function startWorker(options: WorkerOptions = {}): Promise<RunningWorker> {
  const scriptPath = options.scriptPath ?? (await bundleWorker({ testFaults: options.testFaults === true }));
  const persistDir = options.persistDir ?? mkdtempSync(join(tmpdir(), 'ctxkit-worker-'));
  const worker = {
    name: 'ctxkit',
    modules: true,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    compatibilityDate: '2025-09-01',
    compatibilityFlags: ['enable_request_signal'],
    d1Databases: { DB: 'ctxkit-test' },
    durableObjects: {
      SESSIONS: { className: 'SessionObject', useSQLite: true },
      ...(options.tenantLimits === false ? {} : { TENANTS: { className: 'TenantObject', useSQLite: true } }),
    },
    r2Buckets: ['BLOBS'],
    bindings: { MAX_BODY_BYTES: '65536', ...options.bindings },
    ...(options.ratelimits ? { ratelimits: options.ratelimits } : {}),
  };
  const onLog = options.onLog;
  const mf = new Miniflare({
    host: '127.0.0.1',
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    ...(onLog
      ? {
          handleRuntimeStdio(stdout: Readable, stderr: Readable) {
            for (const stream of [stdout, stderr])
              stream.on('data', (d: Buffer) => onLog(d.toString('utf8')));
          },
        }
      : {}),
    defaultPersistRoot: persistDir,
    workers: options.fakeAi
      ? [
          { ...worker, wrappedBindings: { AI: { scriptName: 'fake-ai' } } },
          { name: 'fake-ai', modules: true, script: FAKE_AI },
        ]
      : [worker],
  });
  const url = await mf.ready;
  const db = () => mf.getD1Database('DB') as unknown as Promise<D1Database>;
  if (options.migrate !== false) await applyMigrations(await db());
  return {
    mf,
    persistDir,
    url,
    db,
    async request(path, init = {}) {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== undefined) headers.set('authorization', `Bearer ${key}`);
      let body = rest.body;
      if (json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(json);
      }
      return fetch(new URL(path, url), { ...rest, headers, ...(body !== undefined ? { body } : {}) });
    },
    async createKey(tenant) {
      const { key, row } = await generateApiKey(tenant);
      await insertApiKey(await db(), row, 'test', Date.now());
      return key;
    },
    async dispose({ keepState = false } = {}) {
      await mf.dispose();
      if (!keepState) rmSync(persistDir, { recursive: true, force: true });
    },
  };
}
