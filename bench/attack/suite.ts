/**
 * The attack suite's engine: a local misbehaving provider, `npm start` pointed at it with an operator
 * token and a provider key, then every case module of this folder (`export const cases`) run in turn,
 * the disruptive ones (restarts, kill -9) last. Shared by `npm run bench:attack` and the fast lane of
 * `npm test` (test/worker/attack-fast.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeProvider } from '../../test/support/fake-provider-server.ts';
import { startService } from '../support/start-service.ts';
import type { AttackCase, AttackEnv, AttackResult } from './types.ts';

export interface CaseOutcome extends AttackResult {
  name: string;
  promise: string;
  ms: number;
}

/** Every case of every module in bench/attack/ (not this engine, the types or the runner's helpers). */
export async function loadCases(): Promise<AttackCase[]> {
  const dir = import.meta.dirname;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !['suite.ts', 'types.ts'].includes(f))
    .sort();
  const all: AttackCase[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { cases?: AttackCase[] };
    if (!Array.isArray(mod.cases)) throw new Error(`bench/attack/${f} exports no \`cases\``);
    all.push(...mod.cases);
  }
  return all;
}

export interface SuiteOptions {
  port: number;
  /** Which cases run. */
  select?: (c: AttackCase) => boolean;
  /** Bindings over the suite's own (timeouts, limits). */
  vars?: Record<string, string>;
  /** Called after each case, as it finishes. */
  onOutcome?: (o: CaseOutcome) => void;
}

export async function runSuite(options: SuiteOptions): Promise<CaseOutcome[]> {
  const cases = (await loadCases()).filter(options.select ?? (() => true));
  cases.sort((a, b) => Number(a.disruptive ?? false) - Number(b.disruptive ?? false));
  const fake = await startFakeProvider({ port: 0 });
  const adminToken = randomBytes(24).toString('hex');
  const providerKey = `sk-attack-${randomBytes(12).toString('hex')}`;
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  const outcomes: CaseOutcome[] = [];
  const caseVars = Object.assign({}, ...cases.map((c) => c.vars ?? {})) as Record<string, string>;
  try {
    service = await startService({
      port: options.port,
      testFaults: cases.some((c) => c.testFaults === true),
      vars: {
        ...caseVars,
        UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
        UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
        UPSTREAM_OPENAI_API_KEY: providerKey,
        UPSTREAM_ANTHROPIC_API_KEY: providerKey,
        ADMIN_TOKEN: adminToken,
        ...options.vars,
      },
    });
    const run = randomBytes(3).toString('hex');
    let n = 0;
    const key = service.key;
    const env: AttackEnv = {
      service,
      fake,
      adminToken,
      providerKey,
      headers: (session) => ({
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(session === undefined ? {} : { 'x-ctxkit-session': session }),
      }),
      id: (prefix) => `${prefix}-${run}-${++n}`,
    };
    for (const c of cases) {
      const started = performance.now();
      let result: AttackResult;
      try {
        result = await c.run(env);
      } catch (error) {
        result = {
          held: false,
          detail: `the case threw: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      const outcome = { name: c.name, promise: c.promise, ms: performance.now() - started, ...result };
      outcomes.push(outcome);
      options.onOutcome?.(outcome);
    }
  } finally {
    await service?.stop();
    await fake.close();
  }
  return outcomes;
}
