/**
 * The session's Durable Object, as the Worker calls it. Named `tenant:session`, so the tenant is
 * part of the object's identity. Typed as the plain method set of `SessionObject` (the generic RPC
 * stub types recurse too deeply through `JsonValue`).
 */
import type { Env } from '../env.ts';
import type { SessionObject } from './session-object.ts';
import type { SessionKey } from './wire.ts';

export type SessionApi = Pick<
  SessionObject,
  | 'create'
  | 'append'
  | 'prepare'
  | 'compact'
  | 'recover'
  | 'clear'
  | 'remove'
  | 'stats'
  | 'view'
  | 'callView'
  | 'daily'
  | 'proxyTurn'
  | 'proxyCommit'
  | 'proxyRecover'
  | 'proxyRecord'
  | 'proxyCall'
  | 'useRecall'
  | 'recallTool'
  | 'recallSearch'
  | 'recallReread'
  | 'recallRemember'
>;

export function sessionStub(env: Env, key: SessionKey): SessionApi {
  const ns = env.SESSIONS;
  return ns.get(ns.idFromName(`${key.tenant}:${key.session}`)) as unknown as SessionApi;
}
