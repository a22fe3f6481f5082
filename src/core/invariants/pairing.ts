import type { Message } from '../messages/types.ts';

/** Where a tool call or result sits: message index and part index. */
export interface PartRef {
  message: number;
  part: number;
}

export interface ToolPair {
  callId: string;
  name: string;
  call: PartRef;
  /** Undefined when the call has no result. */
  result?: PartRef;
  /** An approval was asked for this call (it may wait for a decision, or for its run after one). */
  approval?: true;
}

export interface Pairing {
  pairs: ToolPair[];
  /** Results with no open call before them. */
  orphanResults: Array<PartRef & { callId: string }>;
  /** Results for a call that already had one (the later ones). */
  duplicateResults: Array<PartRef & { callId: string }>;
  /** Approval requests and responses with no call of their id before them. */
  orphanApprovals: Array<PartRef & { callId: string }>;
  /** Every other approval, with the index in `pairs` of the call it is about (the latest of its id). */
  approvals: Array<PartRef & { pair: number }>;
}

/**
 * Pairs every tool result with the nearest preceding open call of the same id (a denied call's
 * `denied` result answers it like any other), and finds approvals whose call is not before them. Ids may repeat
 * inside a conversation (τ-bench reuses them): each result closes the most recent open call.
 */
export function pairToolCalls(messages: readonly Message[]): Pairing {
  const pairs: ToolPair[] = [];
  const open = new Map<string, number[]>(); // id → stack of indices into pairs
  const closed = new Map<string, number>(); // id → last closed pair index (for duplicates)
  const orphanResults: Pairing['orphanResults'] = [];
  const duplicateResults: Pairing['duplicateResults'] = [];
  const orphanApprovals: Pairing['orphanApprovals'] = [];
  const called = new Map<string, number>(); // id → index in pairs of the latest call
  const approvals: Pairing['approvals'] = [];
  messages.forEach((m, mi) => {
    m.parts.forEach((p, pi) => {
      if (p.type === 'tool-approval') {
        const pair = called.get(p.callId);
        if (pair === undefined) orphanApprovals.push({ message: mi, part: pi, callId: p.callId });
        else {
          approvals.push({ message: mi, part: pi, pair });
          pairs[pair]!.approval = true;
        }
      } else if (p.type === 'tool-call') {
        called.set(p.id, pairs.length);
        const stack = open.get(p.id) ?? [];
        stack.push(pairs.length);
        open.set(p.id, stack);
        pairs.push({ callId: p.id, name: p.name, call: { message: mi, part: pi } });
      } else if (p.type === 'tool-result') {
        const stack = open.get(p.callId);
        const idx = stack?.pop();
        if (idx === undefined) {
          if (closed.has(p.callId)) duplicateResults.push({ message: mi, part: pi, callId: p.callId });
          else orphanResults.push({ message: mi, part: pi, callId: p.callId });
          return;
        }
        pairs[idx]!.result = { message: mi, part: pi };
        closed.set(p.callId, idx);
      }
    });
  });
  return { pairs, orphanResults, duplicateResults, orphanApprovals, approvals };
}

/**
 * Whether a call without result is pending, as `allowPendingCalls` accepts: its message holds the last
 * call of the conversation and ends it, or an approval was asked for it and no assistant message
 * came after it (the decision, or the run of the approved call, is still to come).
 */
export function isPendingCall(
  messages: readonly Message[],
  pairs: readonly ToolPair[],
  pair: ToolPair,
): boolean {
  const last = messages.length - 1;
  const lastCallMessage = pairs.reduce((max, p) => Math.max(max, p.call.message), -1);
  if (pair.call.message === lastCallMessage && lastCallMessage === last) return true;
  if (!pair.approval) return false;
  for (let i = pair.call.message + 1; i <= last; i++) if (messages[i]!.role === 'assistant') return false;
  return true;
}
