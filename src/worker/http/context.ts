/**
 * The Hono environment of the app, and helpers every route uses: the authenticated tenant, the
 * body reader with the configured limit, zod validation that names the JSON path.
 */
import type { Context } from 'hono';
import type * as z from 'zod';
import { CtxError, parseWith } from '../../core/index.ts';
import type { Scope } from '../auth/scopes.ts';
import type { Env } from '../env.ts';
import { serviceBounds } from '../service-bounds.ts';
import { readJson } from './body.ts';

export interface AppEnv {
  Bindings: Env;
  /**
   * Set by the bearer-key middleware: the tenant, the id of the key that authenticated the request,
   * its scopes and its expiry (ms since epoch, `null`: never).
   */
  Variables: { tenant: string; keyId: string; scopes: Scope[]; keyExpiresAt: number | null };
}

export type AppContext = Context<AppEnv>;

/** Reads, size-checks and validates a JSON body. */
export async function jsonBody<T>(c: AppContext, schema: z.ZodType<T>): Promise<T> {
  const bounds = serviceBounds(c.env);
  const raw = await readJson(c.req.raw, bounds.bodyBytes, { timeoutMs: bounds.bodyReadMs });
  return parseWith(schema, raw, []);
}

/** Like `jsonBody`, but an absent or empty body (with or without a JSON content type) is `{}`. */
export async function optionalJsonBody<T>(c: AppContext, schema: z.ZodType<T>): Promise<T> {
  const length = c.req.header('content-length');
  const hasBody = c.req.header('content-type') !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return parseWith(schema, {}, []);
  const bounds = serviceBounds(c.env);
  const raw = await readJson(c.req.raw, bounds.bodyBytes, { allowEmpty: true, timeoutMs: bounds.bodyReadMs });
  return parseWith(schema, raw ?? {}, []);
}

/** Validates query parameters. */
export function queryParams<T>(c: AppContext, schema: z.ZodType<T>): T {
  return parseWith(schema, c.req.query(), ['query']);
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A path parameter that names a session or memory. */
export function idParam(c: AppContext, name: string): string {
  const value = c.req.param(name) ?? '';
  if (!ID_RE.test(value))
    throw new CtxError('invalid_input', 'must be 1–128 characters of [A-Za-z0-9._-], starting alphanumeric', {
      path: `params.${name}`,
    });
  return value;
}

export const ID_PATTERN = ID_RE;
