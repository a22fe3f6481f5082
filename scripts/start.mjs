#!/usr/bin/env node
/**
 * `npm start`: the edge service on this machine, offline. Applies the D1 migrations to the local
 * database (`wrangler d1 migrations apply DB --local`), makes sure a development API key exists for
 * the tenant `dev` (only its SHA-256 is stored; the key itself is kept in `.wrangler/ctxkit-dev-key`
 * so that it survives restarts), prints it, then runs `wrangler dev`. Extra arguments go to
 * `wrangler dev` (e.g. `npm start -- --port 9000`). The operator routes (`/v1/admin/*`) exist only
 * when `ADMIN_TOKEN` is set, which `wrangler dev` reads from `.dev.vars` (git-ignored); this script
 * only says whether it is, and how to set it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wrangler = join(
  root,
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'wrangler.cmd' : 'wrangler',
);
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? '1' };
const TENANT = 'dev';
const keyFile = join(root, '.wrangler', 'ctxkit-dev-key');

function run(args, label) {
  const result = spawnSync(wrangler, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    console.error(`ctxkit: ${label} failed (wrangler ${args.join(' ')})`);
    process.exit(result.status ?? 1);
  }
  return result.stdout;
}

if (!existsSync(wrangler)) {
  console.error('ctxkit: wrangler is not installed; run `npm ci` first.');
  process.exit(1);
}

console.log('ctxkit: applying D1 migrations to the local database…');
run(['d1', 'migrations', 'apply', 'DB', '--local'], 'migrations');

let key = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
if (!/^ctx_[a-z0-9]{12}_[A-Za-z0-9_-]{32,128}$/.test(key)) {
  key = `ctx_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
}
const id = key.split('_')[1];
const hash = createHash('sha256').update(key).digest('hex');
// Only [a-z0-9] and hex reach the SQL text.
const sql = `INSERT OR REPLACE INTO api_keys (id, tenant, hash, label, created_at) VALUES ('${id}', '${TENANT}', '${hash}', 'development', ${Date.now()});`;
run(['d1', 'execute', 'DB', '--local', '--command', sql], 'storing the development key');

const devVars = join(root, '.dev.vars');
const hasAdminToken = existsSync(devVars) && /^\s*ADMIN_TOKEN\s*=\s*\S/m.test(readFileSync(devVars, 'utf8'));

const args = process.argv.slice(2);
const portIndex = args.indexOf('--port');
const port = portIndex >= 0 ? args[portIndex + 1] : '8787';
console.log(`
ctxkit: development API key for tenant "${TENANT}" (stored hashed; kept in .wrangler/ctxkit-dev-key):

  export CTXKIT_KEY=${key}
  curl -s -H "authorization: Bearer $CTXKIT_KEY" http://127.0.0.1:${port}/v1/sessions
`);
console.log(
  hasAdminToken
    ? `ctxkit: ADMIN_TOKEN is set in .dev.vars: POST /v1/admin/tenants/<tenant>/keys is on.\n`
    : `ctxkit: the operator routes (/v1/admin/*) are off. To turn them on, set ADMIN_TOKEN in .dev.vars and restart:

  echo "ADMIN_TOKEN=$(openssl rand -hex 32)" >> .dev.vars
`,
);
console.log('Starting wrangler dev…\n');

const child = spawn(
  wrangler,
  ['dev', '--ip', '127.0.0.1', ...(portIndex >= 0 ? [] : ['--port', port]), ...args],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
