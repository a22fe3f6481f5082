/**
 * The relay on its own, over web streams: a client that goes away cancels the upstream (or, asked to,
 * the relay reads on to the end for the log). In workerd a client's disconnect reaches the Worker as
 * the cancel of its response stream, which is what these tests do; Miniflare's local entry does not
 * pass a disconnect on, so test/worker/proxy-faults.test.ts cannot show this part end to end.
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

function relay(body: ReadableStream<Uint8Array>, keepReading: boolean) {
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
