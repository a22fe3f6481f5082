/**
 * One incremental context per conversation, for a hook that one agent object runs for many
 * conversations (a module-level agent in a server). A hook that shared one context would restart it on
 * every switch between conversations and summarize again. A conversation is found by the id the caller
 * gives (a `conversation` option, a thread id), else by the content of its first message (the core's
 * digest, so a history rebuilt from storage on every request is still recognised). Conversations whose
 * first messages are equal (a fixed greeting) share a context unless the caller names them.
 */
import { CtxError, type Message, messageDigest } from '../core/index.ts';

/** At most this many conversations are held; the least recently used is dropped. */
export const MAX_CONVERSATIONS = 256;

/** The key of a history without a caller-given id: its first non-system message's content. */
export function firstMessageKey(history: readonly Message[]): string {
  const first = history.find((m) => m.role !== 'system');
  return first ? `first:${first.role}:${messageDigest(first)}` : 'first:';
}

export class Conversations<T> {
  private readonly held = new Map<string, T>();

  constructor(private readonly make: () => T) {}

  /** The conversation under `key` (made on first use), now the most recently used. */
  get(key: string): T {
    let value = this.held.get(key);
    if (value === undefined) value = this.make();
    else this.held.delete(key);
    this.remember(key, value);
    return value;
  }

  /** The conversation held under `key`, if any. */
  peek(key: string): T | undefined {
    return this.held.get(key);
  }

  /** Holds `value` under `key` too (the first message of what was sent, when a framework keeps it). */
  remember(key: string, value: T): void {
    this.held.set(key, value);
    if (this.held.size > MAX_CONVERSATIONS) this.held.delete(this.held.keys().next().value as string);
  }
}

/** A caller's `conversation` option, checked: a function or nothing. */
export function conversationOption<A>(entry: string, value: unknown): ((args: A) => unknown) | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function')
    throw new CtxError('invalid_config', `${entry}: expected a function returning the conversation's id`, {
      path: 'conversation',
    });
  return value as (args: A) => unknown;
}

/** The id a `conversation` function returned: a non-empty string or number, else none. */
export function conversationId(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return `id:${value}`;
  if (typeof value === 'number' && Number.isFinite(value)) return `id:${value}`;
  return undefined;
}
