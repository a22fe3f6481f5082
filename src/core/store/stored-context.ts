/**
 * An incremental context kept in a session store (in-memory, SQLite, D1), keyed by conversation id:
 * a stateless request handler loads it, prepares the history the framework hands over, and saves it.
 * The context's JSON rides in the session's state (`SessionState.context`); the session log is left
 * alone (the raw history stays with the caller, as the framework keeps it).
 *
 *   const ctx = await loadContext(store, { tenant, id: threadId }, { budget: { contextWindow } });
 *   const run = await ctx.prepare(history, { system });
 *   await saveContext(store, { tenant, id: threadId }, ctx);
 */
import { type ContextOptions, createContext, type IncrementalContext } from '../pipeline/engine/context.ts';
import type { SessionStore } from './session-store.ts';

export interface ConversationKey {
  tenant: string;
  /** The conversation (thread) id: the session it is kept in. */
  id: string;
}

/** The context kept for `key`, or a new one when there is none (the session is created on save). */
export async function loadContext(
  store: SessionStore,
  key: ConversationKey,
  options: Omit<ContextOptions, 'state'> = {},
): Promise<IncrementalContext> {
  const session = await store.get(key.tenant, key.id);
  const saved = session ? (await store.getState(key.tenant, key.id)).context : undefined;
  return createContext(saved ? { ...options, state: saved } : options);
}

/** Keeps `ctx` for `key` (creating the session the first time); the session's pipeline state follows it. */
export async function saveContext(
  store: SessionStore,
  key: ConversationKey,
  ctx: IncrementalContext,
): Promise<void> {
  if (!(await store.get(key.tenant, key.id))) await store.create({ tenant: key.tenant, id: key.id });
  const state = await store.getState(key.tenant, key.id);
  const context = ctx.toJSON();
  await store.setState(key.tenant, key.id, { ...state, pipeline: context.pipeline, context });
}
