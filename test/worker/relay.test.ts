/**
 * The relay on its own, over web streams. A client that is gone (its signal, the cancel of the body, a
 * failed write) cancels the upstream, or the relay reads on to the end for the log when asked; a client
 * that is only slow is waited for, never cut; every stream the relay cannot finish ends with the
 * provider's error event on a fresh line. Timeouts count the upstream's silence, not a blocked loop.
 * test/worker/tenant-limits.test.ts drives disconnects end to end, through a real socket.
 */
import { describe, expect, it } from 'vitest';
import { SILENT, withinSilence } from '../../src/worker/http/silence.ts';
import { CHUNK_BYTES, chunkReader } from '../../src/worker/proxy/chunk-reader.ts';
import { openAIChat } from '../../src/worker/proxy/openai-chat.ts';
import { fetchUpstream, UpstreamFault } from '../../src/worker/proxy/relay.ts';
import { type RelayOptions, relayStream, type StreamEnd } from '../../src/worker/proxy/relay-stream.ts';

const enc = new TextEncoder();
const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An upstream that makes one event per pull, `count` in all then `[DONE]`, and says when it was cancelled. */
function upstream(count: number, extra: { pullMs?: number } = {}) {
  const seen = { made: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (extra.pullMs) await sleep(extra.pullMs);
      if (seen.made === count) {
        controller.enqueue(enc.encode('data: [DONE]\n\n'));
        return controller.close();
      }
      controller.enqueue(enc.encode(chunk(`w${seen.made++} `)));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

/** An upstream that sends `parts` as they are, then ends (or fails with `fail`). */
function scripted(parts: string[], fail = false) {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) return controller.enqueue(enc.encode(parts[i++]!));
      if (fail) controller.error(new Error('connection reset'));
      else controller.close();
    },
  });
}

function relay(body: ReadableStream<Uint8Array>, extra: Partial<RelayOptions> = {}) {
  const ends: StreamEnd[] = [];
  const waits: Promise<unknown>[] = [];
  const abort = new AbortController();
  const stream = relayStream(body, {
    dialect: 'openai',
    idleMs: 1000,
    abort,
    accumulator: openAIChat.accumulator(),
    waitUntil: (p) => waits.push(p),
    onEnd: (end) => ends.push(end),
    ...extra,
  });
  return { stream, ends, waits, abort };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** What a reader already holding the stream reads from here to the end. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let text = '';
  for (;;) {
    const r = await reader.read();
    if (r.done) return text;
    text += new TextDecoder().decode(r.value);
  }
}

describe('relayStream', () => {
  it('cancels the upstream when the client cancels, and ends with what arrived, marked partial', async () => {
    const { body, seen } = upstream(1000);
    const { stream, ends, abort, waits } = relay(body);
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await Promise.all(waits);
    expect(seen.cancelled).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(seen.made).toBeLessThan(10);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
    expect(ends[0]!.answer).toMatchObject({
      parts: [{ type: 'text', text: 'w0 w1 ' }],
      meta: { partial: true },
    });
  });

  it('reads on to the end for the log when the call asked to keep reading', async () => {
    const { body, seen } = upstream(50);
    const { stream, ends, waits } = relay(body, { keepReading: true });
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    await Promise.all(waits);
    expect([seen.made, seen.cancelled]).toEqual([50, false]);
    expect(ends[0]!.outcome).toBe('complete');
    expect((ends[0]!.answer!.parts[0] as { text: string }).text.split(' ')).toHaveLength(51);
  });

  it('ends once, partial, when the signal and the cancel report the same disconnect', async () => {
    const { body, seen } = upstream(1000);
    const client = new AbortController();
    const { stream, ends, waits } = relay(body, { client: client.signal });
    const reader = stream.getReader();
    await reader.read();
    client.abort();
    await reader.cancel();
    await Promise.all(waits);
    expect(seen.cancelled).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
  });

  it('stops the upstream at once when the signal reports the client gone while the upstream is silent', async () => {
    const { body, seen } = upstream(1000, { pullMs: 5000 });
    const client = new AbortController();
    const { stream, ends, waits } = relay(body, { client: client.signal, idleMs: 60_000 });
    stream
      .getReader()
      .read()
      .catch(() => undefined);
    await sleep(20);
    client.abort();
    await Promise.all(waits);
    expect(seen.cancelled).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
  });
});

describe('relayStream: a slow client is not a gone client', () => {
  it('waits for a reader that stops reading for 2.5 s and relays the whole answer once it reads again', async () => {
    const { body, seen } = upstream(40);
    const { stream, ends, waits } = relay(body, { idleMs: 10_000 });
    const reader = stream.getReader();
    await reader.read();
    await sleep(2500);
    const text = await readRest(reader);
    await Promise.all(waits);
    expect([seen.made, seen.cancelled]).toEqual([40, false]);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['complete']);
  });

  it('lets a reader go that takes nothing for its idle bound: the upstream stopped, the error event queued', async () => {
    const { body, seen } = upstream(1000);
    const { stream, ends, waits } = relay(body, { clientIdleMs: 100 });
    const reader = stream.getReader();
    await reader.read();
    await sleep(400);
    expect(seen.cancelled).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['client-abort']);
    const rest = await readRest(reader);
    await Promise.all(waits);
    expect(rest).toMatch(/"error":\{"message":"the client read nothing for 100 ms"/);
  });
});

