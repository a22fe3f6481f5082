import type { Dialect, Message, Part, ToolResultPart } from '../messages/types.ts';
import { pairToolCalls } from './pairing.ts';

/** CowAgent's synthesised result text for a call whose result is missing (SEED-RULES §1.12). */
export const MISSING_RESULT_TEXT =
  'Error: Missing tool_result adjacent to tool_use (session repair). The conversation history was inconsistent; continue from here.';

export type RepairKind =
  | 'synthesized-result'
  | 'dropped-orphan-result'
  | 'dropped-duplicate-result'
  | 'moved-result'
  | 'renamed-call-id'
  | 'dropped-empty-message';

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
 * reported. Results are re-paired with the nearest preceding open call; orphan and duplicate results
 * are dropped; missing results are synthesised; results are moved into the tool block right after
 * their call; reused ids are renamed for Anthropic; empty messages are dropped. Returns the input
 * itself when nothing needed repair.
 */
export function repairMessages(input: readonly Message[], options: RepairOptions = {}): RepairResult {
  const repairs: Repair[] = [];
  const { pairs, orphanResults, duplicateResults } = pairToolCalls(input);
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
  for (const r of duplicateResults) {
    drop.add(`${r.message}:${r.part}`);
    repairs.push({
      kind: 'dropped-duplicate-result',
      messageId: input[r.message]!.id,
      callId: r.callId,
      detail: 'call already answered',
    });
  }

  // Rename reused ids for Anthropic (ids must be unique per request).
  const rename = new Map<string, string>(); // "m:p" → new id, for calls and their results
  if (options.dialect === 'anthropic') {
    const used = new Set(pairs.map((p) => p.callId));
    const seen = new Set<string>();
    for (const p of pairs) {
      if (!seen.has(p.callId)) {
        seen.add(p.callId);
        continue;
      }
      let n = 2;
      while (used.has(`${p.callId}_${n}`)) n++;
      const fresh = `${p.callId}_${n}`;
      used.add(fresh);
      rename.set(`${p.call.message}:${p.call.part}`, fresh);
      if (p.result) rename.set(`${p.result.message}:${p.result.part}`, fresh);
      repairs.push({
        kind: 'renamed-call-id',
        messageId: input[p.call.message]!.id,
        callId: p.callId,
        detail: `renamed to ${fresh}`,
      });
    }
  }

  // Which results must move to sit in the tool block after their call (dialect adjacency)?
  const lastIndex = input.length - 1;
  const moveAfter = new Map<number, ToolResultPart[]>(); // calling message index → results to place after it
  const synthAfter = new Map<number, ToolResultPart[]>();
  for (const p of pairs) {
    const callMsg = p.call.message;
    if (!p.result) {
      if (options.allowPendingCalls && callMsg === lastIndex) continue;
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

  if (repairs.length === 0) return { messages: input as Message[], repairs };

  const out: Message[] = [];
  const pendingInsert = (callMsg: number) => {
    const parts = [...(moveAfter.get(callMsg) ?? []), ...(synthAfter.get(callMsg) ?? [])];
    if (parts.length === 0) return;
    const anchor = input[callMsg]!;
    out.push({
      id: `${anchor.id}~repair`,
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
      } else if (id && p.type === 'tool-result') {
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
  return { messages: out, repairs };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function renamed(rename: Map<string, string>, ref: { message: number; part: number }): string | undefined {
  return rename.get(`${ref.message}:${ref.part}`);
}
