import type { Dialect, JsonValue, Message, Part, ToolCallPart, ToolResultPart } from '../messages/types.ts';
import { isPendingCall, pairToolCalls } from './pairing.ts';
import {
  ANTHROPIC_TOOL_ID,
  isReasoningOnly,
  misplacedCallTurns,
  separatedCalls,
  unfollowedReasoning,
} from './reasoning.ts';

/** CowAgent's synthesised result text for a call whose result is missing (SEED-RULES §1.12). */
export const MISSING_RESULT_TEXT =
  'Error: Missing tool_result adjacent to tool_use (session repair). The conversation history was inconsistent; continue from here.';

export type RepairKind =
  | 'synthesized-result'
  | 'dropped-orphan-result'
  | 'dropped-duplicate-result'
  | 'dropped-orphan-approval'
  | 'moved-result'
  | 'renamed-call-id'
  | 'dropped-empty-message'
  | 'dropped-reasoning-only-message'
  | 'dropped-unfollowed-reasoning'
  | 'detached-call-from-reasoning'
  | 'inserted-user-turn';

export interface Repair {
  kind: RepairKind;
  messageId: string;
  callId?: string;
  detail: string;
}

export interface RepairResult {
  messages: Message[];
  repairs: Repair[];
}

export interface RepairOptions {
  dialect?: Dialect;
  /** Leave a trailing unanswered call alone (the agent is about to run it). @default false */
  allowPendingCalls?: boolean;
}

/**
 * Makes a conversation acceptable to a provider without losing anything silently: every change is
 * reported. For a dialect, assistant messages holding only reasoning are dropped, and for Responses a
 * reasoning item with no item after it; a call whose Responses reasoning item is gone is detached from
 * it (its item id, which the API would check, is dropped). Results are re-paired with the nearest
 * preceding open call; orphan and duplicate results are dropped; missing results are synthesised;
 * results are moved into the tool block right after their call; for Anthropic, reused ids and ids
 * outside `^[a-zA-Z0-9_-]+$` are renamed (call and result alike); empty messages are dropped. Signed
 * and encrypted reasoning is never changed: it is kept whole or dropped with its message. Returns the
 * input itself when nothing needed repair.
 */
