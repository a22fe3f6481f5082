import { CtxError } from '../errors.ts';
import type { Dialect, Message } from '../messages/types.ts';
import { isPendingCall, pairToolCalls } from './pairing.ts';
import {
  ANTHROPIC_TOOL_ID,
  isReasoningOnly,
  misplacedCallTurns,
  separatedCalls,
  unfollowedReasoning,
  verifiedKey,
} from './reasoning.ts';

export type InvariantRule =
  | 'call-without-result'
  | 'result-without-call'
  | 'duplicate-result'
  | 'approval-without-call'
  | 'result-not-adjacent'
  | 'duplicate-call-id'
  | 'system-not-first'
  | 'empty-message'
  | 'order-changed'
  | 'pinned-lost'
  | 'duplicate-message-id'
  | 'invalid-call-id'
  | 'reasoning-only-message'
  | 'reasoning-not-followed'
  | 'reasoning-separated'
  | 'reasoning-changed'
  | 'response-count-mismatch'
  | 'call-turn-position';

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
 * a call tagged with the Responses reasoning item it was produced with has that item before it; the
 * dialect's rules (adjacency, system first, Anthropic ids, reasoning-only messages, Responses reasoning
 * followed by its item, Gemini N calls answered by N responses); order preserved, pinned messages and
 * verified reasoning (signatures, encrypted content) kept byte for byte against `before`.
 * docs/dialects.md lists every rule with the provider error it prevents.
 */
export function checkInvariants(messages: readonly Message[], options: CheckOptions = {}): Violation[] {
  const out: Violation[] = [];
  const id = (i: number) => messages[i]?.id ?? `#${i}`;
  const { pairs, orphanResults, duplicateResults, orphanApprovals } = pairToolCalls(messages);
  for (const p of pairs) {
    if (p.result) continue;
    if (options.allowPendingCalls && isPendingCall(messages, pairs, p)) continue;
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
  for (const a of orphanApprovals)
    out.push({ rule: 'approval-without-call', messageId: id(a.message), detail: `approval for ${a.callId}` });

  messages.forEach((m, i) => {
    for (const pi of separatedCalls(m))
      out.push({
        rule: 'reasoning-separated',
        messageId: id(i),
        detail: `call ${(m.parts[pi] as { id: string }).id} without the reasoning item it was produced with`,
      });
  });

  if (options.dialect) {
    const dialect = options.dialect;
    messages.forEach((m, i) => {
      if (isReasoningOnly(m))
        out.push({
          rule: 'reasoning-only-message',
          messageId: id(i),
          detail: 'assistant message holds only reasoning',
        });
      else if (dialect === 'responses')
        for (const pi of unfollowedReasoning(m))
          out.push({
            rule: 'reasoning-not-followed',
            messageId: id(i),
            detail: `reasoning part ${pi} has no item after it`,
          });
    });
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
    if (dialect === 'gemini')
      messages.forEach((m, i) => {
        const calls = m.role === 'assistant' ? m.parts.filter((p) => p.type === 'tool-call').length : 0;
        if (calls === 0) return;
        let results = 0;
        for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++)
          results += messages[j]!.parts.filter((p) => p.type === 'tool-result').length;
        if (results !== calls)
          out.push({
            rule: 'response-count-mismatch',
            messageId: id(i),
            detail: `${calls} function call(s) answered by ${results} response(s)`,
          });
      });
    if (dialect === 'gemini')
      for (const i of misplacedCallTurns(messages))
        out.push({
          rule: 'call-turn-position',
          messageId: id(i),
          detail: 'a function call turn must follow a user turn or a function response turn',
        });
    if (dialect === 'anthropic') {
      for (const p of pairs)
        if (!ANTHROPIC_TOOL_ID.test(p.callId))
          out.push({
            rule: 'invalid-call-id',
            messageId: id(p.call.message),
            detail: `tool_use id ${p.callId} does not match ^[a-zA-Z0-9_-]+$`,
          });
    }
    if (dialect === 'anthropic') {
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
    }
    if (dialect === 'anthropic' || dialect === 'gemini')
      messages.forEach((m, i) => {
        if (m.parts.length === 0) out.push({ rule: 'empty-message', messageId: id(i), detail: 'no content' });
      });
    let sawOther = false;
    messages.forEach((m, i) => {
      if (m.role !== 'system') sawOther = true;
      else if (sawOther && dialect !== 'openai' && dialect !== 'responses')
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
    // Verified reasoning of a message that is still there: unchanged, on the same part — or gone
    // together with every call and all reasoning of the message (a turn reduced to its text).
    const now = new Map<string, Message>();
    for (const m of messages) now.set(m.id, m);
    for (const m of options.before) {
      const after = now.get(m.id);
      if (!after || after === m) continue;
      const calls = new Set(m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : [])));
      const stripped = !after.parts.some(
        (p) => p.type === 'reasoning' || (p.type === 'tool-call' && calls.has(p.id)),
      );
      if (stripped) continue;
      const kept = new Map<string, number>();
      for (const p of after.parts) {
        const k = verifiedKey(p);
        if (k !== undefined) kept.set(k, (kept.get(k) ?? 0) + 1);
      }
      m.parts.forEach((p, pi) => {
        const k = verifiedKey(p);
        if (k === undefined) return;
        const left = kept.get(k) ?? 0;
        if (left > 0) kept.set(k, left - 1);
        else
          out.push({
            rule: 'reasoning-changed',
            messageId: m.id,
            detail: `part ${pi} (${p.type}) lost or changed its signed or encrypted reasoning`,
          });
      });
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
