/**
 * Invariant repair that costs work in the new messages only. When the previous input needed no repair
 * and left no call open, and the new input extends it (some of its messages possibly replaced by copies
 * that differ in tool output only), the new input needs a repair only if the new
 * messages need one on their own (a result for an old call would be an orphan there, so it is caught),
 * or — for Anthropic — reuse a call id of the prefix, or bring a late system message (where the
 * dialect forbids one). Otherwise it is
 * the full `repairMessages`.
 */
import { pairToolCalls } from '../../invariants/pairing.ts';
import { type RepairOptions, type RepairResult, repairMessages } from '../../invariants/repair.ts';
import type { Message, Part } from '../../messages/types.ts';

export type Repairer = (messages: readonly Message[], options: RepairOptions) => RepairResult;

interface Clean {
  input: readonly Message[];
  key: string;
  callIds: Set<string>;
  hasNonSystem: boolean;
}

/**
 * Repair reads no tool output: a result part that differs from another in its output (and content
 * parts) only — dedup's and pruning's markers, a truncated output, an archived result's stub — gets
 * the same decisions, and so does a message whose parts are all the same or such results.
 */
function sameButOutput(a: Part, b: Part): boolean {
  return (
    a === b ||
    (a.type === 'tool-result' &&
      b.type === 'tool-result' &&
      a.callId === b.callId &&
      a.name === b.name &&
      a.isError === b.isError &&
      a.denied === b.denied &&
      a.extra === b.extra &&
      a.provider === b.provider)
  );
}

function sameShape(a: Message, b: Message): boolean {
  if (a.role !== b.role || a.parts.length !== b.parts.length) return false;
  for (let i = 0; i < a.parts.length; i++) if (!sameButOutput(a.parts[i]!, b.parts[i]!)) return false;
  return true;
}

/** `input` is `previous` with messages added after it, some of its messages replaced by `sameShape` copies. */
function extendsPrefix(input: readonly Message[], previous: readonly Message[]): boolean {
  if (input.length < previous.length) return false;
  for (let i = previous.length - 1; i >= 0; i--)
    if (input[i] !== previous[i] && !sameShape(input[i]!, previous[i]!)) return false;
  return true;
}

function callIdsOf(messages: readonly Message[], into: Set<string>): Set<string> {
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') into.add(p.id);
  return into;
}

const CONTEXT_TURN: Message = { id: '\u0000context', role: 'user', parts: [{ type: 'text', text: '' }] };

/** A repairer remembering the last clean input, one per option set (working context, each dialect). */
export function createRepairMemo(): Repairer {
  const clean = new Map<string, Clean>();
  return (messages, options) => {
    const key = `${options.dialect ?? ''}|${options.allowPendingCalls === true}`;
    const last = clean.get(key);
    if (last && extendsPrefix(messages, last.input)) {
      const added = messages.slice(last.input.length);
      if (added.length === 0) {
        clean.set(key, { ...last, input: messages });
        return { messages: messages as Message[], repairs: [] };
      }
      // Gemini checks that a function call turn follows a user turn: give the new messages the role
      // they follow (a placeholder user turn when the prefix ends with one, never returned).
      const tail = last.input.at(-1)?.role;
      const context = options.dialect === 'gemini' && (tail === 'user' || tail === 'tool');
      const local = repairMessages(context ? [CONTEXT_TURN, ...added] : added, options);
      const newIds = callIdsOf(added, new Set());
      const idClash = options.dialect === 'anthropic' && [...newIds].some((id) => last.callIds.has(id));
      const lateSystem =
        options.dialect !== undefined &&
        options.dialect !== 'openai' &&
        options.dialect !== 'responses' &&
        last.hasNonSystem &&
        added.some((m) => m.role === 'system');
      if (local.repairs.length === 0 && !idClash && !lateSystem && closed(added)) {
        for (const id of newIds) last.callIds.add(id);
        clean.set(key, {
          ...last,
          input: messages,
          hasNonSystem: last.hasNonSystem || added.some((m) => m.role !== 'system'),
        });
        return { messages: messages as Message[], repairs: [] };
      }
    }
    const result = repairMessages(messages, options);
    if (result.repairs.length === 0 && closed(messages))
      clean.set(key, {
        input: messages,
        key,
        callIds: callIdsOf(messages, new Set()),
        hasNonSystem: messages.some((m) => m.role !== 'system'),
      });
    else clean.delete(key);
    return result;
  };
}

/** Every call has its result (no call left open for the next messages to answer). */
function closed(messages: readonly Message[]): boolean {
  return pairToolCalls(messages).pairs.every((p) => p.result !== undefined);
}
