/**
 * Tool messages as tool-result archiving and 003's compaction digest read them: a result's tool name,
 * call id, status and text, whether it may be archived, and the user-role message a digest is written
 * in. Shared by archiving.ts and recent-digest.ts; not part of the public API.
 */
import { outputText } from '../../messages/text.ts';
import type { Message, ToolCallPart } from '../../messages/types.ts';
import { resultToolName } from './stage-kit.ts';

/** One tool message seen as a 003 `toolResult`. */
export interface ToolItem {
  name: string;
  callId: string;
  isError: boolean;
  text: string;
}

export function itemOf(m: Message, calls: ReadonlyMap<string, ToolCallPart>): ToolItem {
  let name = '';
  let callId = '';
  let isError = false;
  let text = '';
  for (const p of m.parts) {
    if (p.type === 'tool-result') {
      if (callId === '') {
        callId = p.callId;
        name = resultToolName(p, calls) ?? '';
      }
      if (p.isError) isError = true;
      text += outputText(p.output);
    } else if (p.type === 'text') text += p.text;
  }
  return { name: name.trim(), callId: callId.trim(), isError, text };
}

export const status = (item: ToolItem) => (item.isError ? 'error' : 'ok');
export const visibleTool = (m: Message) => m.role === 'tool' && m.meta?.agentVisible !== false;

export function archivable(
  m: Message,
  calls: ReadonlyMap<string, ToolCallPart>,
  excludeTools: ReadonlySet<string>,
): boolean {
  if (m.meta?.pinned === true) return false;
  for (const p of m.parts) {
    if (p.type !== 'tool-result') continue;
    const name = resultToolName(p, calls);
    if (name !== undefined && excludeTools.has(name)) return false;
  }
  return true;
}

export function summaryMessage(id: string, text: string | Message['parts']): Message {
  return {
    id,
    role: 'user',
    parts: typeof text === 'string' ? [{ type: 'text', text }] : text,
    meta: { kind: 'tool_summary', agentVisible: true, userVisible: false },
  };
}
