import { CtxError } from '../errors.ts';
import type { Dialect, Message } from '../messages/types.ts';
import { pairToolCalls } from './pairing.ts';

export type InvariantRule =
  | 'call-without-result'
  | 'result-without-call'
  | 'duplicate-result'
  | 'result-not-adjacent'
  | 'duplicate-call-id'
  | 'system-not-first'
  | 'empty-message'
  | 'order-changed'
  | 'pinned-lost'
  | 'duplicate-message-id';

export interface Violation {
  rule: InvariantRule;
  messageId: string;
  detail: string;
}

export interface CheckOptions {
  /** Provider rules to check on top of pairing; omit for the neutral rules only. */
  dialect?: Dialect;
  /** The input of a stage: when given, order preservation and pinned survival are checked against it. */
  before?: readonly Message[];
  /** Accept a trailing call without result (a conversation paused mid tool call). @default false */
  allowPendingCalls?: boolean;
}

/**
 * Checks the invariants of DESIGN.md: every call has its result and every result follows its call;
 * the dialect's adjacency rules; system first; order preserved; pinned messages survive.
 */
export function checkInvariants(messages: readonly Message[], options: CheckOptions = {}): Violation[] {
  const out: Violation[] = [];
  const id = (i: number) => messages[i]?.id ?? `#${i}`;
  const { pairs, orphanResults, duplicateResults } = pairToolCalls(messages);
  const lastCallMessage = pairs.reduce((max, p) => Math.max(max, p.call.message), -1);

  for (const p of pairs) {
    if (p.result) continue;
    if (
      options.allowPendingCalls &&
      p.call.message === lastCallMessage &&
      lastCallMessage === messages.length - 1
    )
      continue;
    out.push({
      rule: 'call-without-result',
      messageId: id(p.call.message),
      detail: `call ${p.callId} (${p.name})`,
    });
  }
  for (const r of orphanResults)
    out.push({ rule: 'result-without-call', messageId: id(r.message), detail: `result for ${r.callId}` });
  for (const r of duplicateResults)
    out.push({ rule: 'duplicate-result', messageId: id(r.message), detail: `second result for ${r.callId}` });

  if (options.dialect) {
    // Results must sit in the block of tool messages right after the calling message.
    for (const p of pairs) {
      if (!p.result) continue;
      let j = p.call.message + 1;
      while (j < p.result.message && messages[j]!.role === 'tool') j++;
      const adjacent = j === p.result.message && messages[j]!.role === 'tool';
      if (!adjacent)
        out.push({
          rule: 'result-not-adjacent',
          messageId: id(p.result.message),
          detail: `result for ${p.callId}`,
        });
    }
    if (options.dialect === 'anthropic') {
      const seen = new Set<string>();
      for (const p of pairs) {
        if (seen.has(p.callId))
          out.push({
            rule: 'duplicate-call-id',
            messageId: id(p.call.message),
            detail: `tool_use id ${p.callId} reused`,
          });
        seen.add(p.callId);
      }
      messages.forEach((m, i) => {
        if (m.parts.length === 0) out.push({ rule: 'empty-message', messageId: id(i), detail: 'no content' });
      });
    }
    let sawOther = false;
    messages.forEach((m, i) => {
      if (m.role !== 'system') sawOther = true;
      else if (sawOther && options.dialect !== 'openai')
        out.push({
          rule: 'system-not-first',
          messageId: id(i),
          detail: 'system message after conversation start',
        });
    });
  }

  const ids = new Set<string>();
  for (const m of messages) {
    if (ids.has(m.id)) out.push({ rule: 'duplicate-message-id', messageId: m.id, detail: 'id used twice' });
    ids.add(m.id);
  }

  if (options.before) {
    const position = new Map<string, number>();
    options.before.forEach((m, i) => {
      position.set(m.id, i);
    });
    let last = -1;
    for (const m of messages) {
      const pos = position.get(m.id);
      if (pos === undefined) continue;
      if (pos < last)
        out.push({ rule: 'order-changed', messageId: m.id, detail: 'moved before an older message' });
      last = Math.max(last, pos);
    }
    for (const m of options.before) {
      if (m.meta?.pinned === true && !ids.has(m.id))
        out.push({ rule: 'pinned-lost', messageId: m.id, detail: 'pinned message removed' });
    }
  }
  return out;
}

/** Throws `CtxError('invariant_violation')` listing every violation. */
export function assertInvariants(
  messages: readonly Message[],
  options: CheckOptions = {},
  where = 'messages',
): void {
  const violations = checkInvariants(messages, options);
  if (violations.length === 0) return;
  const list = violations.map((v) => `${v.rule} at ${v.messageId} (${v.detail})`).join('; ');
  throw new CtxError('invariant_violation', `${violations.length} invariant violation(s): ${list}`, {
    path: where,
  });
}
