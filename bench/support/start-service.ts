/**
 * `npm start` as a bench drives it: `node scripts/start.mjs` in its own process group on a fresh
 * persisted state, with bindings given by `--var`, waited for on `/health`, its development key read
 * from what it prints. `kill()` is kill -9 of the whole tree (wrangler and workerd too); `restart()`
 * starts it again on the same state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface RunningService {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The development key of tenant `dev` that `npm start` printed. */
  key: string;
  /** Everything the service printed so far. */
  log(): string;
  /** kill -9 of the whole process group. */
  kill(): void;
  /** Starts it again on the same state and waits for `/health`. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL, then the state is removed. */
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  port: number;
  /** Bindings for this run (`--var KEY:VALUE`). */
  vars?: Record<string, string>;
  /** How long to wait for `/health`. @default 120000 */
  readyMs?: number;
  /** Bundle the test build's fault points (`--test-faults`). @default false */
  testFaults?: boolean;
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const base = `http://127.0.0.1:${options.port}`;
  const persist = mkdtempSync(join(tmpdir(), 'ctxkit-bench-service-'));
  const args = ['scripts/start.mjs', '--port', String(options.port), '--persist-to', persist];
  if (options.testFaults) args.push('--test-faults');
  for (const [k, v] of Object.entries(options.vars ?? {})) args.push('--var', `${k}:${v}`);
  let log = '';
  let child: ChildProcess;
  const spawnIt = () => {
    const c = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    c.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    c.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    return c;
  };
  const waitForHealth = async () => {
    const started = performance.now();
    while (performance.now() - started < (options.readyMs ?? 120_000)) {
      if (child.exitCode !== null) throw new Error(`npm start exited before answering:\n${log.slice(-2000)}`);
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('npm start did not answer /health in time');
  };
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {}
  };
  child = spawnIt();
  try {
    await waitForHealth();
  } catch (error) {
    signal('SIGKILL');
    rmSync(persist, { recursive: true, force: true });
    throw error;
  }
  const key = /export CTXKIT_KEY=(\S+)/.exec(log)?.[1];
  if (!key) throw new Error('npm start printed no key');
  return {
    base,
    key,
    log: () => log,
    kill: () => signal('SIGKILL'),
    restart: async () => {
      await new Promise((r) => setTimeout(r, 1000));
      child = spawnIt();
      await waitForHealth();
    },
    stop: async () => {
      signal('SIGTERM');
      await new Promise((r) => setTimeout(r, 1000));
      signal('SIGKILL');
      rmSync(persist, { recursive: true, force: true });
    },
  };
}
