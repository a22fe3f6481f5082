/**
 * One proxied call, as the Worker runs it: read and validate the client's request, get the context
 * to send (from the session's Durable Object, or a stateless pre-flight without `x-ctxkit-session`),
 * forward it with every other field untouched, recover once from a context-length error, and relay
 * the answer as the provider sent it — a stream chunk by chunk, teed so that a copy is logged whole
 * with its usage when it ends.
 */
import {
  createPipeline,
  isCtxError,
  type Message,
  type Pipeline,
  type RunEstimate,
} from '../../core/index.ts';
import type { Env } from '../env.ts';
import { readJsonText } from '../http/body.ts';
import { PRESETS, type PresetId } from '../session/settings.ts';
import { sessionStub } from '../session/stub.ts';
import { unwrap } from '../session/wire.ts';
import { workerSummarizer } from '../summarizer.ts';
import { scrubResponse, secretsToScrub } from './credential-scrub.ts';
import { messageDigest, withDigest } from './digest.ts';
import { recallHistory, rememberHistory } from './history-memo.ts';
import { overflowText, prepareAtWindow, statedWindow } from './overflow-retry.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';
import { type ProxyOptions, proxyMaxBodyBytes, proxyOptions } from './proxy-options.ts';
import type { Prepared } from './proxy-session.ts';
import { sessionTurn } from './proxy-turn.ts';
import {
  faultResponse,
  fetchUpstream,
  readBody,
  relayStream,
  type StreamEnd,
  UpstreamFault,
} from './relay.ts';
import { keepReadingOnAbort, type UpstreamTimeouts, upstreamTimeouts } from './timeouts.ts';
import { type PhaseTimer, phaseTimer, serverTiming, timingOn } from './timing.ts';
import { refuseUpstreamOverride, type Upstream, upstreamFor, upstreamKey } from './upstreams.ts';

export interface ProxyContext {
  env: Env;
  tenant: string;
  request: Request;
  waitUntil(promise: Promise<unknown>): void;
  /** The call's place among the calls in flight (limits/call-lease.ts): a refusal to answer, or undefined. */
  admitted?(): Promise<Response | undefined>;
}

interface Sent {
  prepared: Prepared;
  retried: boolean;
  appended: number;
  diverged: boolean;
}

/** Upstream response headers not relayed (hop-by-hop, or invalid once the body is re-sent). */
const DROP_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'set-cookie',
]);

function defaultPreset(env: Env): PresetId {
  return PRESETS.includes(env.DEFAULT_PRESET as PresetId) ? (env.DEFAULT_PRESET as PresetId) : 'default';
}

const pipelines = new Map<string, Pipeline>();

/** Stateless pre-flight pipelines, one per preset and window, kept per isolate. */
function statelessPipeline(env: Env, options: ProxyOptions): Pipeline {
  const preset = options.preset ?? defaultPreset(env);
  const id = `${preset}:${options.window ?? ''}`;
  let p = pipelines.get(id);
  if (!p) {
    p = createPipeline({
      preset,
      summarizer: workerSummarizer(env).summarizer,
      ...(options.window !== undefined ? { budget: { contextWindow: options.window } } : {}),
    });
    if (pipelines.size >= 32) pipelines.clear();
    pipelines.set(id, p);
  }
  return p;
}

function upstreamError(): Response {
  return Response.json(
    {
      error: {
        code: 'upstream_unreachable',
        message: 'the upstream provider could not be reached',
        path: null,
      },
    },
    { status: 502 },
  );
}

/** The upstream leg's bounds, and the abort of its latest fetch. */
interface Leg {
  timeouts: UpstreamTimeouts;
  client: AbortSignal | undefined;
  abort: AbortController;
  /** Scrubbed from every upstream answer before anything reads it (`credential-scrub.ts`). */
  secrets: string[];
}

