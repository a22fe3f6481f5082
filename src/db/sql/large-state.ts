/**
 * A session's state too large for its row. The state (`sessions.state`) holds the pipeline's record
 * of the last send — a digest per message sent — and the working context, a reference per message:
 * some 15 and 14 characters a message, so a context of 100,000 messages (`PROXY_MAX_MESSAGES`'s
 * default, a 1M-token window) makes a state of 1.5–3 MB, past D1's 2 MB per value. D1 refused it
 * in production (local D1 does not enforce the limit), and every later turn of that session with it:
 * answers relayed with "the turn could not be stored" and never logged. A state over `threshold`
 * characters is kept whole in the blob store beside the session's large messages (its key the
 * SHA-256 of its JSON) and its row holds a pointer; reading checks the digest. The previous state's
 * blob is removed once the row points at the new one.
 */
import { CtxError, type SessionState, sha256Hex } from '../../core/index.ts';
import type { LargeValues, Pointer } from './large-rows.ts';

/**
 * Characters of a state's JSON above which it leaves the row. @default 262144 (256 Ki characters:
 * at most 768 KiB of UTF-8, well under D1's 2 MB per value)
 */
export const LARGE_STATE_CHARS = 262_144;

/** What a row's `state` column starts with when the state is kept elsewhere. */
const STATE_HEAD = '{"$storedState":';

export interface StateCodec {
  /** The `state` column for `state`, its large JSON put in the blob store first. */
  encode(tenant: string, session: string, state: SessionState): Promise<string>;
  /** The state a column holds, read back from the blob store when it is a pointer. */
  decode(tenant: string, session: string, column: string): Promise<SessionState>;
  /** The column `encode` gave is now the row's: the blob of the state before it can go. */
  written(tenant: string, session: string, column: string): Promise<void>;
}

const utf8 = new TextEncoder();

function pointerOf(column: string): Pointer | undefined {
  return column.startsWith(STATE_HEAD)
    ? (JSON.parse(column) as { $storedState: Pointer }).$storedState
    : undefined;
}

export function createStateCodec(large?: LargeValues, threshold = LARGE_STATE_CHARS): StateCodec {
  /** The blob key each session's row points at, as this isolate last read or wrote it. */
  const current = new Map<string, string>();
  const name = (tenant: string, session: string) => `${tenant}\n${session}`;
  return {
    async encode(tenant, session, state) {
      const json = JSON.stringify(state);
      // Without a blob store the row is tried as it is (the database refuses what it cannot hold).
      if (json.length <= threshold || !large) return json;
      const sha256 = await sha256Hex(json);
      const pointer: Pointer = { key: `state.${sha256}`, bytes: utf8.encode(json).byteLength, sha256 };
      try {
        await large.put(tenant, session, pointer.key, json);
      } catch (cause) {
        throw new CtxError(
          'storage_error',
          `the state of session ${session} could not be kept in the blob store`,
          {
            cause,
          },
        );
      }
      return `${STATE_HEAD}${JSON.stringify(pointer)}}`;
    },
    async decode(tenant, session, column) {
      const pointer = pointerOf(column);
      if (!pointer) {
        current.delete(name(tenant, session));
        return JSON.parse(column) as SessionState;
      }
      const whole = large ? await large.get(tenant, session, pointer.key) : undefined;
      if (whole === undefined || (await sha256Hex(whole)) !== pointer.sha256)
        throw new CtxError(
          'storage_error',
          `the state of session ${session} is kept in the blob store, and could not be read back whole`,
          {},
        );
      current.set(name(tenant, session), pointer.key);
      return JSON.parse(whole) as SessionState;
    },
    async written(tenant, session, column) {
      const key = pointerOf(column)?.key;
      const before = current.get(name(tenant, session));
      if (key) current.set(name(tenant, session), key);
      else current.delete(name(tenant, session));
      // An isolate that never read the row does not know the blob before: it goes with the session.
      if (before && before !== key) await large?.remove?.(tenant, session, before).catch(() => undefined);
    },
  };
}