describe('relayStream: the streams it cannot finish', () => {
  it('ends a stream broken mid-event with the error event on a fresh line, every relayed event whole', async () => {
    const half = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hal';
    const { stream, ends, waits } = relay(scripted([chunk('a'), half], true));
    const text = await readAll(stream);
    await Promise.all(waits);
    expect(text).not.toContain('"hal');
    const events = text.split('\n\n').filter((b) => b !== '');
    expect(events).toHaveLength(2);
    for (const e of events) expect(() => JSON.parse(e.replace(/^data: /, ''))).not.toThrow();
    expect(events[1]).toMatch(/^data: \{"error":\{"message":"the upstream stream failed"/);
    expect(ends.map((e) => e.outcome)).toEqual(['truncated']);
  });

  it('ends a stream that stops inside an event the same way, the half-written line dropped', async () => {
    const { stream } = relay(scripted([chunk('a'), 'data: {"id":"c1","choi']));
    const text = await readAll(stream);
    expect(text).toBe(
      `${chunk('a')}data: {"error":{"message":"the upstream stream ended before its last event","type":"server_error","param":null,"code":"upstream_stream_error"}}\n\n`,
    );
  });

  it('ends with the error event naming PROXY_MAX_EVENT_BYTES when one event passes its bound, none of it relayed', async () => {
    const big = `data: ${'x'.repeat(5000)}`;
    const { stream, ends, abort } = relay(
      scripted([chunk('a'), big.slice(0, 2500), big.slice(2500), '\n\n']),
      {
        maxEventBytes: 4096,
      },
    );
    const text = await readAll(stream);
    expect(text).not.toContain('xxxx');
    expect(text).toMatch(/exceeds 4096 bytes, the proxy's bound \(PROXY_MAX_EVENT_BYTES\)/);
    expect(ends.map((e) => e.outcome)).toEqual(['too-large']);
    expect(abort.signal.aborted).toBe(true);
  });

  it('ends with the error event naming PROXY_MAX_ANSWER_BYTES once the answer passes its bound', async () => {
    const { body, seen } = upstream(10_000);
    const { stream, ends } = relay(body, { maxAnswerBytes: 2000 });
    const text = await readAll(stream);
    expect(text).toMatch(/exceeds 2000 bytes, the proxy's bound \(PROXY_MAX_ANSWER_BYTES\)/);
    expect(seen.made).toBeLessThan(40);
    expect(seen.cancelled).toBe(true);
    expect(ends.map((e) => e.outcome)).toEqual(['too-large']);
  });

  it('does not take a blocked loop for a silent upstream', async () => {
    // The next chunk is ready during a 600 ms stretch in which the loop is blocked (its delivery then
    // queued behind the expired timers): an idle timeout of 200 ms must not fire for it.
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (n++ === 1) {
          await sleep(20);
          const until = performance.now() + 600;
          while (performance.now() < until) {}
          await new Promise((r) => setImmediate(r));
          controller.enqueue(enc.encode(chunk('late')));
          controller.enqueue(enc.encode('data: [DONE]\n\n'));
          return controller.close();
        }
        controller.enqueue(enc.encode(chunk('first')));
      },
    });
    const { stream, ends } = relay(body, { idleMs: 200 });
    const text = await readAll(stream);
    expect(text).toContain('late');
    expect(ends.map((e) => e.outcome)).toEqual(['complete']);
  });
});

describe('withinSilence', () => {
  it('runs out after the wait when nothing comes, and not over a stretch the loop was blocked', async () => {
    const started = performance.now();
    expect(await withinSilence(new Promise(() => undefined), 100)).toBe(SILENT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    const ready = new Promise<string>((resolve) => {
      setTimeout(() => {
        const until = performance.now() + 300;
        while (performance.now() < until) {}
        setImmediate(() => resolve('arrived'));
      }, 10);
    });
    expect(await withinSilence(ready, 100)).toBe('arrived');
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

describe('chunkReader', () => {
  it('reads a byte stream in pieces of at most CHUNK_BYTES, however large what is buffered', async () => {
    const body = new ReadableStream({
      type: 'bytes',
      start(c) {
        c.enqueue(new Uint8Array(CHUNK_BYTES * 4 + 10));
        c.close();
      },
    }) as ReadableStream<Uint8Array>;
    const reader = chunkReader(body);
    const sizes: number[] = [];
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      sizes.push(r.value.byteLength);
    }
    expect(sizes).toEqual([CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, 10]);
  });
});