async function forward(
  upstream: Upstream,
  protocol: Protocol,
  request: ProxyRequest,
  prepared: Prepared,
  headers: Headers,
  leg: Leg,
  timer?: PhaseTimer,
): Promise<Response> {
  const body = JSON.stringify(protocol.render(request, prepared.send, prepared.memory));
  timer?.mark('render');
  try {
    const url = `${upstream.base}${protocol.path}`;
    const { res, abort } = await fetchUpstream(
      url,
      { method: 'POST', headers, body },
      leg.timeouts,
      leg.client,
    );
    leg.abort = abort;
    timer?.mark('upstream');
    return scrubResponse(res, leg.secrets);
  } catch (error) {
    if (error instanceof UpstreamFault) throw error;
    // The message names the configured host at most; the key is in a header and never printed.
    console.error(`ctxkit proxy: ${upstream.provider} upstream unreachable: ${(error as Error).message}`);
    throw upstreamFailure;
  }
}

const upstreamFailure = new Error('upstream unreachable');

function ctxkitHeaders(
  h: Headers,
  estimate: RunEstimate,
  first: RunEstimate,
  extra: Record<string, string>,
): Headers {
  h.set('x-ctxkit-tokens-before', String(first.before));
  h.set('x-ctxkit-tokens-after', String(estimate.after));
  h.set('x-ctxkit-level', estimate.level);
  for (const [k, v] of Object.entries(extra)) h.set(k, v);
  return h;
}

function relayHeaders(res: Response): Headers {
  const h = new Headers();
  res.headers.forEach((v, k) => {
    if (!DROP_HEADERS.has(k)) h.set(k, v);
  });
  return h;
}

