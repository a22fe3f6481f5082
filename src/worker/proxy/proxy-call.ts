/**
 * One proxied call, as the Worker runs it: read and validate the client's request, get the context
 * to send (from the session's Durable Object, or a stateless pre-flight without `x-ctxkit-session`),
 * forward it with every other field untouched, recover once from a context-length error
 * (proxy-upstream.ts), and relay the answer as the provider sent it (proxy-answer.ts).
 *
 * Storage is assured before the upstream is paid: the session object checks the turn against the
 * session's bound and puts its large content in the blob store before it hands back the context; only
 * the turn's D1 write runs while the context goes upstream. Should that write fail, the paid answer is
 * still relayed (never discarded), not logged, and the client told so: its next call's history brings
 * the turn and the answer back, and they are stored then.
 */
import { CtxError, createPipeline, hashText, type Pipeline } from '../../core/index.ts';
import type { Env } from '../env.ts';
import { readJsonText } from '../http/body.ts';
import { checkJsonDepth } from '../http/json-depth.ts';
import { BOUND_VARS, serviceBounds } from '../service-bounds.ts';
import { PRESETS, type PresetId } from '../session/settings.ts';
import { sessionStub } from '../session/stub.ts';
import { unwrap } from '../session/wire.ts';
import { workerSummarizer } from '../summarizer.ts';
import { promptCacheKey } from './cache-hints.ts';
import { countPaid, tenantTally } from './call-tally.ts';
import { secretsToScrub } from './credential-scrub.ts';
import { recallHistory, rememberHistory } from './history-memo.ts';
import { wrapRequest } from './opaque-json.ts';
import type { Protocol } from './protocol.ts';
import { answer, logFailure, recordCall } from './proxy-answer.ts';
import { type ProxyOptions, proxyOptions } from './proxy-options.ts';
import { proxyToolNames, proxyToolRounds, withProxyTools } from './proxy-tools.ts';
import { sessionTurn } from './proxy-turn.ts';
import {
  afterFailure,
  forward,
  type Leg,
  type Sent,
  upstreamError,
  upstreamFailure,
} from './proxy-upstream.ts';
import { faultResponse, faultStatus, UpstreamFault } from './relay.ts';
import { awaitFirstByte } from './retries.ts';
import type { RoundUsage } from './round-usage.ts';
import { keepReadingOnAbort, upstreamTimeouts } from './timeouts.ts';
import { phaseTimer, timingOn } from './timing.ts';
import { toolRounds } from './tool-loop.ts';
import { refuseUpstreamOverride, upstreamFor, upstreamKey } from './upstreams.ts';

export interface ProxyContext {
  env: Env;
  tenant: string;
  request: Request;
  waitUntil(promise: Promise<unknown>): void;
  /** The call's place among the calls in flight (limits/call-lease.ts): a refusal to answer, or undefined. */
  admitted?(): Promise<Response | undefined>;
  /** An extra upstream round of the tool loop, counted against the per-minute limits: a 429, or undefined. */
  extraRound?(): Promise<Response | undefined>;
}

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

/**
 * A history longer than `PROXY_MAX_MESSAGES` is refused before anything converts, stores or sends it:
 * within the body limit a list of tiny messages runs to a million, minutes of work for the session.
 */
function refuseLongHistory(raw: unknown, field: string, max: number): void {
  const list = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list) || list.length <= max) return;
  throw new CtxError(
    'payload_too_large',
    `${list.length} elements; the proxy takes at most ${max} in one request (${BOUND_VARS.proxyMessages})`,
    { path: field },
  );
}

