/**
 * A streamed answer relayed to its client: the upstream's bytes go on as they come, whole events at a
 * time (an event still arriving is held until its blank line), and every stream the relay cannot
 * finish — the upstream silent past its idle timeout, broken, ended before its last event, an event
 * past `PROXY_MAX_EVENT_BYTES` or an answer past `PROXY_MAX_ANSWER_BYTES` — ends with the provider's
 * own error event, on a fresh line: never a clean close of a cut answer.
 *
 * The client's side is `client-stream.ts`: a slow reader holds the relay (and, by backpressure, the
 * upstream) until it reads again; a reader that is gone (signal, cancel, a failed write) cancels the
 * upstream, and what had arrived is logged marked partial — or, asked to (`x-ctxkit-on-abort: finish`),
 * the relay reads on to the end for the log. A reader that takes nothing for the idle timeout is let go
 * the same way, with the error event queued for it.
 */
import type { Message, Usage } from '../../core/index.ts';
import { SILENT, withinSilence } from '../http/silence.ts';
import { chunkReader } from './chunk-reader.ts';
import { clientStream, type WriteOutcome } from './client-stream.ts';
import type { AnswerAccumulator, Protocol } from './protocol.ts';
import { DEFAULT_MAX_ANSWER_BYTES, faultEvent, isLastEvent } from './relay.ts';
import {
  createSseFramer,
  DEFAULT_MAX_EVENT_BYTES,
  joinBytes,
  SseEventTooLarge,
  type SseFrames,
} from './sse.ts';

/** How a relayed stream ended; `usage`: what its events reported, however it ended (paid for). */
export type StreamEnd = (
  | { outcome: 'complete'; answer: Message | undefined }
  /** The client went away; `answer` is what had arrived, marked `meta.partial`. */
  | { outcome: 'client-abort'; answer: Message | undefined }
  | { outcome: 'timeout' | 'truncated' | 'too-large'; answer: undefined }
) & { usage?: Usage | undefined };

export interface RelayOptions {
  dialect: Protocol['dialect'];
  idleMs: number;
  abort: AbortController;
  /** Accumulates the answer and its usage (for the log, and the tenant's tally); absent: neither is kept. */
  accumulator?: AnswerAccumulator | undefined;
  /** Whether the answer is logged (`finish` called at the end); its usage is read either way. @default true */
  logs?: boolean;
  /** When the client goes away: keep reading the upstream to its end for the log. @default false */
  keepReading?: boolean;
  /** The client's request signal: its abort is a disconnect. */
  client?: AbortSignal | undefined;
  /** A client that takes nothing for this long is let go. @default idleMs */
  clientIdleMs?: number;
  /** @default DEFAULT_MAX_EVENT_BYTES */
  maxEventBytes?: number;
  /** @default DEFAULT_MAX_ANSWER_BYTES */
  maxAnswerBytes?: number;
  waitUntil(promise: Promise<unknown>): void;
  onEnd(end: StreamEnd): void;
}

type Read = ReadableStreamReadResult<Uint8Array> | 'timeout' | 'broken' | 'gone';

/** The stream the client reads (the relay runs in `o.waitUntil`, so the call lasts until it ends). */
export function relayStream(body: ReadableStream<Uint8Array>, o: RelayOptions): ReadableStream<Uint8Array> {
  const reader = chunkReader(body);
  const framer = createSseFramer(o.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES);
  const maxAnswer = o.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const client = clientStream({ signal: o.client, stallMs: o.clientIdleMs ?? o.idleMs });
  const encoder = new TextEncoder();
  let last = false;
  let ended = false;
  const end = (outcome: StreamEnd['outcome']) => {
    if (ended) return;
    ended = true;
    const usage = o.accumulator?.usage();
    if (outcome !== 'complete' && outcome !== 'client-abort')
      return o.onEnd({ outcome, answer: undefined, usage });
    const answer = o.logs === false ? undefined : o.accumulator?.finish();
    if (outcome === 'client-abort' && answer) answer.meta = { ...answer.meta, partial: true };
    o.onEnd({ outcome, answer, usage });
  };
  const take = (frames: SseFrames) => {
    for (const e of frames.events) {
      o.accumulator?.push(e);
      if (isLastEvent(o.dialect, e)) last = true;
    }
  };
  const stopUpstream = () => {
    o.abort.abort();
    reader.cancel().catch(() => undefined);
  };
  /** The client still reads (false once it left and the relay reads on for the log). */
  let writing = true;
  const read = async (): Promise<Read> => {
    const next = withinSilence(reader.read(), o.idleMs).then(
      (r) => (r === SILENT ? ('timeout' as const) : r),
      () => 'broken' as const,
    );
    return writing && !o.keepReading ? Promise.race([next, client.gone]) : next;
  };
  /** Ends with the error event (when the client still reads), the upstream stopped. */
  const fail = (why: string, outcome: 'timeout' | 'truncated' | 'too-large', upstreamEnded = false) => {
    if (writing) client.close(encoder.encode(faultEvent(o.dialect, why)));
    if (!upstreamEnded) stopUpstream();
    end(outcome);
  };
  /** The client left (or stalled): cancel the upstream, or read on for the log. */
  const left = (how: WriteOutcome | 'gone') => {
    if (how === 'stalled')
      client.close(
        encoder.encode(faultEvent(o.dialect, `the client read nothing for ${o.clientIdleMs ?? o.idleMs} ms`)),
      );
    else client.abort();
    writing = false;
    if (o.keepReading) return false;
    stopUpstream();
    end('client-abort');
    return true;
  };
  const send = async (frames: SseFrames): Promise<boolean> => {
    if (!writing || frames.bytes.length === 0) return true;
    const w = await client.write(joinBytes(frames.bytes));
    return w === 'taken' || !left(w);
  };
  let total = 0;
  const pump = async () => {
    for (;;) {
      const r = await read();
      if (r === 'gone') {
        if (left('gone')) return;
        continue;
      }
      if (r === 'timeout') return fail(`the upstream sent nothing for ${o.idleMs} ms`, 'timeout');
      if (r === 'broken') return fail('the upstream stream failed', 'truncated');
      if (r.done) {
        const rest = framer.end();
        take(rest);
        if (!(await send(rest))) return;
        if (!last) return fail('the upstream stream ended before its last event', 'truncated', true);
        if (writing) client.close();
        return end('complete');
      }
      total += r.value.byteLength;
      if (total > maxAnswer)
        return fail(
          `the upstream's answer exceeds ${maxAnswer} bytes, the proxy's bound (PROXY_MAX_ANSWER_BYTES)`,
          'too-large',
        );
      let frames: SseFrames;
      try {
        frames = framer.push(r.value);
      } catch (error) {
        if (!(error instanceof SseEventTooLarge)) throw error;
        return fail(`${error.message}, the proxy's bound (PROXY_MAX_EVENT_BYTES)`, 'too-large');
      }
      take(frames);
      if (!(await send(frames))) return;
    }
  };
  o.waitUntil(
    pump().catch((error: unknown) => {
      console.error('ctxkit proxy: the relay failed:', error);
      fail('the relay failed', 'truncated');
    }),
  );
  return client.readable;
}
