/**
 * The aborts phase of `npm run bench:faults`: `count` streamed calls on one session, each read to its
 * first chunk and then aborted by its client (`fetch` with an `AbortController`, as an SDK's cancel
 * does), in waves of `wave` at once (the session's place limit, 16 by default); a call refused with
 * 429 is sent again after its `Retry-After`, as the SDKs do. Right after the last abort, one more
 * call on that session: how long until it is served (it is sent again every 100 ms while refused).
 * Then how long until no call is in flight (`GET /v1/usage`), each aborted call's journal status,
 * and how many events the provider wrote in all.
 */
import { loadavg } from 'node:os';
import type { FakeProvider, ProviderReply } from '../test/support/fake-provider-server.ts';

export interface AbortPhaseOptions {
  base: string;
  key: string;
  fake: FakeProvider;
  /** Streamed calls aborted after their first chunk. */
  count: number;
  /** Calls started at once. */
  wave: number;
}

export interface AbortPhaseResult {
  aborted: number;
  /** 429s met while starting the aborted calls (each sent again after its Retry-After). */
  refusedOnTheWay: number;
  /** From the last abort to the 200 of the next call on the session, in ms. */
  servedAfterMs: number;
  /** Refusals (429) of that next call before it was served. */
  refusedAfter: number;
  /** `GET /v1/usage` right after that call: calls in flight of the tenant. */
  inFlightAfter: number;
  /** From the last abort until `GET /v1/usage` counts no call in flight, in ms (polled every 100 ms). */
  allBackAfterMs: number;
  /** Journal statuses of the aborted calls, counted. */
  journal: Record<string, number>;
  /** Upstream streams the proxy closed before their end, of `count`. */
  upstreamClosed: number;
  /** Events the provider wrote, over all aborted streams, of the `count × 200` scripted. */
  eventsWritten: number;
  load: number;
}

const OPENAI = '/v1/proxy/openai/chat/completions';
const EVENTS = 200;
const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

export async function abortPhase(o: AbortPhaseOptions): Promise<AbortPhaseResult> {
  const load = loadavg()[0]!;
  const session = `aborts-${Date.now()}`;
  const headers = {
    authorization: `Bearer ${o.key}`,
    'content-type': 'application/json',
    'x-ctxkit-session': session,
  };
  // 10 s streams (200 events, one every 50 ms): every place must come back long before they end.
  const long: ProviderReply = {
    kind: 'events',
    events: [...Array.from({ length: EVENTS }, (_, i) => chunk(`w${i} `)), 'data: [DONE]\n\n'],
    everyMs: 50,
  };
  o.fake.reset();
  o.fake.script(...Array.from({ length: o.count }, () => long));
  let refusedOnTheWay = 0;
  const journals: string[] = [];

  /** One streamed call: sent again after Retry-After while refused, then aborted after its first chunk. */
  const abortOne = async (i: number): Promise<void> => {
    for (;;) {
      const gone = new AbortController();
      const res = await fetch(o.base + OPENAI, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: 'gpt-4o',
          stream: true,
          messages: [{ role: 'user', content: `stream ${i}` }],
        }),
        signal: gone.signal,
      });
      if (res.status === 429) {
        refusedOnTheWay++;
        await res.text();
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
        continue;
      }
      if (res.status !== 200) throw new Error(`bench:faults aborts: a stream answered ${res.status}`);
      const link = res.headers.get('x-ctxkit-journal');
      if (link) journals.push(link);
      await res.body!.getReader().read();
      gone.abort();
      return;
    }
  };

  for (let i = 0; i < o.count; i += o.wave)
    await Promise.all(Array.from({ length: Math.min(o.wave, o.count - i) }, (_, j) => abortOne(i + j)));
  const left = performance.now();
  let refusedAfter = 0;
  for (;;) {
    const res = await fetch(o.base + OPENAI, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'after the aborts' }] }),
    });
    await res.text();
    if (res.status === 200) break;
    if (res.status !== 429) throw new Error(`bench:faults aborts: the next call answered ${res.status}`);
    refusedAfter++;
    if (performance.now() - left > 120_000) throw new Error('bench:faults aborts: never served in 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const servedAfterMs = performance.now() - left;
  const inFlight = async () =>
    (
      (await (await fetch(`${o.base}/v1/usage`, { headers })).json()) as {
        inFlight?: { calls?: number };
      }
    ).inFlight?.calls ?? -1;
  const inFlightAfter = await inFlight();
  // Every aborted call ends (its place back, its journal entry written) before what it left is read.
  while ((await inFlight()) !== 0) {
    if (performance.now() - left > 120_000)
      throw new Error('bench:faults aborts: calls still in flight after 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const allBackAfterMs = performance.now() - left;
  const journal: Record<string, number> = {};
  for (const link of journals) {
    const call = (
      (await (await fetch(o.base + link, { headers })).json()) as {
        call?: { upstream?: { status?: number } };
      }
    ).call;
    const status = String(call?.upstream?.status ?? 'none');
    journal[status] = (journal[status] ?? 0) + 1;
  }
  const streams = o.fake.streams.slice(0, o.count);
  return {
    aborted: journals.length,
    refusedOnTheWay,
    servedAfterMs,
    refusedAfter,
    inFlightAfter,
    allBackAfterMs,
    journal,
    upstreamClosed: streams.filter((s) => s.closedEarly).length,
    eventsWritten: streams.reduce((n, s) => n + s.written, 0),
    load,
  };
}
