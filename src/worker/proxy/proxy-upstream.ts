/**
 * A proxied call's upstream leg: the prepared context rendered into the client's body and sent, and a
 * context-length error answered by overflow recovery and one retry (the session's own recovery, or the
 * stateless pipeline's at the window the error states).
 */
import type { Pipeline } from '../../core/index.ts';
import type { Env } from '../env.ts';
import type { SessionApi } from '../session/stub.ts';
import { type SessionKey, unwrap } from '../session/wire.ts';
import { withPromptCacheKey } from './cache-hints.ts';
import { scrubResponse } from './credential-scrub.ts';
import { unwrapBody } from './opaque-json.ts';
import { overflowText, prepareAtWindow, statedWindow } from './overflow-retry.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';
import type { ProxyOptions } from './proxy-options.ts';
import type { Prepared } from './proxy-session.ts';
import { bodiless, fetchUpstream, readBody, redirected, UpstreamFault } from './relay.ts';
import type { UpstreamTimeouts } from './timeouts.ts';
import type { PhaseTimer } from './timing.ts';
import { type Upstream, upstreamBaseVariable } from './upstreams.ts';

/** The upstream leg's bounds, and the abort of its latest fetch. */
export interface Leg {
  upstream: Upstream;
  headers: Headers;
  timeouts: UpstreamTimeouts;
  client: AbortSignal | undefined;
  abort: AbortController;
  /** Bytes of an answer read whole. */
  maxAnswerBytes: number;
  /** A retry of the same request replaced this call (retries.ts). */
  replaced?: (() => boolean) | undefined;
  /** The history holds opaque tool arguments, written back as they came (opaque-json.ts). */
  opaque?: boolean;
  /** Scrubbed from every upstream answer before anything reads it (`credential-scrub.ts`). */
  secrets: string[];
  /** The session's `prompt_cache_key` (cache-hints.ts), for providers that take one. */
  cacheKey?: string | undefined;
}

/** Thrown when the upstream could not be reached (the client gets a 502 naming no host). */
export const upstreamFailure = new Error('upstream unreachable');

export function upstreamError(): Response {
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

/** Sends `prepared` in the client's body; the answer's headers once they came. */
export async function forward(
  leg: Leg,
  protocol: Protocol,
  request: ProxyRequest,
  prepared: Prepared,
  timer?: PhaseTimer,
): Promise<Response> {
  const body0 = protocol.render(request, prepared.send, prepared.memory);
  // The session's prompt_cache_key where the provider takes one and the client set none (cache-hints.ts).
  const rendered = JSON.stringify(withPromptCacheKey(protocol.id, body0, leg.cacheKey));
  const body = leg.opaque ? unwrapBody(rendered) : rendered;
  timer?.mark('render');
  try {
    const url = `${leg.upstream.base}${protocol.path}`;
    const { res } = await fetchUpstream(
      url,
      { method: 'POST', headers: leg.headers, body },
      leg.timeouts,
      leg.client,
      leg.abort,
      leg.replaced,
    );
    timer?.mark('upstream');
    const empty = bodiless(res);
    if (empty) {
      res.body?.cancel().catch(() => undefined);
      throw empty;
    }
    if (res.status >= 300 && res.status < 400) {
      // Not followed (relay.ts): a 502 in the provider's shape, naming no host of the redirect's.
      res.body?.cancel().catch(() => undefined);
      throw redirected(res.status, upstreamBaseVariable(leg.upstream.provider));
    }
    return scrubResponse(res, leg.secrets);
  } catch (error) {
    if (error instanceof UpstreamFault) throw error;
    // The message names the configured host at most; the key is in a header and never printed.
    console.error(`ctxkit proxy: ${leg.upstream.provider} upstream unreachable: ${(error as Error).message}`);
    throw upstreamFailure;
  }
}

/** What the call sent: the prepared context, and whether a recovery sent it again. */
export interface Sent {
  prepared: Prepared;
  retried: boolean;
  appended: number;
  diverged: boolean;
}

export interface RecoveryContext {
  env: Env;
  protocol: Protocol;
  request: ProxyRequest;
  options: ProxyOptions;
  callId: string;
  session?: { stub: SessionApi; key: SessionKey } | undefined;
  stateless?:
    | { pipeline: Pipeline; state: Awaited<ReturnType<Pipeline['prepare']>>; at(window: number): Pipeline }
    | undefined;
}

/**
 * A failed answer: a context-length error is recovered from and sent once more (the retry's answer,
 * with `sent` updated); any other is the provider's error as it sent it.
 */
export async function afterFailure(
  res: Response,
  leg: Leg,
  sent: Sent,
  c: RecoveryContext,
): Promise<{ res: Response; sent: Sent }> {
  const text = await readBody(res, leg.timeouts.idleMs, leg.abort, leg.maxAnswerBytes);
  const overflow = overflowText(res.status, text);
  const asSent = { res: new Response(text, { status: res.status, headers: res.headers }), sent };
  if (overflow === undefined) return asSent;
  const { request, protocol } = c;
  const sentEstimate = sent.prepared.estimate.after;
  let recovered: (Prepared & { retry: boolean }) | undefined;
  if (c.session) {
    const window = statedWindow(overflow, sentEstimate, Number.MAX_SAFE_INTEGER);
    recovered = unwrap(
      await c.session.stub.proxyRecover(c.session.key, {
        callId: c.callId,
        error: overflow,
        system: request.systemText,
        tools: request.tools,
        dialect: protocol.dialect,
        model: request.model,
        ...(window !== undefined ? { window } : {}),
      }),
    );
  } else if (c.stateless) {
    const { pipeline, state } = c.stateless;
    const window = statedWindow(overflow, sentEstimate, pipeline.budget.contextWindow);
    if (window !== undefined)
      recovered = await prepareAtWindow(c.stateless.at, window, request, protocol, sentEstimate);
    if (!recovered) {
      const run = await pipeline.recoverOverflow({
        messages: state.messages,
        system: request.systemText,
        ...(request.tools ? { tools: request.tools } : {}),
        state: state.state,
        error: new Error(overflow),
        dialect: protocol.dialect,
        model: request.model,
      });
      recovered = { send: run.send, memory: '', estimate: run.estimate, retry: run.retry };
    }
  }
  if (!recovered?.retry) return asSent;
  // The log is unchanged by a recovery: the answer still goes after the turn's last row.
  const afterSeq = (sent.prepared as { afterSeq?: number }).afterSeq;
  const prepared: Prepared = afterSeq === undefined ? recovered : ({ ...recovered, afterSeq } as Prepared);
  leg.abort = new AbortController();
  return {
    res: await forward(leg, protocol, request, recovered),
    sent: { ...sent, prepared, retried: true },
  };
}
