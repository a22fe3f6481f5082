/**
 * A session's view of the tenant's blob store, as its pipeline spills tool outputs into it. The id a
 * stage asks for is never used as it is — a call id may repeat in another session (the `kosmokrator`
 * preset names a spill by the bare call id: `call_0` of one session overwrote another's, and the first
 * session's "get it back" link served the other's output), or be longer than a key may be. Each blob
 * is named from its session, its message and a digest of its content — `<session hash>.<message>.<content
 * digest>`, 8 + 24 + 16 characters of `[A-Za-z0-9._~-]` at most (short: the name goes into the notice the
 * model reads) — so two sessions, two messages or two contents never share one, and the same content
 * put again lands on the same blob. The location the stage writes
 * into its notice and journal is the derived one. A put that fails is counted, so that whoever
 * admits a message can tell a spill that failed from a cut that was meant.
 */
import { type BlobInfo, type BlobStore, hashText, sha256Hex } from '../../core/index.ts';

export interface SessionBlobs {
  store: BlobStore;
  /** Puts that failed so far. */
  failures(): number;
  /** Names the message whose outputs are spilled next (absent: the id the stage asked for stands in). */
  forMessage(id: string | undefined): void;
}

/** `[A-Za-z0-9._-]` only, at most `max` characters (a longer text is cut and keeps a hash of itself). */
function safePart(text: string, max: number): string {
  const clean = text.replace(/[^A-Za-z0-9._-]/g, '_');
  if (clean.length <= max && clean === text) return clean || '_';
  return `${clean.slice(0, max - 9)}~${hashText(text).slice(0, 8)}`;
}

/** Derives every blob id from `session`, the message, and a digest of the content. */
export function sessionBlobs(base: BlobStore, session: string): SessionBlobs {
  let failed = 0;
  let message: string | undefined;
  const sessionPart = hashText(session).slice(0, 8);
  const store: BlobStore = {
    ...base,
    async put(id, content, options): Promise<BlobInfo> {
      const digest = (await sha256Hex(content)).slice(0, 16);
      const derived = `${sessionPart}.${safePart(message ?? id, 24)}.${digest}`;
      try {
        return await base.put(derived, content, options);
      } catch (error) {
        failed++;
        throw error;
      }
    },
  };
  return {
    store,
    failures: () => failed,
    forMessage(id) {
      message = id;
    },
  };
}
