#!/usr/bin/env node
/**
 * `npm start`: the edge service on this machine, offline. Applies the D1 migrations to the local
 * database (`wrangler d1 migrations apply DB --local`), makes sure a development API key exists for
 * the tenant `dev` (only its SHA-256 is stored; the key itself is kept in `.wrangler/ctxkit-dev-key`
 * so that it survives restarts), prints it, then bundles the Worker (esbuild, as wrangler does) and
 * runs it in workerd through Miniflare with the bindings of `wrangler.toml`, on the same local state
 * as `wrangler dev` (`.wrangler/state/v3`).
 *
 * Why not `wrangler dev`: its dev proxy (a second workerd in front of the Worker) loses pooled
 * connections to the Worker under concurrent requests ("Network connection lost"), and it reports
 * any such failure of a request whose path is not `/` as "Your worker restarted mid-request" (a 503
 * text/plain; it compares the request's URL with the Worker's base URL). 100 concurrent creates lost
 * up to 80 requests that way; the same Worker without the proxy answered all of them. See
 * docs/decisions/0005-edge-service.md.
 *
 * Options (scripts/start-args.mjs): `--port N` (default 8787), `--ip A` (default 127.0.0.1), `--persist-to DIR` (default
 * `.wrangler/state`, as wrangler), `--var KEY:VALUE` (a binding for this run, over `.dev.vars`), `--wrangler` (run `wrangler dev` instead, as before: live reload,
 * but its proxy drops requests under load; kept for comparison by `npm run bench:service`).
 * The operator routes (`/v1/admin/*`) exist only when `ADMIN_TOKEN` is set (`.dev.vars`, git-ignored, or
 * `--var`); the cron triggers are run by hand through one of them, `POST /v1/admin/cron` with the token.
 * workerd's own trigger URL (`/cdn-cgi/handler/scheduled`, Miniflare's `unsafeTriggerHandlers`) is
 * not served: it needs no credentials, and its `time` parameter let anyone run the clean-up as if
 * 40 days had passed. SIGINT/SIGTERM stop workerd and exit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStartArgs, portProblem } from './start-args.mjs';
import { testFaultsPlugin } from './test-faults-plugin.mjs';

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

const parsedArgs = parseStartArgs(process.argv.slice(2));
if (!parsedArgs.ok) {
  console.error(`ctxkit: ${parsedArgs.error}`);
  process.exit(2);
}
const parsed = parsedArgs.value;
const port = parsed.port;
const host = parsed.ip;
/** Local state, as `wrangler dev --persist-to`: the databases live in `<dir>/v3`. */
const persistTo = resolve(parsed.persistTo ?? join(root, '.wrangler', 'state'));
const persistArgs = ['--persist-to', persistTo];

// Before any set-up: a busy port is one line, not workerd's stack trace after the migrations.
const busy = await portProblem(host, port);
if (busy) {
  console.error(`ctxkit: ${busy}`);
  process.exit(2);
}

console.log('ctxkit: applying D1 migrations to the local database…');
run(['d1', 'migrations', 'apply', 'DB', '--local', ...persistArgs], 'migrations');

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
run(['d1', 'execute', 'DB', '--local', ...persistArgs, '--command', sql], 'storing the development key');

const devVars = join(root, '.dev.vars');
const hasAdminToken =
  (typeof parsed.vars.ADMIN_TOKEN === 'string' && parsed.vars.ADMIN_TOKEN !== '') ||
  (existsSync(devVars) && /^\s*ADMIN_TOKEN\s*=\s*\S/m.test(readFileSync(devVars, 'utf8')));

console.log(`
ctxkit: development API key for tenant "${TENANT}" (stored hashed; kept in .wrangler/ctxkit-dev-key):

  export CTXKIT_KEY=${key}
  curl -s -H "authorization: Bearer $CTXKIT_KEY" http://${host}:${port}/v1/sessions

ctxkit: the context view (sessions, calls, memories): http://${host}:${port}/ui — sign in there with the key above.
`);
console.log(
  hasAdminToken
    ? `ctxkit: ADMIN_TOKEN is set: the operator routes (/v1/admin/*: tenant keys, limits, audit, the crons) are on.\n`
    : `ctxkit: the operator routes (/v1/admin/*: tenant keys, limits, audit, running the crons) are off. To turn them on, set ADMIN_TOKEN in .dev.vars and restart:

  echo "ADMIN_TOKEN=$(openssl rand -hex 32)" >> .dev.vars
`,
);

