/**
 * The command line of `npm start` (scripts/start.mjs), parsed apart from its effects so that a test
 * can check it: `--port N`, `--ip A`, `--persist-to DIR`, `--wrangler`, and `--var KEY:VALUE`
 * (repeatable, as `wrangler dev --var`: a binding for this run, over `wrangler.toml` and `.dev.vars`).
 */
import { createServer } from 'node:net';

export const START_USAGE = '--port N, --ip A, --persist-to DIR, --var KEY:VALUE, --wrangler, --test-faults';

/**
 * @param {readonly string[]} argv
 * `--test-faults` bundles the test build of src/worker/test-faults.ts (test/support/test-faults-armed.ts):
 * fault points a test arms per request (bench/attack). A production bundle cannot contain them.
 * @returns {{ ok: true, value: { port: number, ip: string, persistTo: string | undefined, wrangler: boolean, testFaults: boolean, vars: Record<string, string> } } | { ok: false, error: string }}
 */
export function parseStartArgs(argv) {
  const out = { port: '8787', ip: '127.0.0.1', 'persist-to': undefined, wrangler: false, testFaults: false };
  const vars = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    if (name === '--wrangler') {
      out.wrangler = true;
      continue;
    }
    if (name === '--test-faults') {
      out.testFaults = true;
      continue;
    }
    if (!['--port', '--ip', '--persist-to', '--var'].includes(name)) {
      return { ok: false, error: `unknown argument ${name} (known: ${START_USAGE})` };
    }
    const value = argv[++i];
    if (value === undefined || value.startsWith('--')) return { ok: false, error: `${name} needs a value` };
    if (name === '--var') {
      const m = /^([A-Za-z_][A-Za-z0-9_]*):(.*)$/s.exec(value);
      if (!m)
        return {
          ok: false,
          error: `--var needs KEY:VALUE (e.g. --var UPSTREAM_OPENAI_BASE_URL:http://127.0.0.1:11434/v1), got ${value}`,
        };
      vars[m[1]] = m[2];
      continue;
    }
    out[name.slice(2)] = value;
  }
  const port = Number(out.port);
  if (!/^\d+$/.test(out.port) || port < 1 || port > 65535) {
    return { ok: false, error: `--port must be an integer in 1..65535, got ${out.port}` };
  }
  return {
    ok: true,
    value: {
      port,
      ip: out.ip,
      persistTo: out['persist-to'],
      wrangler: out.wrangler,
      testFaults: out.testFaults,
      vars,
    },
  };
}

/**
 * Whether `host:port` can be listened on now: `undefined` when free, else the one-line reason
 * (`EADDRINUSE` → "port 8787 on 127.0.0.1 is in use: …"), so that `npm start` stops before its set-up
 * instead of in a stack trace from workerd.
 * @param {string} host
 * @param {number} port
 * @returns {Promise<string | undefined>}
 */
export function portProblem(host, port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      resolve(
        code === 'EADDRINUSE'
          ? `port ${port} on ${host} is in use; stop what listens there or choose another: npm start -- --port ${port === 65535 ? port - 1 : port + 1}`
          : `cannot listen on ${host}:${port} (${code ?? err.message}); choose another with npm start -- --port N or --ip A`,
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
