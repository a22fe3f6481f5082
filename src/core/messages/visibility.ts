import type { Message, Part } from './types.ts';

/** Placeholder sent in place of a tool result that was archived but whose call is still visible. */
export const ARCHIVED_RESULT_STUB = '[tool output archived; see the tool summary]';

/**
 * What the model is sent: messages with `agentVisible: false` are left out (003 §5.1). A tool result
 * that was archived while its call stays visible is replaced by a short stub, so that no call is
 * left without its result (the provider would reject the request). Returns the input when nothing
 * is hidden.
 */
export function toModelView(messages: readonly Message[]): Message[] {
  if (!messages.some((m) => m.meta?.agentVisible === false)) return messages as Message[];
  const visibleCalls = new Set<string>();
  for (const m of messages) {
    if (m.meta?.agentVisible === false) continue;
    for (const p of m.parts) if (p.type === 'tool-call') visibleCalls.add(p.id);
  }
  const out: Message[] = [];
  for (const m of messages) {
    if (m.meta?.agentVisible !== false) {
      out.push(m);
      continue;
    }
    if (m.role !== 'tool') continue;
    const stubs: Part[] = [];
    for (const p of m.parts)
      if (p.type === 'tool-result' && visibleCalls.has(p.callId)) {
        const stub: Part = { type: 'tool-result', callId: p.callId, output: ARCHIVED_RESULT_STUB };
        if (p.name) stub.name = p.name;
        stubs.push(stub);
      }
    if (stubs.length > 0)
      out.push({ id: m.id, role: 'tool', parts: stubs, meta: { kind: 'tool_result_stub' } });
  }
  return out;
}
