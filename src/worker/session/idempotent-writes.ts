/**
 * `Idempotency-Key` inside a session's Durable Object (idempotency.ts says what a client sees). The
 * record of a write's answer lives in the object's storage, its rows in D1: two stores, so no single
 * commit holds both. An append or a create therefore writes its record first — with what its write
 * will leave in D1 — then writes D1, then marks the record done. A retry that finds a record still
 * marked pending checks D1: the rows are there (the crash came after the D1 write) → the first answer
 * is replayed; they are not (it came before) → the write runs again. Either way the write is stored
 * once, whatever instant a crash (kill -9) picked. Compaction keeps the simpler order (run, then
 * record): running it twice stores no row twice.
 */
import { type Message, messageDigest } from '../../core/index.ts';
import type { SqlSessionStore } from '../../db/sql/sql-session-store.ts';
import { type FaultPoint, faultPoint } from '../test-faults.ts';
import {
  IDEMPOTENCY_PREFIX,
  IDEMPOTENCY_TTL_MS,
  type Idempotency,
  type IdempotencyRecord,
  type MaybeReplayed,
  mismatch,
} from './idempotency.ts';
import type { SessionKey } from './wire.ts';

/** What a pending record's write leaves in D1, to be checked by a retry. */
export type WriteCheck =
  | { kind: 'append'; afterSeq: number; ids: string[]; digests: string[] }
  | { kind: 'create' };

/**
 * A write staged: what it will leave in D1, the write itself (which gives the answer), and the answer
 * when it is known before the write (an append's). A create's is read back from D1 on a replay.
 */
export interface StagedWrite<T> {
  check: WriteCheck;
  commit(): Promise<T>;
  value?: T;
}

export interface IdempotentWrites {
  /** The stored answer for `idem`, or `run()` and then its answer stored. */
  once<T>(idem: Idempotency | undefined, run: () => Promise<T>): Promise<MaybeReplayed<T>>;
  /** The stored answer for `idem` (checked against D1 when its write may not have happened), or the staged write, recorded ahead. */
  ahead<T>(
    key: SessionKey,
    idem: Idempotency | undefined,
    stage: () => Promise<StagedWrite<T>>,
    fault?: FaultPoint | undefined,
  ): Promise<MaybeReplayed<T>>;
}

/** The digests an append check compares (what the log holds for each message). */
export function appendCheck(afterSeq: number, messages: readonly Message[]): WriteCheck {
  return { kind: 'append', afterSeq, ids: messages.map((m) => m.id), digests: messages.map(messageDigest) };
}

/** Whether what `check` expects is in D1. */
async function written(store: SqlSessionStore, key: SessionKey, check: WriteCheck): Promise<boolean> {
  if (check.kind === 'create') return (await store.get(key.tenant, key.session)) !== undefined;
  if (!(await store.get(key.tenant, key.session))) return false;
  const n = check.ids.length;
  const rows = await store.rowsIn(key.tenant, key.session, [[check.afterSeq + 1, check.afterSeq + n]]);
  return (
    rows.length === n &&
    rows.every((r, i) => r.message.id === check.ids[i] && messageDigest(r.message) === check.digests[i])
  );
}

interface Pending extends IdempotencyRecord {
  check?: WriteCheck;
  /** The answer is kept in this many pieces beside the record (`value` absent). */
  pieces?: number;
}

/**
 * Characters of JSON one stored answer keeps in the record itself; a larger one (a compaction's
 * answer: its context and a journal entry per message it folded) goes in pieces of this size, since
 * one Durable Object value holds at most 2 MB.
 */
export const ANSWER_PIECE_CHARS = 512 * 1024;
const pieceKey = (name: string, i: number) => `idem-piece:${name}:${i}`;

export function idempotentWrites(
  storage: DurableObjectStorage,
  store: (key: SessionKey) => SqlSessionStore,
): IdempotentWrites {
  let writes = 0;
  /** Every 64 stored answers, those older than the TTL are dropped, with their pieces. */
  const sweep = async (now: number) => {
    if (++writes % 64 !== 0) return;
    const all = await storage.list<Pending>({ prefix: IDEMPOTENCY_PREFIX });
    const old = [...all]
      .filter(([, r]) => now - r.at >= IDEMPOTENCY_TTL_MS)
      .flatMap(([k, r]) => [k, ...Array.from({ length: r.pieces ?? 0 }, (_, i) => pieceKey(k, i))]);
    for (let i = 0; i < old.length; i += 128) await storage.delete(old.slice(i, i + 128));
  };
  /** Stores `record` under `name`, its answer in pieces beside it when it is large (pieces first). */
  const save = async (name: string, record: Pending) => {
    const text = JSON.stringify(record.value ?? null);
    if (text.length <= ANSWER_PIECE_CHARS) return storage.put(name, record);
    const pieces = Math.ceil(text.length / ANSWER_PIECE_CHARS);
    for (let i = 0; i < pieces; i++)
      await storage.put(pieceKey(name, i), text.slice(i * ANSWER_PIECE_CHARS, (i + 1) * ANSWER_PIECE_CHARS));
    const { value: _, ...rest } = record;
    await storage.put(name, { ...rest, pieces } as Pending);
  };
  /** A fresh record for `idem`, checked against its hash (a mismatch is a 409), its answer whole. */
  const find = async (idem: Idempotency, now: number) => {
    const name = IDEMPOTENCY_PREFIX + idem.key;
    const stored = await storage.get<Pending>(name);
    if (!stored || now - stored.at >= IDEMPOTENCY_TTL_MS) return undefined;
    if (stored.hash !== idem.hash) throw mismatch();
    if (stored.pieces === undefined) return stored;
    const keys = Array.from({ length: stored.pieces }, (_, i) => pieceKey(name, i));
    const texts: string[] = [];
    for (let i = 0; i < keys.length; i += 128) {
      const got = await storage.get<string>(keys.slice(i, i + 128));
      for (const k of keys.slice(i, i + 128)) texts.push(got.get(k) ?? '');
    }
    const { pieces: _, ...whole } = stored;
    return { ...whole, value: JSON.parse(texts.join('')) as unknown };
  };
  return {
    async once(idem, run) {
      if (!idem) return { value: await run(), replayed: false };
      const now = Date.now();
      const stored = await find(idem, now);
      if (stored) return { value: stored.value as never, replayed: true };
      const value = await run();
      await save(IDEMPOTENCY_PREFIX + idem.key, { hash: idem.hash, at: now, value });
      await sweep(now);
      return { value, replayed: false };
    },
    async ahead(key, idem, stage, fault) {
      if (!idem) return { value: await (await stage()).commit(), replayed: false };
      const name = IDEMPOTENCY_PREFIX + idem.key;
      const now = Date.now();
      const stored = await find(idem, now);
      if (stored && (!stored.check || (await written(store(key), key, stored.check)))) {
        // A create's answer, written ahead without it, is the session as D1 holds it.
        const value = stored.value ?? (await store(key).get(key.tenant, key.session));
        if (stored.check) await save(name, { hash: stored.hash, at: stored.at, value });
        return { value: value as never, replayed: true };
      }
      const staged = await stage();
      await save(name, { hash: idem.hash, at: now, value: staged.value ?? null, check: staged.check });
      await faultPoint(fault, 'append:before-d1-write');
      const value = await staged.commit();
      await faultPoint(fault, 'append:after-d1-write');
      await save(name, { hash: idem.hash, at: now, value });
      await sweep(now);
      return { value, replayed: false };
    },
  };
}
