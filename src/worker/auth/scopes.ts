/**
 * What an API key may do (docs/service.md, "API keys"): `read` (every GET, memory search, a session's recall and reread), `write`
 * (sessions, messages, compaction, memories, blobs), `proxy` (the drop-in proxy's calls) and `admin`
 * (the tenant's audit log, and the keys this key minted: issue, list, revoke). A key mints keys with at
 * most its own scopes and expiry. Every route needs one scope; a key without it gets 403.
 */
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';

export const SCOPES = ['read', 'write', 'proxy', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const scopesSchema = z
  .array(z.enum(SCOPES))
  .min(1)
  .max(SCOPES.length)
  .refine((s) => new Set(s).size === s.length, 'each scope once');

/** `read,write` → the scopes it names, in `SCOPES` order (unknown names are dropped). */
export function parseScopes(stored: string): Scope[] {
  const named = new Set(stored.split(',').map((s) => s.trim()));
  return SCOPES.filter((s) => named.has(s));
}

export function formatScopes(scopes: readonly Scope[]): string {
  return SCOPES.filter((s) => scopes.includes(s)).join(',');
}

/** The recall tools' reads (`POST /v1/sessions/:id/recall`, `/reread`): `remember` writes. */
const RECALL_READS = /^\/v1\/sessions\/[^/]+\/(?:recall|reread)$/;

/**
 * The scope a request needs, by method and path; `undefined` for the routes that decide themselves
 * (`DELETE /v1/keys/:id`: a key may always revoke itself).
 */
export function requiredScope(method: string, path: string): Scope | undefined {
  if (path === '/v1/keys' || path.startsWith('/v1/keys/')) return method === 'DELETE' ? undefined : 'admin';
  if (path === '/v1/audit') return 'admin';
  if (path.startsWith('/v1/proxy/')) return method === 'GET' ? 'read' : 'proxy';
  if (method === 'GET' || method === 'HEAD') return 'read';
  if (method === 'POST' && path === '/v1/memories/search') return 'read';
  if (method === 'POST' && RECALL_READS.test(path)) return 'read';
  return 'write';
}

/** Throws `insufficient_scope` unless `held` holds `needed`. */
export function requireScope(held: readonly Scope[], needed: Scope): void {
  if (!held.includes(needed))
    throw new CtxError(
      'insufficient_scope',
      `this API key lacks the ${needed} scope (it has ${held.join(', ') || 'none'})`,
      { path: 'headers.authorization' },
    );
}
