/**
 * Where the proxy may forward: one base URL per provider, from configuration only (a request can
 * never name a host). A key comes from the Worker secret or, per request, `x-upstream-api-key`; it
 * is used for the one upstream call and never stored or logged.
 */
import { CtxError } from '../../core/index.ts';
import type { Env } from '../env.ts';
import type { ProviderId } from './protocol.ts';

/** @default the official APIs */
export const DEFAULT_UPSTREAMS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
} as const satisfies Record<ProviderId, string>;

const VARS = {
  openai: { base: 'UPSTREAM_OPENAI_BASE_URL', key: 'UPSTREAM_OPENAI_API_KEY' },
  anthropic: { base: 'UPSTREAM_ANTHROPIC_BASE_URL', key: 'UPSTREAM_ANTHROPIC_API_KEY' },
} as const;

/** The variable that configures `provider`'s upstream (`UPSTREAM_OPENAI_BASE_URL`, …). */
export function upstreamBaseVariable(provider: ProviderId): string {
  return VARS[provider].base;
}

/** Request headers that would choose an upstream; refused so that nobody thinks they work. */
export const REFUSED_UPSTREAM_HEADERS = [
  'x-upstream-base-url',
  'x-upstream-url',
  'x-ctxkit-upstream',
] as const;

export interface Upstream {
  provider: ProviderId;
  /** Base URL without a trailing slash. */
  base: string;
}

/**
 * The configured upstream of `provider`: its `UPSTREAM_*_BASE_URL`, the official API when unset,
 * none (404) when set to `off` or empty. A value that is not an http(s) URL is a configuration error.
 */
export function upstreamFor(env: Env, provider: ProviderId): Upstream {
  const raw = env[VARS[provider].base];
  const value = typeof raw === 'string' ? raw.trim() : undefined;
  if (value === '' || value === 'off')
    throw new CtxError('not_found', `the ${provider} upstream is not configured on this service`, {
      path: 'url',
    });
  const base = value ?? DEFAULT_UPSTREAMS[provider];
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new CtxError('invalid_config', `${VARS[provider].base} is not a URL`, {
      path: VARS[provider].base,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CtxError('invalid_config', `${VARS[provider].base} must be an http(s) URL`, {
      path: VARS[provider].base,
    });
  return { provider, base: base.replace(/\/+$/, '') };
}

const KEY_RE = /^[\x21-\x7e]{1,512}$/;

/** The per-request key when given (validated), else the Worker secret, else none. */
export function upstreamKey(env: Env, provider: ProviderId, headers: Headers): string | undefined {
  const given = headers.get('x-upstream-api-key');
  if (given !== null) {
    if (!KEY_RE.test(given))
      throw new CtxError('invalid_input', 'must be 1–512 printable ASCII characters', {
        path: 'headers.x-upstream-api-key',
      });
    return given;
  }
  const secret = env[VARS[provider].key];
  return typeof secret === 'string' && secret !== '' ? secret : undefined;
}

export function refuseUpstreamOverride(headers: Headers): void {
  for (const name of REFUSED_UPSTREAM_HEADERS)
    if (headers.has(name))
      throw new CtxError(
        'invalid_input',
        'the upstream comes from the service configuration (UPSTREAM_*_BASE_URL), not from a request',
        { path: `headers.${name}` },
      );
}