export function repairMessages(original: readonly Message[], options: RepairOptions = {}): RepairResult {
  const repairs: Repair[] = [];
  const input = repairReasoning(original, options.dialect, repairs);
  const { pairs, orphanResults, duplicateResults, orphanApprovals, approvals } = pairToolCalls(input);
  const drop = new Set<string>(); // "m:p" keys of result parts to drop from their place
  for (const r of orphanResults) {
    drop.add(`${r.message}:${r.part}`);
    repairs.push({
      kind: 'dropped-orphan-result',
      messageId: input[r.message]!.id,
      callId: r.callId,
      detail: 'no call before it',
    });
  }
  for (const a of orphanApprovals) {
    drop.add(`${a.message}:${a.part}`);
    repairs.push({
      kind: 'dropped-orphan-approval',
      messageId: input[a.message]!.id,
      callId: a.callId,
      detail: 'no call before it',
    });
  }
  for (const r of duplicateResults) {
    drop.add(`${r.message}:${r.part}`);
    repairs.push({
      kind: 'dropped-duplicate-result',
      messageId: input[r.message]!.id,
      callId: r.callId,
      detail: 'call already answered',
    });
  }

  // Rename ids for Anthropic: reused ones (ids must be unique per request) and those outside
  // ^[a-zA-Z0-9_-]+$ (Kimi's `kimi!uuid!2`…); the call and its result get the same new id.
  const rename = new Map<string, string>(); // "m:p" → new id, for calls and their results
  if (options.dialect === 'anthropic') {
    const used = new Set(pairs.map((p) => p.callId));
    const seen = new Set<string>();
    for (const p of pairs) {
      const valid = ANTHROPIC_TOOL_ID.test(p.callId);
      if (valid && !seen.has(p.callId)) {
        seen.add(p.callId);
        continue;
      }
      const base = valid ? p.callId : p.callId.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
      let fresh = base;
      if (valid || used.has(base) || seen.has(base)) {
        let n = 2;
        while (used.has(`${base}_${n}`)) n++;
        fresh = `${base}_${n}`;
      }
      used.add(fresh);
      seen.add(fresh);
      rename.set(`${p.call.message}:${p.call.part}`, fresh);
      if (p.result) rename.set(`${p.result.message}:${p.result.part}`, fresh);
      repairs.push({
        kind: 'renamed-call-id',
        messageId: input[p.call.message]!.id,
        callId: p.callId,
        detail: `${valid ? 'reused id' : 'id not accepted by Anthropic'} renamed to ${fresh}`,
      });
    }
  }

  // An approval follows its call's new id.
  for (const a of approvals) {
    const call = pairs[a.pair]!.call;
    const fresh = rename.get(`${call.message}:${call.part}`);
    if (fresh !== undefined) rename.set(`${a.message}:${a.part}`, fresh);
  }

  // Which results must move to sit in the tool block after their call (dialect adjacency)?
  const moveAfter = new Map<number, ToolResultPart[]>(); // calling message index → results to place after it
  const synthAfter = new Map<number, ToolResultPart[]>();
  for (const p of pairs) {
    const callMsg = p.call.message;
    if (!p.result) {
      if (options.allowPendingCalls && isPendingCall(input, pairs, p)) continue;
      const part: ToolResultPart = {
        type: 'tool-result',
        callId: renamed(rename, p.call) ?? p.callId,
        name: p.name,
        output: MISSING_RESULT_TEXT,
        isError: true,
      };
      push(synthAfter, callMsg, part);
      repairs.push({
        kind: 'synthesized-result',
        messageId: input[callMsg]!.id,
        callId: p.callId,
        detail: 'call had no result',
      });
      continue;
    }
    if (!options.dialect) continue;
    let j = callMsg + 1;
    while (j < p.result.message && input[j]!.role === 'tool') j++;
    if (j === p.result.message && input[j]!.role === 'tool') continue;
    const original = input[p.result.message]!.parts[p.result.part] as ToolResultPart;
    const id = renamed(rename, p.result);
    push(moveAfter, callMsg, id ? { ...original, callId: id } : original);
    drop.add(`${p.result.message}:${p.result.part}`);
    repairs.push({
      kind: 'moved-result',
      messageId: input[p.result.message]!.id,
      callId: p.callId,
      detail: `moved next to ${input[callMsg]!.id}`,
    });
  }

  if (repairs.length === 0) {
    const turns = options.dialect === 'gemini' ? userTurnsFor(original, repairs) : original;
    return { messages: turns as Message[], repairs };
  }

  const out: Message[] = [];
  // A working context repaired before (a call kept pending then) may hold `~repair` already.
  const taken = new Set(input.map((m) => m.id));
  const freshId = (base: string) => {
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
    taken.add(id);
    return id;
  };
  const pendingInsert = (callMsg: number) => {
    const parts = [...(moveAfter.get(callMsg) ?? []), ...(synthAfter.get(callMsg) ?? [])];
    if (parts.length === 0) return;
    const anchor = input[callMsg]!;
    out.push({
      id: freshId(`${anchor.id}~repair`),
      role: 'tool',
      parts,
      meta: { kind: 'tool_result', repaired: true },
    });
  };
  let pendingFor: number | undefined;
  input.forEach((m, mi) => {
    // Flush the repaired results once the tool block after their call ends.
    if (pendingFor !== undefined && m.role !== 'tool') {
      pendingInsert(pendingFor);
      pendingFor = undefined;
    }
    let changed = false;
    const parts: Part[] = [];
    m.parts.forEach((p, pi) => {
      const key = `${mi}:${pi}`;
      if (drop.has(key)) {
        changed = true;
        return;
      }
      const id = rename.get(key);
      if (id && p.type === 'tool-call') {
        parts.push({ ...p, id });
        changed = true;
      } else if (id && (p.type === 'tool-result' || p.type === 'tool-approval')) {
        parts.push({ ...p, callId: id });
        changed = true;
      } else parts.push(p);
    });
    if (changed && parts.length === 0) {
      if (!(m.role === 'tool'))
        repairs.push({ kind: 'dropped-empty-message', messageId: m.id, detail: 'nothing left after repair' });
    } else if (parts.length === 0 && options.dialect === 'anthropic') {
      repairs.push({ kind: 'dropped-empty-message', messageId: m.id, detail: 'empty content' });
    } else out.push(changed ? { ...m, parts } : m);
    if (moveAfter.has(mi) || synthAfter.has(mi)) {
      if (pendingFor !== undefined) pendingInsert(pendingFor);
      pendingFor = mi;
    }
  });
  if (pendingFor !== undefined) pendingInsert(pendingFor);
  return { messages: options.dialect === 'gemini' ? userTurnsFor(out, repairs) : out, repairs };
}

/** The text of the user turn put before a Gemini function call turn that has none (a trimmed start). */
export const TRIMMED_TURN_TEXT = '(Earlier messages of this conversation were trimmed.)';

