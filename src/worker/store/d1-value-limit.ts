/**
 * D1's limit on one value, enforced wherever the service runs. Production D1 refuses a string or
 * BLOB over 2,000,000 bytes (`SQLITE_TOOBIG`); local D1 under `npm start` and Miniflare stores it, so
 * a value past the limit passed every local test and failed only in production — after the upstream
 * was paid, for a proxied turn. Every statement the service binds goes through this check, so local
 * runs refuse what production refuses, with the same error and the value's size.
 */
import type { Env } from '../env.ts';
import { PRODUCTION_VALUE_BYTES } from '../service-bounds.ts';

const utf8 = new TextEncoder();

/** UTF-8 bytes of a bound value (its length for binary, 0 for numbers and null). */
function valueBytes(v: unknown): number {
  if (typeof v === 'string') return v.length * 3 <= PRODUCTION_VALUE_BYTES.d1 ? 0 : utf8.encode(v).byteLength;
  if (v instanceof ArrayBuffer) return v.byteLength;
  if (ArrayBuffer.isView(v)) return v.byteLength;
  return 0;
}

function checked(stmt: D1PreparedStatement, max: number): D1PreparedStatement {
  const bind = stmt.bind.bind(stmt);
  stmt.bind = (...values: unknown[]) => {
    for (const [i, v] of values.entries()) {
      const bytes = valueBytes(v);
      if (bytes > max)
        throw new Error(
          `D1_ERROR: string or blob too big: SQLITE_TOOBIG (bound value ${i + 1} is ${bytes} bytes; D1 takes at most ${max})`,
        );
    }
    return bind(...values);
  };
  return stmt;
}

const wrapped = new WeakMap<D1Database, D1Database>();

/** `db`, whose statements refuse a bound value over `max` bytes as production D1 does. */
export function withValueLimit(db: D1Database, max: number = PRODUCTION_VALUE_BYTES.d1): D1Database {
  const known = wrapped.get(db);
  if (known) return known;
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => checked(target.prepare(query), max);
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  wrapped.set(db, proxy);
  return proxy;
}

const envs = new WeakMap<Env, Env>();

/** `env` with its `DB` checked by `withValueLimit` (one wrapper per env object). */
export function withStoreLimits(env: Env): Env {
  let out = envs.get(env);
  if (!out) {
    out = { ...env, DB: withValueLimit(env.DB) };
    envs.set(env, out);
  }
  return out;
}
