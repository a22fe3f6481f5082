/**
 * An incremental Server-Sent Events reader: bytes in as they arrive, whole events out. Used on the
 * proxy's copy of a streamed answer (the client's copy is relayed untouched).
 */

export interface SseEvent {
  /** The `event:` field; `undefined` when the event had none. */
  event: string | undefined;
  /** The `data:` lines, joined with `\n`. */
  data: string;
}

export interface SseReader {
  push(chunk: Uint8Array): SseEvent[];
  /** Whatever event is left when the stream ends without a final blank line. */
  end(): SseEvent[];
}

export function createSseReader(): SseReader {
  const decoder = new TextDecoder();
  let buffer = '';
  const parse = (block: string): SseEvent | undefined => {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    return data.length === 0 && event === undefined ? undefined : { event, data: data.join('\n') };
  };
  // A `\r` at the end of a chunk may be the first half of `\r\n`: it waits for the next chunk.
  let held = '';
  const drain = (final: boolean): SseEvent[] => {
    buffer = held + buffer;
    held = '';
    if (!final && buffer.endsWith('\r')) {
      held = '\r';
      buffer = buffer.slice(0, -1);
    }
    buffer = buffer.replace(/\r\n?/g, '\n');
    const out: SseEvent[] = [];
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut < 0) break;
      const e = parse(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (e) out.push(e);
    }
    if (final && buffer.trim() !== '') {
      const e = parse(buffer);
      buffer = '';
      if (e) out.push(e);
    }
    return out;
  };
  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      return drain(false);
    },
    end() {
      buffer += decoder.decode();
      return drain(true);
    },
  };
}

/** Parses an event's data as JSON; `undefined` for `[DONE]` or anything that is not a JSON object. */
export function eventJson(e: SseEvent): Record<string, unknown> | undefined {
  if (e.data === '' || e.data === '[DONE]') return undefined;
  try {
    const v = JSON.parse(e.data) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
