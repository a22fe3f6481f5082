/**
 * Server-Sent Events framed as they arrive, in linear time: each byte is looked at once to find where
 * an event ends (a blank line: `\n\n`, `\r\r`, `\r\n\r\n` or a mix), the bytes of each whole event are
 * handed on as they came (the relay forwards whole events only, so an error event it adds always
 * starts on a fresh line), and an event's fields are decoded only when someone reads them. One event
 * may hold at most `maxEventBytes`: past it, `push` throws `SseEventTooLarge` and nothing of that event
 * was decoded or forwarded.
 */

export interface SseEvent {
  /** The `event:` field; `undefined` when the event had none. */
  readonly event: string | undefined;
  /** The `data:` lines, joined with `\n`. */
  readonly data: string;
}

/** What a chunk completed: the whole events' bytes (to forward as they are) and the events. */
export interface SseFrames {
  bytes: Uint8Array[];
  events: SseEvent[];
}

export class SseEventTooLarge extends Error {
  constructor(readonly max: number) {
    super(`one event of the upstream's stream exceeds ${max} bytes`);
  }
}

export interface SseFramer {
  /** The events `chunk` completes. Throws `SseEventTooLarge` when the event under way passes the bound. */
  push(chunk: Uint8Array): SseFrames;
  /**
   * At the end of the stream: a last event whose lines all ended but which lacks its blank line is
   * completed (its bytes get the missing line end); a half-written last line is dropped (`dropped`).
   */
  end(): SseFrames & { dropped: number };
}

/** @default 16 MiB: a Responses `partial_image` event carries a few MB */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

const LF = 10;
const CR = 13;
const utf8 = new TextDecoder();

/** Joins `parts` into one array (no copy when there is one). */
export function joinBytes(
  parts: readonly Uint8Array[],
  size = parts.reduce((n, p) => n + p.byteLength, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** An event whose fields are decoded from its bytes on first read. */
function lazyEvent(bytes: Uint8Array): SseEvent {
  let parsed: { event: string | undefined; data: string } | undefined;
  const parse = () => {
    if (parsed) return parsed;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of utf8.decode(bytes).split(/\r\n|\r|\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    parsed = { event, data: data.join('\n') };
    return parsed;
  };
  const e = {} as SseEvent;
  Object.defineProperties(e, {
    event: { enumerable: true, get: () => parse().event },
    data: { enumerable: true, get: () => parse().data },
  });
  return e;
}

/** The next `\n` or `\r` at or after `from` (native scans: no byte-by-byte loop in JavaScript), or -1. */
function nextLineEnd(bytes: Uint8Array, from: number): number {
  const lf = bytes.indexOf(LF, from);
  const cr = bytes.indexOf(CR, from);
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
}

/** Whether an event's bytes hold a field at all (a block of comments or blank lines is no event). */
function hasField(bytes: Uint8Array): boolean {
  let at = 0;
  while (at < bytes.length) {
    const b = bytes[at]!;
    if (b !== LF && b !== CR && b !== 0x3a) return true;
    const end = nextLineEnd(bytes, at);
    if (end < 0) return false;
    at = end + 1;
  }
  return false;
}

export function createSseFramer(maxEventBytes = DEFAULT_MAX_EVENT_BYTES): SseFramer {
  /** Bytes of the event under way, from earlier chunks. */
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** The last byte looked at ended a line (so a line end now ends the event). */
  let lineStart = true;
  /** The last byte looked at was a `\r` (a `\n` now belongs to it). */
  let afterCr = false;
  /** The last byte looked at was the `\r` of a blank line: the event ends there, or after a `\n`. */
  let cutPending = false;
  const complete = (out: SseFrames, tail: Uint8Array) => {
    const bytes = joinBytes([...held, tail], heldBytes + tail.byteLength);
    held = [];
    heldBytes = 0;
    out.bytes.push(bytes);
    if (hasField(bytes)) out.events.push(lazyEvent(bytes));
  };
  return {
    push(chunk) {
      const out: SseFrames = { bytes: [], events: [] };
      let from = 0;
      let i = 0;
      while (i < chunk.length) {
        if (cutPending) {
          cutPending = false;
          afterCr = false;
          const cut = chunk[i] === LF ? i + 1 : i;
          complete(out, chunk.subarray(from, cut));
          from = cut;
          i = cut;
          continue;
        }
        const b = chunk[i]!;
        if (b === LF && afterCr) {
          afterCr = false;
          i++;
          continue;
        }
        if (b !== LF && b !== CR) {
          // The rest of the line: jump to its end.
          lineStart = false;
          afterCr = false;
          const end = nextLineEnd(chunk, i);
          if (end < 0) break;
          i = end;
          continue;
        }
        afterCr = b === CR;
        if (!lineStart) {
          lineStart = true;
          i++;
          continue;
        }
        // A blank line: the event ends here (after the `\n` of a `\r\n`, known at the next byte).
        if (b === CR) {
          cutPending = true;
          i++;
          continue;
        }
        complete(out, chunk.subarray(from, i + 1));
        from = i + 1;
        i = from;
      }
      if (from < chunk.length) {
        const rest = chunk.subarray(from);
        held.push(rest);
        heldBytes += rest.byteLength;
      }
      if (heldBytes > maxEventBytes) throw new SseEventTooLarge(maxEventBytes);
      return out;
    },
    end() {
      const out: SseFrames = { bytes: [], events: [] };
      if (heldBytes === 0) return { ...out, dropped: 0 };
      if (cutPending) {
        cutPending = false;
        complete(out, new Uint8Array(0));
        return { ...out, dropped: 0 };
      }
      const rest = joinBytes(held, heldBytes);
      const last = rest[rest.byteLength - 1]!;
      if (last !== LF && last !== CR) {
        held = [];
        heldBytes = 0;
        return { ...out, dropped: rest.byteLength };
      }
      // Every line ended, only the blank line is missing: the event is whole once it has one.
      held = [rest];
      // After a lone `\r`, one `\n` would only complete it as `\r\n`: the blank line needs a second.
      complete(out, last === CR ? Uint8Array.of(LF, LF) : Uint8Array.of(LF));
      return { ...out, dropped: 0 };
    },
  };
}

/** Events only (the proxy's tests and readers that forward nothing). */
export function createSseReader(maxEventBytes?: number): {
  push(chunk: Uint8Array): SseEvent[];
  end(): SseEvent[];
} {
  const framer = createSseFramer(maxEventBytes);
  return { push: (chunk) => framer.push(chunk).events, end: () => framer.end().events };
}

/** Parses an event's data as JSON; `undefined` for `[DONE]` or anything that is not a JSON object. */
export function eventJson(e: SseEvent): Record<string, unknown> | undefined {
  const data = e.data;
  if (data === '' || data === '[DONE]') return undefined;
  try {
    const v = JSON.parse(data) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
