/**
 * A proxied call's answer, as the client gets it and as the session logs it: the provider's status,
 * headers (hop-by-hop ones dropped) and body, with ctxkit's headers beside them. A stream is relayed
 * event by event (relay-stream.ts) and its answer logged when it ends, by how it ended; a whole answer
 * is read within the answer bound, checked to be JSON, written to the client piece by piece and logged
 * once the client took it — or journaled 499, not delivered, when it left (and kept all the same: it
 * was paid for).
 */
import { isCtxError, type Message, type RunEstimate, type Usage } from '../../core/index.ts';
import type { SessionApi } from '../session/stub.ts';
import type { SessionKey } from '../session/wire.ts';
import { countPaid, type Tally } from './call-tally.ts';
import { deliverWhole } from './client-stream.ts';
import { messageDigest, withDigest } from './digest.ts';
import { answerUsage, type Protocol } from './protocol.ts';
import type { Leg, Sent } from './proxy-upstream.ts';
import { faultResponse, faultStatus, readBody, UpstreamFault } from './relay.ts';
import { relayStream, type StreamEnd } from './relay-stream.ts';
import { callUsage, checkedUsage, type RoundUsage } from './round-usage.ts';
import { type PhaseTimer, serverTiming } from './timing.ts';

/** Upstream response headers not relayed (hop-by-hop, or invalid once the body is re-sent). */
const DROP_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'set-cookie',
]);

function relayHeaders(res: Response): Headers {
  const h = new Headers();
  res.headers.forEach((v, k) => {
    if (!DROP_HEADERS.has(k)) h.set(k, v);
  });
  return h;
}

function ctxkitHeaders(h: Headers, estimate: RunEstimate, first: RunEstimate, extra: Record<string, string>) {
  h.set('x-ctxkit-tokens-before', String(first.before));
  h.set('x-ctxkit-tokens-after', String(estimate.after));
  h.set('x-ctxkit-level', estimate.level);
  for (const [k, v] of Object.entries(extra)) h.set(k, v);
  return h;
}

/** The status a relayed stream's call is journaled with, by how it ended (complete: the upstream's). */
const END_STATUS: Partial<Record<StreamEnd['outcome'], number>> = {
  'client-abort': 499,
  timeout: 504,
  truncated: 502,
  'too-large': 502,
};

export interface AnswerContext {
  protocol: Protocol;
  callId: string;
  leg: Leg;
  sent: Sent;
  /** The estimate of the first send (a retry's is in `sent`). */
  first: RunEstimate;
  /** The session the call logs to; absent for a stateless call. */
  session?: { stub: SessionApi; key: SessionKey } | undefined;
  /** The turn's write failed: the answer is relayed all the same and not logged (the next call repairs it). */
  unstored?: boolean;
  keepReading: boolean;
  /** Rounds of recall-tool calls the proxy answered before this answer (tool-loop.ts). */
  toolRounds?: number | undefined;
  /** What each of those rounds' upstream calls reported (tool-loop.ts); recorded and counted with the answer. */
  spent?: readonly RoundUsage[] | undefined;
  clientSignal: AbortSignal | undefined;
  maxEventBytes: number;
  timer: PhaseTimer;
  /** Counts the call's reported usage in the tenant's tally (GET /v1/usage), logged or not; absent without limits. */
  tally?: Tally | undefined;
  waitUntil(promise: Promise<unknown>): void;
}

export function logFailure(error: unknown): void {
  console.error(`ctxkit proxy: logging the answer failed: ${isCtxError(error) ? error.code : 'internal'}`);
}

export interface CallOutcome {
  callId: string;
  status: number;
  afterSeq: number;
  /** The answer to log (absent: the upstream failed or sent nothing to log). */
  answer?: Message | undefined;
  /** What the upstream reported when there is no answer to carry it (a stream cut after its usage). */
  usage?: Usage | undefined;
  toolRounds?: number | undefined;
  spent?: readonly RoundUsage[] | undefined;
}

/**
 * Journals a call: its answer (its usage checked, round-usage.ts) when there is one, and the usage of
 * every upstream call it made summed in the record (`upstream.usage`, each round's in `upstream.rounds`).
 * The tenant's tally is not counted here but where the usage became known (call-tally.ts): a call
 * not logged was paid for all the same.
 */
