/**
 * `npm run bench:attack`: the standing attack suite. Drives `npm start` (a fresh state, 127.0.0.1 only)
 * with a local provider that misbehaves on request, through every case in bench/attack/*.ts, and prints
 * held or FAILED per case with what was measured. Exit 1 when a case failed.
 *
 *   npm run bench:attack -- [--port 8803] [--only <substring>] [--fast] [--list]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadCases, runSuite } from './attack/suite.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8803' },
    only: { type: 'string' },
    fast: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1024 || port > 65535) {
  console.error('bench:attack: --port must be an integer from 1024 to 65535');
  process.exit(2);
}
const only = values.only?.toLowerCase();
const select = (c: { name: string; fast?: boolean }) =>
  (!values.fast || c.fast === true) && (only === undefined || c.name.toLowerCase().includes(only));

if (values.list) {
  for (const c of (await loadCases()).filter(select))
    console.log(`${c.fast ? 'fast' : 'slow'}  ${c.name}: ${c.promise}`);
  process.exit(0);
}

console.log(`bench:attack against npm start on 127.0.0.1:${port}, load ${loadavg()[0]!.toFixed(1)}`);
console.log('| case | promise | result | ms | measured |');
console.log('|---|---|---|---:|---|');
const outcomes = await runSuite({
  port,
  select,
  onOutcome: (o) =>
    console.log(
      `| ${o.name} | ${o.promise} | ${o.held ? 'held' : '**FAILED**'} | ${o.ms.toFixed(0)} | ${o.detail.replaceAll('|', '\\|')} |`,
    ),
});
const failed = outcomes.filter((o) => !o.held);
console.log(
  `\n${outcomes.length - failed.length} of ${outcomes.length} held${failed.length ? `; failed: ${failed.map((f) => f.name).join(', ')}` : ''}`,
);
process.exit(failed.length ? 1 : 0);
