/**
 * A streamed round of the proxy's tool loop (tool-loop.ts), held until the proxy knows whether the
 * client is to see it. The events are read and kept (bounded like the relay: the idle timeout between
 * chunks, `PROXY_MAX_EVENT_BYTES`, `PROXY_MAX_ANSWER_BYTES`) until one of them begins a tool call —
 * then the round is read to its end and handed back whole, as one answer, for the loop to decide — or
 * until the stream ended or `holdChars` of answer text arrived without a call: then the answer is the
 * client's, and
 * it is relayed from its first byte (the held bytes, then the rest as it comes) by the usual relay,
 * which checks every bound again. Anything irregular (a broken stream, an event past its bound, an
 * error event, a round without its last event) goes to the relay too, which answers it as it always
 * does; only the idle timeout and the answer bound, which the relay cannot replay, end the call here.
 */
import type { Message } from '../../core/index.ts';
import { SILENT, withinSilence } from '../http/silence.ts';
import { chunkReader } from './chunk-reader.ts';
import type { AnswerAccumulator, Protocol } from './protocol.ts';
import { answerTooLarge, isLastEvent, UpstreamFault } from './relay.ts';
import { createSseFramer, eventJson, type SseEvent, SseEventTooLarge } from './sse.ts';

/**
 * @default 1,024 characters of answer text held while no tool call began: a model's preamble before a
 * call ("Let me look that up.") is shorter; reasoning does not count (it may be long before a call).
 */
export const DEFAULT_HOLD_CHARS = 1024;

export type HeldRound =
  /**
   * The round began a tool call and ended cleanly: its answer (undefined when it carried none usable),
   * and `res` to relay it from its first byte should it be the client's after all.
   */
  | { kind: 'whole'; answer: Message | undefined; res: Response }
  /** The client's answer: `res` streams it from its first byte. */
  | { kind: 'relay'; res: Response };

export interface HoldOptions {
  protocol: Protocol;
  idleMs: number;
  abort: AbortController;
  maxEventBytes: number;
  maxAnswerBytes: number;
  /** @default DEFAULT_HOLD_CHARS */
  holdChars?: number;
  /** The round's accumulator (the caller reads its usage when the hold ends in a fault). @default a new one */
  accumulator?: AnswerAccumulator;
}

/** Whether `e` opens a tool call in `dialect`'s stream. */
export function beginsToolCall(dialect: Protocol['dialect'], e: SseEvent): boolean {
  const json = eventJson(e);
  if (!json) return false;
  if (dialect === 'openai') {
    const choices = Array.isArray(json.choices) ? (json.choices as Array<Record<string, unknown>>) : [];
    return choices.some((c) => {
      const calls = (c?.delta as { tool_calls?: unknown } | undefined)?.tool_calls;
      return Array.isArray(calls) && calls.length > 0;
    });
  }
  if (dialect === 'anthropic')
    return (
      json.type === 'content_block_start' &&
      (json.content_block as { type?: unknown } | undefined)?.type === 'tool_use'
    );
  return (
    json.type === 'response.output_item.added' &&
    (json.item as { type?: unknown } | undefined)?.type === 'function_call'
  );
}

/** Characters of answer text (not reasoning) `e` carries in `dialect`'s stream. */
export function textChars(dialect: Protocol['dialect'], e: SseEvent): number {
  const json = eventJson(e);
  if (!json) return 0;
  if (dialect === 'openai') {
    const choices = Array.isArray(json.choices) ? (json.choices as Array<Record<string, unknown>>) : [];
    let n = 0;
    for (const c of choices) {
      const text = (c?.delta as { content?: unknown } | undefined)?.content;
      if (typeof text === 'string') n += text.length;
    }
    return n;
  }
  if (dialect === 'anthropic') {
    const delta = json.delta as { type?: unknown; text?: unknown } | undefined;
    return json.type === 'content_block_delta' &&
      delta?.type === 'text_delta' &&
      typeof delta.text === 'string'
      ? delta.text.length
      : 0;
  }
  return json.type === 'response.output_text.delta' && typeof json.delta === 'string' ? json.delta.length : 0;
}

/** `res` with its body replaced by `held` and then whatever `rest` still gives (or its error). */
function replay(
  res: Response,
  held: readonly Uint8Array[],
  rest: { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(): Promise<void> } | undefined,
): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i < held.length) return controller.enqueue(held[i++]!);
      if (!rest) return controller.close();
      try {
        const r = await rest.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: () => rest?.cancel(),
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Reads a streamed round as far as it takes to tell whose it is (see the module's comment). */
export async function holdRound(res: Response, o: HoldOptions): Promise<HeldRound> {
  if (!res.body) return { kind: 'relay', res };
  const reader = chunkReader(res.body);
  const framer = createSseFramer(o.maxEventBytes);
  const accumulator = o.accumulator ?? o.protocol.accumulator();
  const holdChars = o.holdChars ?? DEFAULT_HOLD_CHARS;
  let text = 0;
  const held: Uint8Array[] = [];
  let size = 0;
  let calling = false;
  let last = false;
  let irregular = false;
  const stop = (fault: UpstreamFault) => {
    o.abort.abort(fault);
    reader.cancel().catch(() => undefined);
    return fault;
  };
  const take = (events: readonly SseEvent[]) => {
    for (const e of events) {
      accumulator.push(e);
      if (isLastEvent(o.protocol.dialect, e)) {
        last = true;
        // The provider's own error event ends the round: the client gets it as the relay does.
        if (e.event === 'error' || eventJson(e)?.type === 'error' || eventJson(e)?.error) irregular = true;
      }
      if (!calling && beginsToolCall(o.protocol.dialect, e)) calling = true;
      text += textChars(o.protocol.dialect, e);
    }
  };
  for (;;) {
    let r: ReadableStreamReadResult<Uint8Array> | typeof SILENT;
    try {
      r = await withinSilence(reader.read(), o.idleMs);
    } catch (error) {
      const reason = o.abort.signal.reason;
      if (reason instanceof UpstreamFault) throw reason;
      // A broken stream: the relay reads the same break after the held bytes and answers it.
      return {
        kind: 'relay',
        res: replay(res, held, { read: () => Promise.reject(error), cancel: async () => {} }),
      };
    }
    if (r === SILENT)
      throw stop(new UpstreamFault('timeout', `the upstream sent nothing for ${o.idleMs} ms`));
    if (r.done) {
      try {
        take(framer.end().events);
      } catch {
        irregular = true;
      }
      if (calling && last && !irregular)
        return { kind: 'whole', answer: accumulator.finish(), res: replay(res, held, undefined) };
      return { kind: 'relay', res: replay(res, held, undefined) };
    }
    size += r.value.byteLength;
    if (size > o.maxAnswerBytes) throw stop(answerTooLarge(o.maxAnswerBytes));
    held.push(r.value);
    try {
      take(framer.push(r.value).events);
    } catch (error) {
      if (!(error instanceof SseEventTooLarge)) throw error;
      irregular = true;
    }
    if (irregular || (!calling && text > holdChars)) return { kind: 'relay', res: replay(res, held, reader) };
  }
}
