/**
 * The relay on its own, over web streams: a client that goes away cancels the upstream (or, asked to,
 * the relay reads on to the end for the log). The runtime may report a disconnect as the cancel of the
 * response stream or the abort of `request.signal`, or not at all (workerd under `npm start` may just
 * stop reading the stream): the relay then sees the chunk it handed over left untaken (the stall
 * watch). Each of these ends the relay once. test/worker/tenant-limits.test.ts drives the unreported
 * case end to end, through a real socket.
 */
import { describe, expect, it } from 'vitest';
import { openAIChat } from '../../src/worker/proxy/openai-chat.ts';
import { fetchUpstream, relayStream, type StreamEnd, UpstreamFault } from '../../src/worker/proxy/relay.ts';

const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

/** An upstream that makes one event per pull, `count` in all then `[DONE]`, and says when it was cancelled. */
function upstream(count: number) {
  const seen = { made: 0, cancelled: false };
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.made === count) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        return controller.close();
      }
      controller.enqueue(encoder.encode(chunk(`w${seen.made++} `)));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

function relay(
  body: ReadableStream<Uint8Array>,
  keepReading: boolean,
  extra: { client?: AbortSignal; stallMs?: number } = {},
) {
  const ends: StreamEnd[] = [];
  const waits: Promise<unknown>[] = [];
  const abort = new AbortController();
  const stream = relayStream(body, {
    dialect: 'openai',
    idleMs: 1000,
    abort,
    accumulator: openAIChat.accumulator(),
    keepReading,
    waitUntil: (p) => waits.push(p),
    onEnd: (end) => ends.push(end),
    ...extra,
  });
  return { stream, ends, waits, abort };
}

describe('relayStream', () => {
  it('cancels the upstream when the client goes away, and ends with what arrived, marked partial', async () => {
    const { body, seen } = upstream(1000);
    const { stream, ends, abort } = relay(body, false);
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    const made = seen.made;
    expect(seen.cancelled).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(made).toBeLessThan(10);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.outcome).toBe('client-abort');
    expect(ends[0]!.answer).toMatchObject({
      parts: [{ type: 'text', text: 'w0 w1 ' }],
      meta: { partial: true },
    });
  });

  it('reads on to the end for the log when the call asked to keep reading', async () => {
    const { body, seen } = upstream(50);
    const { stream, ends, waits } = relay(body, true);
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    await Promise.all(waits);
    expect([seen.made, seen.cancelled]).toEqual([50, false]);
    expect(ends[0]!.outcome).toBe('complete');
    expect((ends[0]!.answer!.parts[0] as { text: string }).text.split(' ')).toHaveLength(51);
  });
});

describe('relayStream: a client gone without a word', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('stops the upstream and ends once, partial, when the client stops taking chunks', async () => {
    const { body, seen } = upstream(1000);
    const { stream, ends, abort } = relay(body, false, { stallMs: 50 });
    const reader = stream.getReader();
    await reader.read();
    // No cancel, no signal: the reader just stops, as workerd's does when its client left.
    await sleep(200);
    expect([seen.cancelled, abort.signal.aborted]).toEqual([true, true]);
    expect(seen.made).toBeLessThan(5);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
    expect(ends[0]!.answer).toMatchObject({ meta: { partial: true } });
    await expect(reader.read()).rejects.toThrow('the client took no chunk for 50 ms');
  });

  it('does not cut a live reader that takes each chunk within the stall window', async () => {
    const { body, seen } = upstream(8);
    const { stream, ends } = relay(body, false, { stallMs: 80 });
    const reader = stream.getReader();
    let text = '';
    const decoder = new TextDecoder();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += decoder.decode(r.value);
      await sleep(20);
    }
    expect([seen.made, seen.cancelled]).toEqual([8, false]);
    expect(text.trim().endsWith('[DONE]')).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['complete']);
  });

  it('ends once when the signal, the cancel and the stall watch all report the same disconnect', async () => {
    const { body, seen } = upstream(1000);
    const client = new AbortController();
    const { stream, ends } = relay(body, false, { client: client.signal, stallMs: 30 });
    const reader = stream.getReader();
    await reader.read();
    client.abort();
    await reader.cancel();
    await sleep(100);
    expect(seen.cancelled).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
  });

  it('reads on to the end for the log when a client that asked for it stops taking chunks', async () => {
    const { body, seen } = upstream(30);
    const { stream, ends, waits } = relay(body, true, { stallMs: 30 });
    const reader = stream.getReader();
    await reader.read();
    await sleep(100);
    await Promise.all(waits);
    expect([seen.made, seen.cancelled]).toEqual([30, false]);
    expect(ends.map((e) => e.outcome)).toEqual(['complete']);
  });
});

describe('fetchUpstream', () => {
  it('aborts the upstream call when the client aborts before the answer begins', async () => {
    const client = new AbortController();
    let signal: AbortSignal | undefined;
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((_url: string, init: RequestInit) => {
      signal = init.signal ?? undefined;
      return new Promise((_, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    }) as typeof fetch;
    try {
      const call = fetchUpstream(
        'http://127.0.0.1:9/x',
        {},
        { firstByteMs: 5000, idleMs: 5000 },
        client.signal,
      );
      client.abort();
      await expect(call).rejects.toMatchObject({ kind: 'client-gone' });
      expect(signal?.aborted).toBe(true);
      await expect(
        fetchUpstream('http://127.0.0.1:9/x', {}, { firstByteMs: 100, idleMs: 5000 }, undefined),
      ).rejects.toBeInstanceOf(UpstreamFault);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
