/**
 * The proxy's tool loop (`x-ctxkit-tools`, proxy-tools.ts): when the upstream's answer is only calls to
 * the recall tools, the proxy runs them against the session's archive, appends the call and its results
 * to what it sent, and calls the upstream again — so the client sees only the final answer. A streamed
 * round is held (held-round.ts) until it is known to be the client's, then relayed from its first byte.
 *
 * Bounded: at most `maxRounds` rounds answered by the proxy (the last one asks the model to answer
 * without tools, `tool_choice: none`; a model that still calls them gets the client the provider's own
 * error, 502), at most `MAX_CALLS_PER_ROUND` calls run per round, each round under the call's own
 * timeouts and answer bound, the whole loop inside the call's place among the calls in flight, and each
 * extra round counted against the per-minute limits (`admit`). An answer that mixes the client's tools
 * with these is not intercepted: it reaches the client as the model wrote it.
 *
 * Each round's usage (what its upstream call reported) goes into `spent` as the round is read — kept
 * even when the loop ends in a fault, and for a streamed round cut while held once its usage arrived —
 * and the client's answer carries the rounds' totals in
 * `x-ctxkit-tool-usage` (round-usage.ts).
 */
import {
  isCtxError,
  type JsonValue,
  type Message,
  type ToolCallPart,
  type ToolResultPart,
} from '../../core/index.ts';
import { holdRound } from './held-round.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';
import { answerNow } from './proxy-tools.ts';
import { forward, type Leg, type Sent } from './proxy-upstream.ts';
import { readBody, UpstreamFault } from './relay.ts';
import { checkedUsage, type RoundUsage, TOOL_USAGE_HEADER, toolUsageHeader } from './round-usage.ts';

/** Calls of one round the proxy runs; more get an error result saying so. @default 16 */
export const MAX_CALLS_PER_ROUND = 16;

export interface ToolLoopContext {
  protocol: Protocol;
  /** The request as sent (with the tools' definitions). */
  request: ProxyRequest;
  leg: Leg;
  sent: Sent;
  /** The tools the proxy answers. */
  names: ReadonlySet<string>;
  maxRounds: number;
  maxEventBytes: number;
  /** Runs one call; a `CtxError('invalid_input')` becomes an error result naming the argument. */
  run(name: string, args: JsonValue): Promise<string>;
  /** Asked before each extra round: the refusal to answer the client with (a 429), or undefined. */
  admit?(): Promise<Response | undefined>;
  /** The rounds the proxy answered, one entry each with its checked usage, appended as they are read. */
  spent: RoundUsage[];
}

/** The calls of `answer` when it holds calls and every one names a tool of `names`; else undefined. */
export function ownCalls(
  answer: Message | undefined,
  names: ReadonlySet<string>,
): ToolCallPart[] | undefined {
  if (!answer) return undefined;
  const calls = answer.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
  if (calls.length === 0 || calls.some((c) => !names.has(c.name))) return undefined;
  // A call cut by the output limit may lack its arguments' end: the client sees it as it came.
  const stop = answer.usage?.stopReason;
  if (stop === 'length' || stop === 'max_tokens') return undefined;
  return calls;
}

/** The results of `calls`, one tool message (each adapter writes it in its dialect's shape). */
export async function runCalls(
  calls: readonly ToolCallPart[],
  run: ToolLoopContext['run'],
  id: string,
): Promise<Message> {
  const parts: ToolResultPart[] = [];
  for (const [i, call] of calls.entries()) {
    let output: string;
    let isError = false;
    if (i >= MAX_CALLS_PER_ROUND) {
      output = `not run: at most ${MAX_CALLS_PER_ROUND} calls of these tools are answered per turn`;
      isError = true;
    } else
      try {
        output = await run(call.name, call.args);
      } catch (error) {
        if (!isCtxError(error, 'invalid_input') && !isCtxError(error, 'not_found')) throw error;
        output = `error: ${error.message}`;
        isError = true;
      }
    parts.push({ type: 'tool-result', callId: call.id, output, ...(isError ? { isError } : {}) });
  }
  return { id, role: 'tool', parts };
}

/** `res` with `x-ctxkit-tool-rounds` and `x-ctxkit-tool-usage` (the rounds' totals) among its headers. */
function counted(res: Response, rounds: number, spent: readonly RoundUsage[]): Response {
  if (spent.length === 0) return res;
  const headers = new Headers(res.headers);
  headers.set('x-ctxkit-tool-rounds', String(rounds));
  headers.set(TOOL_USAGE_HEADER, toolUsageHeader(spent));
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** One round's answer: the neutral message, and `res` to relay when it is the client's. */
async function readRound(
  res: Response,
  c: ToolLoopContext,
): Promise<{ answer: Message | undefined; res: Response }> {
  const { leg, protocol } = c;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const accumulator = protocol.accumulator();
    let held: Awaited<ReturnType<typeof holdRound>>;
    try {
      held = await holdRound(res, {
        protocol,
        idleMs: leg.timeouts.idleMs,
        abort: leg.abort,
        maxEventBytes: c.maxEventBytes,
        maxAnswerBytes: leg.maxAnswerBytes,
        accumulator,
      });
    } catch (error) {
      // A round cut while held (idle timeout, answer bound) after its usage arrived was paid for.
      const usage = checkedUsage(accumulator.usage());
      if (usage) c.spent.push({ usage });
      throw error;
    }
    return held.kind === 'relay' ? { answer: undefined, res: held.res } : held;
  }
  const text = await readBody(res, leg.timeouts.idleMs, leg.abort, leg.maxAnswerBytes);
  const again = new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  let answer: Message | undefined;
  try {
    answer = protocol.answer(JSON.parse(text));
  } catch {}
  return { answer, res: again };
}

/** Answers the rounds that only call the proxy's tools; the answer the client is to get, and the rounds. */
export async function toolRounds(
  first: Response,
  c: ToolLoopContext,
): Promise<{ res: Response; rounds: number }> {
  let res = first;
  let rounds = 0;
  const send = [...c.sent.prepared.send];
  for (;;) {
    if (!res.ok || !res.body) return { res: counted(res, rounds, c.spent), rounds };
    const round = await readRound(res, c);
    const calls = ownCalls(round.answer, c.names);
    if (!calls) return { res: counted(round.res, rounds, c.spent), rounds };
    const usage = checkedUsage(round.answer?.usage);
    c.spent.push(usage ? { usage } : {});
    if (rounds >= c.maxRounds)
      throw new UpstreamFault(
        'bad-answer',
        `the model still called ${[...c.names].join(', ')} after ${rounds} rounds the proxy answered (PROXY_TOOL_ROUNDS)`,
      );
    const refusal = await c.admit?.();
    if (refusal) return { res: counted(refusal, rounds, c.spent), rounds };
    const answer = round.answer!;
    send.push(
      { ...answer, id: `${answer.id}.r${rounds}` },
      await runCalls(calls, c.run, `ctxkit-tools.r${rounds}`),
    );
    rounds++;
    const request = rounds >= c.maxRounds ? answerNow(c.request, c.protocol.dialect) : c.request;
    res = await forward(c.leg, c.protocol, request, { ...c.sent.prepared, send });
  }
}