export async function recordCall(
  session: { stub: SessionApi; key: SessionKey },
  o: CallOutcome,
): Promise<void> {
  const spent = o.spent ?? [];
  let answer = o.answer;
  if (answer?.usage) {
    const { usage: _raw, ...rest } = answer;
    const usage = checkedUsage(answer.usage);
    answer = usage ? { ...rest, usage } : rest;
  }
  const usage = callUsage(spent, answer?.usage ?? o.usage);
  const tagged = answer ? withDigest(answer, messageDigest(answer)) : undefined;
  const result = await session.stub.proxyRecord(session.key, {
    callId: o.callId,
    status: o.status,
    answer: tagged,
    afterSeq: o.afterSeq,
    ...(o.toolRounds ? { toolRounds: o.toolRounds } : {}),
    ...(usage ? { usage } : {}),
    ...(spent.length > 0 ? { rounds: [...spent] } : {}),
  });
  if (!result.ok) console.error(`ctxkit proxy: logging the answer failed: ${result.error.code}`);
}

export async function answer(res: Response, a: AnswerContext): Promise<Response> {
  const { protocol, sent, session } = a;
  const extra: Record<string, string> = {
    'x-ctxkit-call': a.callId,
    'x-ctxkit-appended': String(sent.appended),
  };
  if (sent.retried) extra['x-ctxkit-retried'] = '1';
  if (sent.diverged) extra['x-ctxkit-diverged'] = '1';
  if (session) {
    extra['x-ctxkit-session'] = session.key.session;
    if (a.unstored)
      extra['x-ctxkit-warning'] =
        'the turn could not be stored; the next call with this history stores it (and this answer)';
    else extra['x-ctxkit-journal'] = `/v1/proxy/sessions/${session.key.session}/calls/${a.callId}`;
  }
  const out = ctxkitHeaders(relayHeaders(res), sent.prepared.estimate, a.first, extra);
  const afterSeq = (sent.prepared as { afterSeq?: number }).afterSeq;
  const logs = session !== undefined && afterSeq !== undefined && !a.unstored;
  /** The call is over: what it cost is counted (every call), and it is journaled (a logged one). */
  const later = (message: Message | undefined, status: number, usage?: Usage) => {
    countPaid(a, usage);
    if (!logs) return;
    const o = {
      callId: a.callId,
      status,
      afterSeq,
      answer: message,
      usage,
      toolRounds: a.toolRounds,
      spent: a.spent,
    };
    a.waitUntil(recordCall(session, o).catch(logFailure));
  };

  const streamed = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!res.ok || !res.body) {
    later(undefined, res.status);
    return new Response(res.body, { status: res.status, headers: out });
  }
  if (streamed) {
    const body = relayStream(res.body, {
      dialect: protocol.dialect,
      idleMs: a.leg.timeouts.idleMs,
      abort: a.leg.abort,
      accumulator: logs || a.tally ? protocol.accumulator() : undefined,
      logs,
      keepReading: a.keepReading,
      client: a.clientSignal,
      maxEventBytes: a.maxEventBytes,
      maxAnswerBytes: a.leg.maxAnswerBytes,
      waitUntil: (p) => a.waitUntil(p),
      onEnd: (end) => later(end.answer, END_STATUS[end.outcome] ?? res.status, end.usage),
    });
    return new Response(body, { status: res.status, headers: out });
  }
  let text: string;
  try {
    text = await readBody(res, a.leg.timeouts.idleMs, a.leg.abort, a.leg.maxAnswerBytes);
  } catch (error) {
    if (!(error instanceof UpstreamFault)) throw error;
    later(undefined, faultStatus(error));
    return faultResponse(protocol.dialect, faultStatus(error), error.message, out);
  }
  a.timer.mark('upstream-body');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // An answer the client's SDK could not read either: the provider's error shape, not the bytes.
    later(undefined, 502);
    return faultResponse(protocol.dialect, 502, 'the upstream answered with a body that is not JSON', out);
  }
  const usage = answerUsage(json);
  let message: Message | undefined;
  if (logs) {
    try {
      message = protocol.answer(json);
    } catch {}
    a.timer.mark('answer');
  }
  if (a.timer.on) out.set('server-timing', serverTiming(a.timer.phases));
  // Logged once the client took it (or left: 499, kept all the same); a next call that brings it back first wins.
  const body = deliverWhole(text, {
    signal: a.clientSignal,
    stallMs: a.leg.timeouts.idleMs,
    waitUntil: (p) => a.waitUntil(p),
    onEnd: (delivered) => later(message, delivered ? res.status : 499, usage),
  });
  return new Response(body, { status: res.status, headers: out });
}