export async function proxyCall(ctx: ProxyContext, protocol: Protocol): Promise<Response> {
  const { env, request: req } = ctx;
  const timer = phaseTimer(timingOn(env));
  refuseUpstreamOverride(req.headers);
  const upstream = upstreamFor(env, protocol.id);
  const key = upstreamKey(env, protocol.id, req.headers);
  const { text: bodyText, value: raw } = await readJsonText(req, proxyMaxBodyBytes(env));
  timer.mark('read');
  const session = req.headers.get('x-ctxkit-session');
  // The session header is validated with the other options below; the key only has to tell callers apart.
  const memoKey = `${ctx.tenant}\n${session ?? ''}\n${protocol.path}`;
  const field = protocol.historyField;
  const recalled = field ? recallHistory(memoKey, bodyText, field) : undefined;
  timer.mark('recall');
  const request = protocol.parse(raw, recalled?.known);
  if (recalled?.layout && request.converted)
    rememberHistory(memoKey, bodyText, recalled.layout, request.converted);
  timer.mark('parse');
  const options = proxyOptions(req.headers, request.model);
  const refusal = await ctx.admitted?.();
  if (refusal) return refusal;
  const leg: Leg = {
    timeouts: upstreamTimeouts(env, protocol.id, req.headers),
    client: req.signal,
    abort: new AbortController(),
    secrets: [],
  };
  const keepReading = keepReadingOnAbort(req.headers);
  const headers = protocol.upstreamHeaders(req.headers, key);
  leg.secrets = secretsToScrub(env, headers);
  const callId = crypto.randomUUID();
  const sessionKey =
    options.session === undefined ? undefined : { tenant: ctx.tenant, session: options.session };
  const stub = sessionKey ? sessionStub(env, sessionKey) : undefined;
  /** A timeout's 504 in the provider's shape (with the call's journal link); a gone client's 499. */
  const upstreamFaulted = (f: UpstreamFault) => {
    if (f.kind !== 'timeout') return new Response(null, { status: 499 });
    const h = new Headers({ 'x-ctxkit-call': callId });
    if (sessionKey) {
      h.set('x-ctxkit-session', sessionKey.session);
      h.set('x-ctxkit-journal', `/v1/proxy/sessions/${sessionKey.session}/calls/${callId}`);
    }
    return faultResponse(protocol.dialect, 504, f.message, h);
  };

  let sent: Sent;
  let stateless: Pipeline | undefined;
  let statelessState: Awaited<ReturnType<Pipeline['prepare']>> | undefined;
  if (stub && sessionKey) {
    const turn = await sessionTurn(
      stub,
      sessionKey,
      request,
      protocol,
      options,
      {
        id: callId,
        at: Date.now(),
      },
      timer,
    );
    // The client's own copy of each message the session object sent back as an index.
    const send = turn.send.map((m) => (typeof m === 'number' ? request.messages[m]! : m));
    sent = {
      prepared: { ...turn, send },
      retried: false,
      appended: turn.appended,
      diverged: turn.diverged,
    };
  } else {
    stateless = statelessPipeline(env, options);
    statelessState = await stateless.prepare({
      messages: request.messages,
      system: request.systemText,
      ...(request.tools ? { tools: request.tools } : {}),
      dialect: protocol.dialect,
    });
    timer.mark('prepare');
    sent = {
      prepared: { send: statelessState.send, memory: '', estimate: statelessState.estimate },
      retried: false,
      appended: 0,
      diverged: false,
    };
  }
  const first = sent.prepared.estimate;
  // The session object is still writing the turn's new rows and state to D1: the context goes
  // upstream meanwhile, and the answer is released only once that write succeeded.
  const commit = stub && sessionKey ? stub.proxyCommit(sessionKey, callId) : undefined;
  commit?.catch(() => undefined);

  let res: Response;
  let fault: UpstreamFault | undefined;
  try {
    let upstreamDown = false;
    try {
      res = await forward(upstream, protocol, request, sent.prepared, headers, leg, timer);
    } catch (error) {
      if (error instanceof UpstreamFault) fault = error;
      else if (error !== upstreamFailure) throw error;
      upstreamDown = true;
      res = new Response(null, { status: 502 });
    }
    if (commit) {
      const written = await commit;
      if (!written.ok) {
        // Nothing of this call is stored: the client gets the error, not the answer.
        await res.body?.cancel();
        unwrap(written);
      } else timer.add('do.', written.value.timing);
      timer.mark('commit-wait');
    }
    if (fault) throw fault;
    if (upstreamDown) throw upstreamFailure;
    if (!res.ok) {
      const text = await readBody(res, leg.timeouts.idleMs, leg.abort);
      const overflow = overflowText(res.status, text);
      let retried: Response | undefined;
      if (overflow !== undefined) {
        let recovered: (Prepared & { retry: boolean }) | undefined;
        const sentEstimate = sent.prepared.estimate.after;
        if (stub && sessionKey) {
          const window = statedWindow(overflow, sentEstimate, Number.MAX_SAFE_INTEGER);
          recovered = unwrap(
            await stub.proxyRecover(sessionKey, {
              callId,
              error: overflow,
              system: request.systemText,
              tools: request.tools,
              dialect: protocol.dialect,
              ...(window !== undefined ? { window } : {}),
            }),
          );
        } else if (stateless && statelessState) {
          const window = statedWindow(overflow, sentEstimate, stateless.budget.contextWindow);
          if (window !== undefined)
            recovered = await prepareAtWindow(
              (w) => statelessPipeline(env, { ...options, window: w }),
              window,
              request,
              protocol,
              sentEstimate,
            );
        }
        if (!recovered && stateless && statelessState) {
          const run = await stateless.recoverOverflow({
            messages: statelessState.messages,
            system: request.systemText,
            ...(request.tools ? { tools: request.tools } : {}),
            state: statelessState.state,
            error: new Error(overflow),
            dialect: protocol.dialect,
          });
          recovered = { send: run.send, memory: '', estimate: run.estimate, retry: run.retry };
        }
        if (recovered?.retry) {
          // The log is unchanged by a recovery: the answer still goes after the turn's last row.
          const afterSeq = (sent.prepared as { afterSeq?: number }).afterSeq;
          const prepared: Prepared =
            afterSeq === undefined ? recovered : ({ ...recovered, afterSeq } as Prepared);
          sent = { ...sent, prepared, retried: true };
          retried = await forward(upstream, protocol, request, recovered, headers, leg);
        }
      }
      if (retried) res = retried;
      else {
        // Not an overflow (or nothing left to recover): the provider's error as it sent it.
        res = new Response(text, { status: res.status, headers: res.headers });
      }
    }
  } catch (error) {
    if (error === upstreamFailure) return upstreamError();
    if (!(error instanceof UpstreamFault)) throw error;
    const seq = 'afterSeq' in sent.prepared ? (sent.prepared as { afterSeq: number }).afterSeq : undefined;
    if (stub && sessionKey && seq !== undefined && error.kind === 'timeout')
      // Journaled as failed; nothing of the answer is logged.
      ctx.waitUntil(stub.proxyRecord(sessionKey, { callId, status: 504, afterSeq: seq }).catch(logFailure));
    return upstreamFaulted(error);
  }

  const extra: Record<string, string> = {
    'x-ctxkit-call': callId,
    'x-ctxkit-appended': String(sent.appended),
  };
  if (sent.retried) extra['x-ctxkit-retried'] = '1';
  if (sent.diverged) extra['x-ctxkit-diverged'] = '1';
  if (sessionKey) {
    extra['x-ctxkit-session'] = sessionKey.session;
    extra['x-ctxkit-journal'] = `/v1/proxy/sessions/${sessionKey.session}/calls/${callId}`;
  }
  const out = ctxkitHeaders(relayHeaders(res), sent.prepared.estimate, first, extra);
  const afterSeq = 'afterSeq' in sent.prepared ? (sent.prepared as { afterSeq: number }).afterSeq : undefined;
  const record = async (answer: Message | undefined, status = res.status) => {
    if (!stub || !sessionKey || afterSeq === undefined) return;
    const tagged = answer ? withDigest(answer, messageDigest(answer)) : undefined;
    const result = await stub.proxyRecord(sessionKey, {
      callId,
      status,
      answer: tagged,
      afterSeq,
    });
    if (!result.ok) console.error(`ctxkit proxy: logging the answer failed: ${result.error.code}`);
  };

  const streamed = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!res.ok || !res.body) {
    if (stub) ctx.waitUntil(record(undefined).catch(logFailure));
    return new Response(res.body, { status: res.status, headers: out });
  }
  if (streamed) {
    // Registered now, while the request is alive: a client that disconnects may end it before the
    // relay reports how the stream ended, and the log must still be written then.
    let settle: (end: StreamEnd) => void = () => undefined;
    const ended = new Promise<StreamEnd>((resolve) => {
      settle = resolve;
    });
    // Waited on with or without a session: the stream's end is where the call stops being in flight.
    ctx.waitUntil(
      ended
        .then((end) => (stub ? record(end.answer, END_STATUS[end.outcome] ?? res.status) : undefined))
        .catch(logFailure),
    );
    const body = relayStream(res.body, {
      dialect: protocol.dialect,
      idleMs: leg.timeouts.idleMs,
      abort: leg.abort,
      accumulator: stub ? protocol.accumulator() : undefined,
      keepReading,
      client: req.signal,
      waitUntil: (p) => ctx.waitUntil(p),
      onEnd: (end) => settle(end),
    });
    return new Response(body, { status: res.status, headers: out });
  }
  let text: string;
  try {
    text = await readBody(res, leg.timeouts.idleMs, leg.abort);
  } catch (error) {
    if (!(error instanceof UpstreamFault)) throw error;
    if (stub) ctx.waitUntil(record(undefined, 504).catch(logFailure));
    return upstreamFaulted(error);
  }
  timer.mark('upstream-body');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // An answer the client's SDK could not read either: the provider's error shape, not the bytes.
    if (stub) ctx.waitUntil(record(undefined, 502).catch(logFailure));
    return faultResponse(protocol.dialect, 502, 'the upstream answered with a body that is not JSON', out);
  }
  if (stub) {
    let answer: Message | undefined;
    try {
      answer = protocol.answer(json);
    } catch {}
    // Logged after the reply like a stream's answer; a next call that brings it back first wins.
    ctx.waitUntil(record(answer).catch(logFailure));
    timer.mark('answer');
  }
  if (timer.on) out.set('server-timing', serverTiming(timer.phases));
  return new Response(text, { status: res.status, headers: out });
}

/** The status a relayed stream's call is journaled with, by how it ended (complete: the upstream's). */
const END_STATUS: Partial<Record<StreamEnd['outcome'], number>> = {
  'client-abort': 499,
  timeout: 504,
  truncated: 502,
};

function logFailure(error: unknown): void {
  console.error(`ctxkit proxy: logging the answer failed: ${isCtxError(error) ? error.code : 'internal'}`);
}
