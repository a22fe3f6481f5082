/**
 * Reads an upstream body in pieces of at most `CHUNK_BYTES`, and lets the isolate's other work in
 * every `YIELD_BYTES`. workerd hands a default reader all the bytes it has buffered at once: one read
 * of a 20 MB event took 133 ms of the isolate's time in one go (a CPU profile of the relay), holding
 * every other call and `/health` behind it. A BYOB reader fills a buffer of the size asked, so each
 * read stays short; and since reads of bytes already buffered resolve without a turn of the event
 * loop, a chain of them would still run back to back (96 ms in the same profile): a timer turn after
 * each piece lets the other calls' events through (/health during a 20 MB event: worst 105 ms at load
 * 16, as without it; 224 ms with a turn every MiB, 568 ms with neither). A stream that is not a byte stream (a test's) is read
 * the default way.
 */

/** @default 256 KiB */
export const CHUNK_BYTES = 256 * 1024;
/** @default 256 KiB: after each piece */
export const YIELD_BYTES = 256 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface ChunkReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
}

export function chunkReader(body: ReadableStream<Uint8Array>, size = CHUNK_BYTES): ChunkReader {
  let read: () => Promise<ReadableStreamReadResult<Uint8Array>>;
  let cancel: (reason?: unknown) => Promise<void>;
  try {
    const byob = body.getReader({ mode: 'byob' });
    read = async () => {
      const r = await byob.read(new Uint8Array(size));
      return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
    };
    cancel = (reason) => byob.cancel(reason);
  } catch {
    const reader = body.getReader();
    read = () => reader.read();
    cancel = (reason) => reader.cancel(reason);
  }
  let sinceTurn = 0;
  return {
    async read() {
      if (sinceTurn >= YIELD_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
      const r = await read();
      if (!r.done) sinceTurn += r.value.byteLength;
      return r;
    },
    cancel,
  };
}