/** `KEY=value` lines of `.dev.vars` (as wrangler reads them: `#` comments, optional quotes). */
function readDevVars() {
  if (!existsSync(devVars)) return {};
  const vars = {};
  for (const line of readFileSync(devVars, 'utf8').split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    const raw = m[2];
    vars[m[1]] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return vars;
}

if (parsed.wrangler) {
  // The old way, for comparison (`npm run bench:service -- --wrangler`) and for live reload while
  // editing: `wrangler dev`, behind its dev proxy. Its own process group, so that a stop ends all of it.
  console.log('Starting wrangler dev (with its dev proxy; it may drop requests under concurrency)…\n');
  const varArgs = Object.entries(parsed.vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]);
  const child = spawn(wrangler, ['dev', '--ip', host, '--port', String(port), ...persistArgs, ...varArgs], {
    cwd: root,
    env,
    stdio: 'inherit',
    detached: true,
  });
  const stopChild = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {}
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stopChild('SIGTERM'));
  const parentPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== parentPid) stopChild('SIGTERM');
  }, 250).unref();
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else await startMiniflare();

async function startMiniflare() {
  const { build } = await import('esbuild');
  const { Miniflare, Log, LogLevel } = await import('miniflare');
  const { unstable_getMiniflareWorkerOptions } = await import('wrangler');

  const outdir = join(root, '.wrangler', 'ctxkit-start');
  mkdirSync(outdir, { recursive: true });
  const scriptPath = join(outdir, 'worker.mjs');
  await build({
    entryPoints: [join(root, 'src/worker/index.ts')],
    outfile: scriptPath,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*', 'node:*'],
    logLevel: 'error',
    // `--test-faults`: the armed fault points of test/support (never part of src, so never deployed).
    plugins: parsed.testFaults ? [testFaultsPlugin(root)] : [],
  });

  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, 'wrangler.toml'));
  const mf = new Miniflare({
    host,
    port,
    defaultPersistRoot: join(persistTo, 'v3'),
    // Offline: the placeholder `request.cf` instead of fetching one from Cloudflare.
    cf: false,
    log: new Log(LogLevel.WARN),
    workers: [
      {
        ...workerOptions,
        name: 'ctxkit',
        modules: true,
        scriptPath,
        modulesRoot: outdir,
        modulesRules: undefined,
        bindings: { ...workerOptions.bindings, ...readDevVars(), ...parsed.vars },
      },
    ],
  });

  let stopping = false;
  async function stop(signal) {
    if (stopping) return;
    stopping = true;
    console.log(`\nctxkit: ${signal}: stopping…`);
    // workerd is our child: dispose() ends it; give up waiting after 4 s (the process exit ends it too).
    const timer = setTimeout(() => process.exit(1), 4000);
    timer.unref();
    try {
      await mf.dispose();
    } finally {
      process.exit(0);
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(signal));
  // `npm start` runs this script under `sh -c`, and a SIGTERM to npm ends the shell without passing the
  // signal on: an orphaned script would keep workerd answering. A change of parent means it is gone.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop('parent exited');
  }, 250).unref();

  let url;
  try {
    url = await mf.ready;
  } catch (err) {
    // The port was free a moment ago; something took it since (or workerd refused it): one line.
    console.error(
      `ctxkit: ${(await portProblem(host, port)) ?? `workerd did not start: ${err?.message ?? err}`}`,
    );
    await mf.dispose().catch(() => {});
    process.exit(2);
  }
  if (parsed.testFaults)
    console.log(
      'ctxkit: TEST BUILD: fault points armed by x-ctxkit-test-fault (never use this build for real data)',
    );
  console.log(
    `ctxkit: ready on ${url.origin} (run the daily cron: curl -X POST ${url.origin}/v1/admin/cron -H "authorization: Bearer $ADMIN_TOKEN" -H "content-type: application/json" -d '{"cron":"55 23 * * *"}')`,
  );
}
