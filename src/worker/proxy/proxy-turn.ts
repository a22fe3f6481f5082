/**
 * The Worker's side of a proxied call's session turn: each client message's content digest (once per
 * message object), the tail of the history sent to the session's Durable Object, and the exchange
 * with it — the object says where the new part starts when the tail was too short, and the session
 * is created on first use with the request's preset and window.
 */
import { CtxError, type Message } from '../../core/index.ts';
import type { SessionApi } from '../session/stub.ts';
import { type SessionKey, unwrap } from '../session/wire.ts';
import { canonicalMessage, hashText, withDigest } from './digest.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';
import type { ProxyOptions } from './proxy-options.ts';
import type { ProxyTurnResult } from './proxy-session.ts';
import type { PhaseTimer } from './timing.ts';

/** Most messages (and bytes) sent to the session object before it says where the new part starts. */
export const TAIL_MESSAGES = 8;
export const TAIL_BYTES = 64 * 1024;

const digestMemo = new WeakMap<Message, { digest: string; chars: number }>();

/** A client message's digest and the length of its canonical form, once per message object. */
function digestOf(m: Message): { digest: string; chars: number } {
  let d = digestMemo.get(m);
  if (!d) {
    const canon = canonicalMessage(m);
    d = { digest: hashText(canon), chars: canon.length };
    digestMemo.set(m, d);
  }
  return d;
}

function digestTail(messages: readonly Message[]) {
  const known = messages.map(digestOf);
  const digests = known.map((d) => d.digest);
  let start = messages.length;
  let bytes = 0;
  while (start > 0 && messages.length - start < TAIL_MESSAGES) {
    bytes += known[start - 1]!.chars;
    if (bytes > TAIL_BYTES && start < messages.length) break;
    start--;
  }
  return { digests, start };
}

/** Appends what is new, prepares, and returns the context to send (the object writes meanwhile). */
export async function sessionTurn(
  stub: SessionApi,
  key: SessionKey,
  request: ProxyRequest,
  protocol: Protocol,
  options: ProxyOptions,
  call: { id: string; at: number },
  timer: PhaseTimer,
): Promise<ProxyTurnResult> {
  const { digests, start } = digestTail(request.messages);
  timer.mark('digest');
  const turnInput = (tailStart: number) => ({
    digests,
    tailStart,
    tail: request.messages.slice(tailStart).map((m, j) => withDigest(m, digests[tailStart + j]!)),
    system: request.systemText,
    tools: request.tools,
    dialect: protocol.dialect,
    call: { ...call, provider: protocol.id, model: request.model, stream: request.stream },
    ...(timer.on ? { timing: true } : {}),
  });
  let created = false;
  let tailStart = start;
  // Recall turned on before this turn runs, so that what it leaves out is archived.
  if (options.recall) unwrap(await stub.useRecall(key));
  for (;;) {
    const outcome = await stub.proxyTurn(key, turnInput(tailStart));
    if (!outcome.ok && outcome.error.code === 'not_found' && !created) {
      created = true;
      const settings = {
        ...(options.preset !== undefined ? { preset: options.preset } : {}),
        ...(options.window !== undefined ? { budget: { contextWindow: options.window } } : {}),
        memory: { memories: options.memory },
        ...(options.recall ? { recall: true } : {}),
      };
      const made = await stub.create(key, { settings });
      // Two first calls at once: the other one created it.
      if (!made.ok && made.error.code !== 'conflict') unwrap(made);
      continue;
    }
    const result = unwrap(outcome);
    timer.mark('turn');
    if ('turn' in result) {
      timer.add('do.', result.turn.timing);
      return result.turn;
    }
    if (result.need >= tailStart) throw new CtxError('conflict', 'the session changed during the call', {});
    tailStart = result.need;
  }
}
