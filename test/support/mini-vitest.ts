/**
 * A small stand-in for the part of vitest's API the portable core tests use (describe/it/expect).
 * The portability lane bundles core test files with `vitest` aliased to this module and runs them
 * unchanged in Deno and workerd. An unsupported matcher throws, so a test never passes by accident.
 */
import { isDeepStrictEqual } from './deep-equal.ts';

interface Case {
  name: string;
  fn: () => unknown;
  skip: boolean;
}
const cases: Case[] = [];
const stack: string[] = [];
let skipDepth = 0;

type Fn = () => unknown;
function register(name: string, fn: Fn, skip = false): void {
  cases.push({ name: [...stack, name].join(' > '), fn, skip: skip || skipDepth > 0 });
}

function describeImpl(name: string, fn: Fn, skip = false): void {
  stack.push(name);
  if (skip) skipDepth++;
  try {
    fn();
  } finally {
    if (skip) skipDepth--;
    stack.pop();
  }
}
export const describe = Object.assign((name: string, fn: Fn) => describeImpl(name, fn), {
  skipIf: (cond: unknown) => (name: string, fn: Fn) => describeImpl(name, fn, Boolean(cond)),
  skip: (name: string, fn: Fn) => describeImpl(name, fn, true),
});
export const it = Object.assign((name: string, fn: Fn) => register(name, fn), {
  skipIf: (cond: unknown) => (name: string, fn: Fn) => register(name, fn, Boolean(cond)),
  skip: (name: string, fn: Fn) => register(name, fn, true),
});
export const test = it;

function fmt(v: unknown): string {
  try {
    return JSON.stringify(v)?.slice(0, 300) ?? String(v);
  } catch {
    return String(v);
  }
}

function matchesObject(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return isDeepStrictEqual(actual, expected);
  if (actual === null || typeof actual !== 'object') return false;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matchesObject(actual[i], e))
    );
  return Object.entries(expected).every(([k, v]) => matchesObject((actual as Record<string, unknown>)[k], v));
}

function thrown(fn: unknown): { threw: boolean; error: unknown } {
  try {
    (fn as () => unknown)();
    return { threw: false, error: undefined };
  } catch (error) {
    return { threw: true, error };
  }
}

function makeMatchers(actual: unknown, negate: boolean, label?: string) {
  const check = (pass: boolean, what: string) => {
    if (pass === negate)
      throw new Error(`${label ? `${label}: ` : ''}expected ${fmt(actual)} ${negate ? 'not ' : ''}${what}`);
  };
  return {
    toBe: (e: unknown) => check(Object.is(actual, e), `to be ${fmt(e)}`),
    toEqual: (e: unknown) => check(isDeepStrictEqual(actual, e, true), `to equal ${fmt(e)}`),
    toStrictEqual: (e: unknown) => check(isDeepStrictEqual(actual, e), `to strictly equal ${fmt(e)}`),
    toMatchObject: (e: unknown) => check(matchesObject(actual, e), `to match ${fmt(e)}`),
    toBeUndefined: () => check(actual === undefined, 'to be undefined'),
    toBeDefined: () => check(actual !== undefined, 'to be defined'),
    toBeTruthy: () => check(Boolean(actual), 'to be truthy'),
    toBeFalsy: () => check(!actual, 'to be falsy'),
    toBeNull: () => check(actual === null, 'to be null'),
    toBeGreaterThan: (n: number) => check((actual as number) > n, `to be > ${n}`),
    toBeGreaterThanOrEqual: (n: number) => check((actual as number) >= n, `to be >= ${n}`),
    toBeLessThan: (n: number) => check((actual as number) < n, `to be < ${n}`),
    toBeLessThanOrEqual: (n: number) => check((actual as number) <= n, `to be <= ${n}`),
    toHaveLength: (n: number) => check((actual as { length: number }).length === n, `to have length ${n}`),
    toContain: (e: unknown) =>
      check(
        typeof actual === 'string'
          ? actual.includes(e as string)
          : (actual as unknown[]).some((x) => Object.is(x, e)),
        `to contain ${fmt(e)}`,
      ),
    toMatch: (e: RegExp | string) =>
      check(
        typeof e === 'string' ? (actual as string).includes(e) : e.test(actual as string),
        `to match ${String(e)}`,
      ),
    toThrow: (e?: RegExp | string) => {
      const { threw, error } = thrown(actual);
      const message = error instanceof Error ? error.message : String(error);
      const ok =
        threw && (e === undefined || (typeof e === 'string' ? message.includes(e) : e.test(message)));
      check(ok, `to throw ${e === undefined ? '' : String(e)} (got ${threw ? message : 'no error'})`);
    },
  };
}

export function expect(actual: unknown, label?: string) {
  const m = makeMatchers(actual, false, label);
  return new Proxy(Object.assign(m, { not: makeMatchers(actual, true, label) }), {
    get(target, prop) {
      if (prop in target) return target[prop as keyof typeof target];
      throw new Error(`mini-vitest: unsupported matcher ${String(prop)}`);
    },
  });
}

export interface CaseResult {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  error?: string;
}

/** Runs every registered case in order. */
export async function runRegistered(): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of cases) {
    if (c.skip) {
      out.push({ name: c.name, status: 'skipped' });
      continue;
    }
    try {
      await c.fn();
      out.push({ name: c.name, status: 'passed' });
    } catch (e) {
      out.push({ name: c.name, status: 'failed', error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