export async function proxyCall(ctx: ProxyContext, protocol: Protocol): Promise<Response> {
  const { env, request: req } = ctx;
  const timer = phaseTimer(timingOn(env));
  const bounds = serviceBounds(env);
  refuseUpstreamOverride(req.headers);
  const upstream = upstreamFor(env, protocol.id);
  const key = upstreamKey(env, protocol.id, req.headers);
  const { text: bodyText, value: raw } = await readJsonText(req, bounds.proxyBodyBytes, {
    timeoutMs: bounds.bodyReadMs,
    maxDepth: Number.POSITIVE_INFINITY,
  });
  // A model's tool arguments too deep for the service travel opaque; anything else too deep is a 400.
  const opaque = wrapRequest(protocol.dialect, raw) > 0;
  checkJsonDepth(raw);
  refuseLongHistory(raw, protocol.listField, bounds.proxyMessages);
  timer.mark('read');
  const sessionHeader = req.headers.get('x-ctxkit-session');
  // The session header is validated with the other options below; the key only has to tell callers apart.
  const memoKey = `${ctx.tenant}\n${sessionHeader ?? ''}\n${protocol.path}`;
  const field = protocol.historyField;
  const recalled = field ? recallHistory(memoKey, bodyText, field) : undefined;
  timer.mark('recall');
  let request = protocol.parse(raw, recalled?.known);
  if (recalled?.layout && request.converted)
    rememberHistory(memoKey, bodyText, recalled.layout, request.converted);
  timer.mark('parse');
  const tools = proxyToolNames(req.headers, req.headers.get('x-ctxkit-session') ?? undefined);
  const options = { ...proxyOptions(req.headers, request.model), recall: tools !== undefined };
  if (tools) request = withProxyTools(request, protocol.dialect, tools);
  const keepReading = keepReadingOnAbort(req.headers);
  const refusal = await ctx.admitted?.();
  if (refusal) return refusal;
  const headers = protocol.upstreamHeaders(req.headers, key);
  const leg: Leg = {
    upstream,
    headers,
    timeouts: upstreamTimeouts(env, protocol.id, req.headers),
    client: req.signal,
    abort: new AbortController(),
    maxAnswerBytes: bounds.answerBytes,
    opaque,
    secrets: secretsToScrub(env, headers),
  };
  const callId = crypto.randomUUID();
  const session =
    options.session === undefined
      ? undefined
      : (() => {
          const k = { tenant: ctx.tenant, session: options.session };
          return { key: k, stub: sessionStub(env, k) };
        })();
  if (session) leg.cacheKey = promptCacheKey(session.key.tenant, session.key.session);
  /** A fault's answer in the provider's shape (with the call's journal link); a gone client's 499. */
  const faulted = (f: UpstreamFault) => {
    if (f.kind === 'client-gone') return new Response(null, { status: 499 });
    const h = new Headers({ 'x-ctxkit-call': callId });
    if (session) {
      h.set('x-ctxkit-session', session.key.session);
      h.set('x-ctxkit-journal', `/v1/proxy/sessions/${session.key.session}/calls/${callId}`);
    }
    return faultResponse(protocol.dialect, faultStatus(f), f.message, h);
  };

  let sent: Sent;
  let stateless: { pipeline: Pipeline; state: Awaited<ReturnType<Pipeline['prepare']>> } | undefined;
  if (session) {
    const turn = await sessionTurn(
      session.stub,
      session.key,
      request,
      protocol,
      options,
      { id: callId, at: Date.now() },
      timer,
    );
    // The client's own copy of each message the session object sent back as an index.
    const send = turn.send.map((m) => (typeof m === 'number' ? request.messages[m]! : m));
    sent = { prepared: { ...turn, send }, retried: false, appended: turn.appended, diverged: turn.diverged };
  } else {
    const pipeline = statelessPipeline(env, options);
    const state = await pipeline.prepare({
      messages: request.messages,
      system: request.systemText,
      ...(request.tools ? { tools: request.tools } : {}),
      dialect: protocol.dialect,
      model: request.model,
    });
    stateless = { pipeline, state };
    timer.mark('prepare');
    sent = {
      prepared: { send: state.send, memory: '', estimate: state.estimate },
      retried: false,
      appended: 0,
      diverged: false,
    };
  }
  const first = sent.prepared.estimate;
  // The session object is still writing the turn's new rows and state to D1: the context goes
  // upstream meanwhile, and the answer waits for that write's outcome.
  const commit = session?.stub.proxyCommit(session.key, callId);
  commit?.catch(() => undefined);
  // A retry of this very request (an SDK's, after its client gave up) replaces this call while it
  // still waits for its first byte: its client left, and workerd does not say so before an answer.
  const wait = session
    ? awaitFirstByte(`${ctx.tenant}\n${session.key.session}\n${protocol.path}\n${hashText(bodyText)}`)
    : undefined;
  leg.replaced = wait?.replaced;

  let res: Response;
  let unstored = false;
  let rounds = 0;
  const spent: RoundUsage[] = [];
  const tally = tenantTally(env, ctx.tenant);
  try {
    let fault: UpstreamFault | undefined;
    let down = false;
    try {
      res = await forward(leg, protocol, request, sent.prepared, timer);
    } catch (error) {
      if (error instanceof UpstreamFault) fault = error;
      else if (error !== upstreamFailure) throw error;
      down = true;
      res = new Response(null, { status: 502 });
    } finally {
      wait?.done();
      leg.replaced = undefined;
    }
    if (commit) {
      const written = await commit;
      if (written.ok) timer.add('do.', written.value.timing);
      else {
        unstored = true;
        console.error(`ctxkit proxy: the turn of call ${callId} was not stored: ${written.error.code}`);
      }
      timer.mark('commit-wait');
    }
    if (fault) throw fault;
    if (down) throw upstreamFailure;
    if (!res.ok)
      ({ res, sent } = await afterFailure(res, leg, sent, {
        env,
        protocol,
        request,
        options,
        callId,
        session,
        stateless: stateless && {
          ...stateless,
          at: (w: number) => statelessPipeline(env, { ...options, window: w }),
        },
      }));
    if (tools && session)
      ({ res, rounds } = await toolRounds(res, {
        protocol,
        request,
        leg,
        sent,
        names: new Set(tools),
        maxRounds: proxyToolRounds(env),
        maxEventBytes: bounds.eventBytes,
        run: async (name, args) => unwrap(await session.stub.recallTool(session.key, { name, args })),
        ...(ctx.extraRound ? { admit: ctx.extraRound } : {}),
        spent,
      }));
  } catch (error) {
    // The rounds the proxy answered before the call failed were paid for, however it failed.
    countPaid({ callId, tally, spent, waitUntil: (p) => ctx.waitUntil(p) }, undefined);
    if (error === upstreamFailure) return upstreamError();
    if (!(error instanceof UpstreamFault)) throw error;
    const seq = (sent.prepared as { afterSeq?: number }).afterSeq;
    if (session && seq !== undefined && !unstored)
      // Journaled with its status and the rounds' usage; nothing of the answer is logged.
      ctx.waitUntil(
        recordCall(session, {
          callId,
          status: faultStatus(error),
          afterSeq: seq,
          toolRounds: rounds,
          spent,
        }).catch(logFailure),
      );
    return faulted(error);
  }
  return answer(res, {
    protocol,
    callId,
    leg,
    sent,
    first,
    session,
    unstored,
    keepReading,
    toolRounds: rounds,
    spent,
    clientSignal: req.signal,
    maxEventBytes: bounds.eventBytes,
    timer,
    tally,
    waitUntil: (p) => ctx.waitUntil(p),
  });
}
