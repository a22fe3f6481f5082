/**
 * Messages too large for one SQL row. D1 refuses a value over about 1 MB (and a row over 2 MB); a
 * proxied call may carry a 30 MB history with multi-MB images and texts, and an answer may be as
 * large. A message whose JSON passes `threshold` characters is kept whole in a blob store (its key the
 * SHA-256 of that JSON, under its session), and its row holds a pointer: `{"$stored":{key,bytes,sha256},
 * "id":…,"role":…}`, plus the first part of its text for search. Reading the row reads the blob back and
 * checks its digest. A retried write puts the same key again (content-addressed, so idempotent); a
 * write that failed after its put leaves a blob no row points at, removed with the session.
 */
import { CtxError, type Message, messageText, sha256Hex } from '../../core/index.ts';

/** Where large messages are kept: any store of text by key, per session. */
export interface LargeValues {
  put(tenant: string, session: string, key: string, text: string): Promise<void>;
  get(tenant: string, session: string, key: string): Promise<string | undefined>;
  /** Removes every value kept for the session (the session is deleted). */
  drop(tenant: string, session: string): Promise<void>;
  /** Removes one value (a session state replaced by another, large-state.ts). */
  remove?(tenant: string, session: string, key: string): Promise<void>;
}

/**
 * Characters of a message's JSON above which it leaves the row. @default 262144 (256 Ki characters:
 * at most 768 KiB of UTF-8, under D1's 1 MB per value, with the text column beside it under 2 MB)
 */
export const LARGE_ROW_CHARS = 262_144;

/** What a row's `message` column starts with when the message is kept elsewhere. */
const POINTER_HEAD = '{"$stored":';

/** Where a value kept outside its row is, how large it is and its digest (checked on read). */
export interface Pointer {
  key: string;
  bytes: number;
  sha256: string;
}

/** A message as its row stores it. */
export interface EncodedRow {
  /** The `message` column: the JSON, or the pointer. */
  json: string;
  /** The `text` column (searched by session recall). */
  text: string;
  /** UTF-8 bytes of the whole message. */
  bytes: number;
  /** The whole JSON, when it goes to the blob store. */
  large?: { key: string; whole: string };
}

const utf8 = new TextEncoder();

/** The text a log row indexes for recall (user and assistant text; `''` for the rest). */
export function indexedText(m: Message): string {
  return m.role === 'user' || m.role === 'assistant' ? messageText(m) : '';
}

export interface RowCodec {
  /** How `m` is stored (memoised per message object); large values are not put yet. */
  encode(m: Message): Promise<EncodedRow>;
  /** Puts the large values of `messages` now (before the rows are written); their encoded rows. */
  put(tenant: string, session: string, messages: readonly Message[]): Promise<EncodedRow[]>;
  /** A row's message, read back from the blob store when the row holds a pointer. */
  decode(tenant: string, session: string, json: string, seq: number): Promise<Message>;
  /** Removes a session's large values. */
  drop(tenant: string, session: string): Promise<void>;
}

export function createRowCodec(large?: LargeValues, threshold = LARGE_ROW_CHARS): RowCodec {
  const encoded = new WeakMap<Message, EncodedRow>();
  /** Messages whose large value is already in the blob store (this isolate). */
  const stored = new WeakSet<Message>();
  const encode = async (m: Message): Promise<EncodedRow> => {
    const known = encoded.get(m);
    if (known) return known;
    const json = JSON.stringify(m);
    const text = indexedText(m);
    const bytes = utf8.encode(json).byteLength;
    let row: EncodedRow;
    // Without a blob store the row is tried as it is (the database refuses what it cannot hold).
    if (json.length <= threshold || !large) row = { json, text, bytes };
    else {
      const sha256 = await sha256Hex(json);
      const pointer: Pointer = { key: sha256, bytes, sha256 };
      row = {
        json: `${POINTER_HEAD}${JSON.stringify(pointer)},"id":${JSON.stringify(m.id)},"role":${JSON.stringify(m.role)}}`,
        text: text.slice(0, Math.floor(threshold / 2)),
        bytes,
        large: { key: sha256, whole: json },
      };
    }
    encoded.set(m, row);
    return row;
  };
  return {
    encode,
    async put(tenant, session, messages) {
      const rows = await Promise.all(messages.map(encode));
      await Promise.all(
        rows.map(async (row, i) => {
          const m = messages[i]!;
          if (!row.large || stored.has(m)) return;
          try {
            await large!.put(tenant, session, row.large.key, row.large.whole);
          } catch (cause) {
            throw new CtxError('storage_error', `message ${m.id} could not be kept in the blob store`, {
              cause,
            });
          }
          stored.add(m);
        }),
      );
      return rows;
    },
    async decode(tenant, session, json, seq) {
      if (!json.startsWith(POINTER_HEAD)) return JSON.parse(json) as Message;
      const pointer = (JSON.parse(json) as { $stored: Pointer; id: string }).$stored;
      const whole = large ? await large.get(tenant, session, pointer.key) : undefined;
      if (whole === undefined || (await sha256Hex(whole)) !== pointer.sha256)
        throw new CtxError(
          'storage_error',
          `message seq ${seq} of session ${session} is kept in the blob store, and could not be read back whole`,
          {},
        );
      return JSON.parse(whole) as Message;
    },
    drop: async (tenant, session) => large?.drop(tenant, session),
  };
}

/** The size of a row's message: the pointer's `bytes`, else the column's characters. */
export function rowSize(json: string): number {
  if (!json.startsWith(POINTER_HEAD)) return json.length;
  return (JSON.parse(json) as { $stored: Pointer }).$stored.bytes;
}

/** SQL (SQLite) for a row's stored bytes: the pointer's `bytes`, else the column's length. */
export const ROW_BYTES_SQL = `CASE WHEN substr(message, 1, ${POINTER_HEAD.length}) = '${POINTER_HEAD}' THEN json_extract(message, '$."$stored".bytes') ELSE length(CAST(message AS BLOB)) END`;
