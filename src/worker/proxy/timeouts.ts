/**
 * How long the proxy waits on an upstream: for its first byte (the answer's headers) and between two
 * chunks of its body. Each has a default, an environment variable for every upstream, one per
 * upstream, and a per-request header; every value is checked against the same bounds.
 */
import { CtxError } from '../../core/index.ts';
import type { Env } from '../env.ts';
import type { ProviderId } from './protocol.ts';

export interface UpstreamTimeouts {
  /** Until the upstream's answer begins (its status and headers). */
  firstByteMs: number;
  /** Between two chunks of its body, the first one included. */
  idleMs: number;
}

/** @default 5 minutes to the first byte (a long prompt to a reasoning model), 2 minutes idle */
export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { firstByteMs: 300_000, idleMs: 120_000 };

/** 100 ms to 1 hour. */
export const TIMEOUT_BOUNDS = { min: 100, max: 3_600_000 } as const;

const KEYS = {
  firstByteMs: { env: 'FIRST_BYTE_TIMEOUT_MS', header: 'x-ctxkit-first-byte-timeout-ms' },
  idleMs: { env: 'IDLE_TIMEOUT_MS', header: 'x-ctxkit-idle-timeout-ms' },
} as const;

function parseMs(raw: string, code: 'invalid_input' | 'invalid_config', path: string): number {
  const value = /^\d{1,8}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(value >= TIMEOUT_BOUNDS.min && value <= TIMEOUT_BOUNDS.max))
    throw new CtxError(
      code,
      `must be an integer from ${TIMEOUT_BOUNDS.min} to ${TIMEOUT_BOUNDS.max} (milliseconds)`,
      { path },
    );
  return value;
}

/** The operator's value of `kind` (`UPSTREAM_<PROVIDER>_…`, else `UPSTREAM_…`), else undefined. */
function configured(env: Env, provider: ProviderId, suffix: string): number | undefined {
  for (const name of [`UPSTREAM_${provider.toUpperCase()}_${suffix}`, `UPSTREAM_${suffix}`]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    return parseMs(String(raw), 'invalid_config', name);
  }
  return undefined;
}

/**
 * The timeouts of one call: the request's `x-ctxkit-*-timeout-ms` header, else
 * `UPSTREAM_<PROVIDER>_<KIND>_TIMEOUT_MS`, else `UPSTREAM_<KIND>_TIMEOUT_MS`, else the default.
 * A client may shorten its call's timeouts, and lengthen them only up to the operator's ceiling
 * (`UPSTREAM_[<PROVIDER>_]MAX_<KIND>_TIMEOUT_MS`, else the larger of the operator's value and the
 * default): a header over it is a 400 naming the header and the ceiling — never the hour a client
 * once could ask for whatever the operator set. A bad variable is a configuration error naming it.
 */
export function upstreamTimeouts(env: Env, provider: ProviderId, headers: Headers): UpstreamTimeouts {
  const out = { ...DEFAULT_TIMEOUTS };
  for (const kind of Object.keys(KEYS) as Array<keyof UpstreamTimeouts>) {
    const { env: suffix, header } = KEYS[kind];
    const operator = configured(env, provider, suffix) ?? DEFAULT_TIMEOUTS[kind];
    out[kind] = operator;
    const given = headers.get(header);
    if (given === null) continue;
    const value = parseMs(given, 'invalid_input', `headers.${header}`);
    const ceiling = configured(env, provider, `MAX_${suffix}`) ?? Math.max(operator, DEFAULT_TIMEOUTS[kind]);
    if (value > ceiling)
      throw new CtxError(
        'invalid_input',
        `must be at most ${ceiling} ms, this service's ceiling (UPSTREAM_MAX_${suffix}); a call may shorten its timeout, not lengthen it past that`,
        { path: `headers.${header}` },
      );
    out[kind] = value;
  }
  return out;
}

/**
 * `x-ctxkit-on-abort`: `cancel` (the default) stops the upstream when the client goes away; `finish`
 * keeps reading it to the end so that the whole answer is logged.
 */
export function keepReadingOnAbort(headers: Headers): boolean {
  const value = headers.get('x-ctxkit-on-abort');
  if (value === null || value === 'cancel') return false;
  if (value === 'finish') return true;
  throw new CtxError('invalid_input', 'must be cancel or finish', { path: 'headers.x-ctxkit-on-abort' });
}