/** Gemini: a user turn before each function call turn that would open the conversation or follow a model turn. */
function userTurnsFor(messages: readonly Message[], repairs: Repair[]): Message[] {
  const misplaced = new Set(misplacedCallTurns(messages));
  if (misplaced.size === 0) return messages as Message[];
  const out: Message[] = [];
  messages.forEach((m, i) => {
    if (misplaced.has(i)) {
      out.push({
        id: `${m.id}~turn`,
        role: 'user',
        parts: [{ type: 'text', text: TRIMMED_TURN_TEXT }],
        meta: { kind: 'repair', repaired: true },
      });
      repairs.push({
        kind: 'inserted-user-turn',
        messageId: m.id,
        detail: 'Gemini takes a function call turn only after a user or function response turn',
      });
    }
    out.push(m);
  });
  return out;
}

/**
 * The reasoning rules, before pairing: drops reasoning-only assistant messages and (Responses)
 * reasoning items with nothing after them, then detaches calls whose reasoning item is gone. Returns
 * `input` itself when nothing changed.
 */
function repairReasoning(
  input: readonly Message[],
  dialect: Dialect | undefined,
  repairs: Repair[],
): readonly Message[] {
  let out: Message[] | undefined;
  input.forEach((m, i) => {
    let next: Message | undefined = m;
    if (dialect && isReasoningOnly(m)) {
      repairs.push({
        kind: 'dropped-reasoning-only-message',
        messageId: m.id,
        detail: 'an assistant message holding only reasoning is rejected by the provider',
      });
      next = undefined;
    } else if (dialect === 'responses') {
      const unfollowed = new Set(unfollowedReasoning(m));
      if (unfollowed.size > 0) {
        repairs.push({
          kind: 'dropped-unfollowed-reasoning',
          messageId: m.id,
          detail: `${unfollowed.size} reasoning item(s) with no item after them`,
        });
        const parts = m.parts.filter((_, pi) => !unfollowed.has(pi));
        next = parts.length > 0 ? { ...m, parts } : undefined;
      }
    }
    if (next) {
      const separated = new Set(separatedCalls(next));
      if (separated.size > 0) {
        const parts = next.parts.map((p, pi) => (separated.has(pi) ? detach(p as ToolCallPart) : p));
        for (const pi of separated)
          repairs.push({
            kind: 'detached-call-from-reasoning',
            messageId: m.id,
            callId: (next.parts[pi] as ToolCallPart).id,
            detail: 'its reasoning item is gone: the call is sent without its item id',
          });
        next = { ...next, parts };
      }
    }
    if (next !== m && !out) out = input.slice(0, i);
    if (out && next) out.push(next);
  });
  return out ?? input;
}

/** The call without its Responses item id and reasoning tag (a client-made call, as the API sees it). */
function detach(p: ToolCallPart): ToolCallPart {
  const { reasoning: _r, item, ...data } = p.provider?.responses ?? {};
  const rest: Record<string, JsonValue> = { ...data };
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const { id: _id, ...itemRest } = item;
    rest.item = itemRest;
  }
  return { ...p, provider: { ...p.provider, responses: rest } };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function renamed(rename: Map<string, string>, ref: { message: number; part: number }): string | undefined {
  return rename.get(`${ref.message}:${ref.part}`);
}

const isPlaceholder = (p: Part): boolean =>
  p.type === 'tool-result' && p.isError === true && p.output === MISSING_RESULT_TEXT;

/**
 * A history repaired while calls were still unanswered holds synthesised results for them; when real
 * results arrive after it, a placeholder would make one a duplicate (and repair would keep the
 * placeholder) or stand in the middle of the results. This withdraws the synthesised results of every
 * `repaired` message that a real result follows in the same tool block; repair synthesises what is still missing again, after
 * the last result. The same array when there is nothing to withdraw.
 */
export function withdrawAnsweredPlaceholders(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | undefined;
  let realAfter = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const repaired = m.meta?.repaired === true;
    if (repaired && realAfter && m.parts.some(isPlaceholder)) {
      out ??= messages.slice();
      const parts = m.parts.filter((p) => !isPlaceholder(p));
      if (parts.length > 0) out[i] = { ...m, parts };
      else out.splice(i, 1);
    }
    // Only results of the same tool block count: a placeholder for a result that never came stays.
    if (m.role !== 'tool') realAfter = false;
    else if (m.parts.some((p) => p.type === 'tool-result' && !(repaired && isPlaceholder(p))))
      realAfter = true;
  }
  return out ?? messages;
}
