/**
 * What a run sent, remembered so that a provider's reported usage is trusted only for the context it
 * measured. A `usage` on an assistant message counts the request that message answered; ctxkit can
 * take it as the size of its next context only when that request was ctxkit's own send. Imported
 * transcripts, replays and framework histories carry usage that measured some other context (an
 * uncompacted original, a later-edited history): taken at face value it over- or under-states the
 * send, and an under-statement is a provider 400 reported as `ok`.
 *
 * A run records a fingerprint of its working context and of its send (message count and a chain of
 * content digests, plus the system prompt and tool schemas, and the counter's tokens of the send). The
 * next run accepts the newest usage as its anchor only when everything before that assistant message
 * is exactly one of the two, and the usage is a plausible count of that send (`plausibleUsage`): a
 * replayed transcript answers ctxkit's compacted send with the usage of the original, larger request.
 */
import {
  messageDigest as digestOf,
  HASH_START,
  type HashState,
  hashEnd,
  hashMore,
  hashText,
} from '../../messages/digest.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { toolsJson } from '../../tokens/context.ts';

/** Fingerprint of one run's output, kept in `PipelineState.sent`. */
export interface SentRecord {
  /** Messages in the working context (`run.messages`). */
  workingCount: number;
  /** Digest chain of the working context. */
  working: string;
  /** Messages in the send (`run.send`). */
  sendCount: number;
  /** Digest chain of the send. */
  send: string;
  /** Digest of the system prompt and tool schemas the run was given. */
  overhead: string;
  /** The counter's tokens of the send with its system prompt and tools. */
  tokens: number;
}

/**
 * How far a provider's count of a send may sit from the counter's before the usage is taken to have
 * measured some other request (a replayed or imported answer): a factor either way, plus a margin for
 * framing the caller adds. A caller that sends a system prompt or tools it did not pass to `prepare`
 * beyond this margin gets the count, not the anchor: pass them.
 */
export const USAGE_PLAUSIBLE = { factor: 1.5, margin: 2048 } as const;

/** True when `reported` can be the provider's count of a send the counter put at `counted`. */
export function plausibleUsage(reported: number, counted: number): boolean {
  const { factor, margin } = USAGE_PLAUSIBLE;
  return reported <= counted * factor + margin && reported * factor + margin >= counted;
}

/**
 * The last chains taken, with the message objects they were taken of (a copy of the references, so
 * that an array changed in place since is not taken for the same chain) and the hash state after
 * them: a pre-flight digests its working context and its send, and the next one the same messages as
 * the prefix its anchor answers, or a history that extends one of them (hashed from where it ends).
 */
const recentChains: Array<{ refs: readonly Message[]; hash: HashState }> = [];

/** One digest for `messages[0..count)`, order-sensitive: the hash of their digests joined by `|`. */
export function chainDigest(messages: readonly Message[], count = messages.length): string {
  let from: (typeof recentChains)[number] | undefined;
  search: for (const c of recentChains) {
    const n = c.refs.length;
    if (n > count || (from && n <= from.refs.length)) continue;
    for (let i = n - 1; i >= 0; i--) if (c.refs[i] !== messages[i]) continue search;
    from = c;
  }
  let hash = from?.hash ?? HASH_START;
  // The separator and the digest hashed one after the other: the same hash as their concatenation,
  // without a short-lived joined string per message.
  for (let i = from?.refs.length ?? 0; i < count; i++)
    hash = hashMore(i > 0 ? hashMore(hash, '|') : hash, digestOf(messages[i]!));
  if (from?.refs.length !== count) {
    recentChains.unshift({ refs: messages.slice(0, count), hash });
    if (recentChains.length > 4) recentChains.pop();
  }
  return hashEnd(hash);
}

/** The last overhead digest: a session passes the same system prompt and tools on every call. */
let lastOverhead: { system: string; tools: string; digest: string } | undefined;

export function overheadDigest(
  system: string | undefined,
  tools: readonly ToolDefinition[] | undefined,
): string {
  const text = system ?? '';
  // The JSON of `[system, tools]`, the tools' JSON kept per array (toolsJson).
  const json = tools ? toolsJson(tools) : '[]';
  if (lastOverhead?.system === text && lastOverhead.tools === json) return lastOverhead.digest;
  const digest = hashText(`[${JSON.stringify(text)},${json}]`);
  lastOverhead = { system: text, tools: json, digest };
  return digest;
}

export function recordSent(
  working: readonly Message[],
  send: readonly Message[],
  system: string | undefined,
  tools: readonly ToolDefinition[] | undefined,
  tokens: number,
): SentRecord {
  return {
    tokens,
    workingCount: working.length,
    working: chainDigest(working),
    sendCount: send.length,
    send: chainDigest(send),
    overhead: overheadDigest(system, tools),
  };
}

/**
 * True when the usage on `input[anchorIndex]` answered the recorded send: the messages before it are
 * the recorded working context or the recorded send, with the same system prompt and tools.
 */
export function answersSent(
  input: readonly Message[],
  anchorIndex: number,
  record: SentRecord | undefined,
  system: string | undefined,
  tools: readonly ToolDefinition[] | undefined,
): boolean {
  if (!record || anchorIndex < 0) return false;
  if (anchorIndex !== record.workingCount && anchorIndex !== record.sendCount) return false;
  if (overheadDigest(system, tools) !== record.overhead) return false;
  const prefix = chainDigest(input, anchorIndex);
  return (
    (anchorIndex === record.workingCount && prefix === record.working) ||
    (anchorIndex === record.sendCount && prefix === record.send)
  );
}

/** Shape check for a stored record (states come back from storage and callers). */
export function isSentRecord(v: unknown): v is SentRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    Number.isInteger(r.workingCount) &&
    Number.isInteger(r.sendCount) &&
    typeof r.working === 'string' &&
    typeof r.send === 'string' &&
    typeof r.overhead === 'string' &&
    typeof r.tokens === 'number' &&
    r.tokens >= 0
  );
}
