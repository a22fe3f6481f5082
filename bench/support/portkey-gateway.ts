/**
 * Portkey's open-source AI gateway (`@portkey-ai/gateway`) as the peer of `npm run bench:proxy`: a pure
 * proxy (no context work) started as its own Node server on 127.0.0.1, forwarding OpenAI Chat
 * Completions to a given upstream (`x-portkey-provider: openai`, `x-portkey-custom-host`). Optional: it
 * is not a dependency of ctxkit (25 MB, 83 packages, its own zod 3 and a postinstall script), so it is
 * looked up in this project's node_modules (`npm i --no-save @portkey-ai/gateway`) or in the folder
 * given; `undefined` when absent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/support/free-port.ts';

export interface Gateway {
  /** `http://127.0.0.1:<port>/v1/chat/completions` */
  url: string;
  /** The headers that route a call to the upstream. */
  headers: Record<string, string>;
  version: string;
  close(): Promise<void>;
}

/** The gateway's package folder: under `from` (a folder it is installed in) or this project. */
export function findGateway(from?: string): string | undefined {
  const roots = from ? [resolve(from)] : [resolve(import.meta.dirname, '..', '..')];
  for (const root of roots) {
    for (const dir of [root, join(root, 'node_modules', '@portkey-ai', 'gateway')]) {
      if (existsSync(join(dir, 'build', 'start-server.js'))) return dir;
    }
  }
  return undefined;
}

async function answers(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited ${child.exitCode}: ${output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`the gateway did not answer on ${url} within 30 s: ${output()}`);
}

export async function startGateway(options: {
  upstream: string;
  from?: string | undefined;
}): Promise<Gateway | undefined> {
  const dir = findGateway(options.from);
  if (!dir) return undefined;
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(dir, 'build', 'start-server.js'), `--port=${port}`, '--headless'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  try {
    await answers(base, child, () => output);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url: `${base}/v1/chat/completions`,
    headers: {
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': options.upstream,
      authorization: 'Bearer sk-fake-bench',
    },
    version,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
