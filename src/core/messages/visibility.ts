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
    if (m.meta?.agentVisible !== false) out.push(m);
    else if (m.role === 'tool') {
      const stub = stubOf(m, visibleCalls);
      if (stub) out.push(stub);
    }
  }
  return out;
}

/**
 * The stub of an archived tool message, one object per archived message and set of visible calls:
 * the send of every later pre-flight holds the same stub object, so its count, digest and the
 * repair of the send's unchanged prefix are not computed again.
 */
const stubs = new WeakMap<Message, { key: string; stub: Message }>();

function stubOf(m: Message, visibleCalls: ReadonlySet<string>): Message | undefined {
  const kept = m.parts.filter((p) => p.type === 'tool-result' && visibleCalls.has(p.callId));
  if (kept.length === 0) return undefined;
  const key = kept.map((p) => (p.type === 'tool-result' ? p.callId : '')).join('\u0000');
  const hit = stubs.get(m);
  if (hit?.key === key) return hit.stub;
  const parts: Part[] = [];
  for (const p of kept)
    if (p.type === 'tool-result') {
      const part: Part = { type: 'tool-result', callId: p.callId, output: ARCHIVED_RESULT_STUB };
      if (p.name) part.name = p.name;
      // A failed call stays a failure in the model's view.
      if (p.isError) part.isError = true;
      parts.push(part);
    }
  // The message's own envelope (its provider data: a framework's fields, such as a LangChain
  // ToolMessage's status and artifact) stays with the stub that stands in its place.
  const stub: Message = { ...m, parts, meta: { kind: 'tool_result_stub' } };
  stubs.set(m, { key, stub });
  return stub;
}
