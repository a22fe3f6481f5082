/**
 * An independent checker of what a provider accepts, on each framework's own message objects: written
 * from the providers' documented request rules, sharing no code with ctxkit (no import of src/: not its
 * adapters, not its `checkInvariants`). The framework tests count violations with it beside ctxkit's
 * own checker, so that "0 violations" does not rest on ctxkit agreeing with itself.
 *
 * Anthropic Messages (the AI SDK's and Mastra's prompts, LangChain's messages, as the providers' own
 * integrations convert them): consecutive messages of one role are merged; the first message is the
 * user's; every `tool_use` is answered by a `tool_result` with its id in the next user message, and
 * every `tool_result` answers a `tool_use` of the assistant message right before; no id is used twice;
 * no message is empty; an assistant turn is not reasoning alone.
 * OpenAI Responses (the Agents SDK's items): every `function_call` has one `function_call_output` (the
 * SDK's `function_call_result`) with its `call_id` after it, every output follows its call, no call id
 * twice, and a reasoning item is followed by the output it produced.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** One Anthropic message as the provider sees it, after merging: its role and its blocks' kinds and ids. */
interface Turn {
  role: 'user' | 'assistant';
  uses: string[];
  results: string[];
  /** Blocks other than tool use and result: text, image, document. */
  other: number;
  reasoning: number;
}

function anthropicRules(turns: Turn[]): string[] {
  const out: string[] = [];
  // Consecutive messages of one role are one message to Anthropic.
  const merged: Turn[] = [];
  for (const t of turns) {
    const last = merged.at(-1);
    if (last && last.role === t.role) {
      last.uses.push(...t.uses);
      last.results.push(...t.results);
      last.other += t.other;
      last.reasoning += t.reasoning;
    } else merged.push({ ...t, uses: [...t.uses], results: [...t.results] });
  }
  if (merged[0] && merged[0].role !== 'user') out.push('the first message is not the user’s');
  const seen = new Set<string>();
  merged.forEach((t, i) => {
    if (t.uses.length + t.results.length + t.other + t.reasoning === 0) out.push(`message ${i} is empty`);
    if (t.role === 'assistant' && t.reasoning > 0 && t.uses.length + t.other === 0)
      out.push(`assistant message ${i} holds reasoning alone`);
    for (const id of t.uses) {
      if (seen.has(id)) out.push(`tool_use id ${id} used twice`);
      seen.add(id);
      const next = merged[i + 1];
      if (next?.role !== 'user' || !next.results.includes(id))
        out.push(`tool_use ${id} (message ${i}) is not answered in the next message`);
    }
    for (const id of t.results) {
      const before = merged[i - 1];
      if (t.role !== 'user' || !before || before.role !== 'assistant' || !before.uses.includes(id))
        out.push(`tool_result ${id} (message ${i}) answers no tool_use of the message before`);
    }
  });
  return out;
}

/**
 * The AI SDK's model-call prompt (and Mastra's): `{ role, content }` with parts `text`, `reasoning`,
 * `tool-call`, `tool-result`, `file`…; system messages are Anthropic's `system` field, not messages;
 * provider-executed calls and their results are server tool blocks, not paired client-side.
 */
export function aiSdkViolations(prompt: readonly unknown[]): string[] {
  const turns: Turn[] = [];
  for (const m of prompt) {
    if (!isObj(m) || m.role === 'system') continue;
    const t: Turn = {
      role: m.role === 'assistant' ? 'assistant' : 'user',
      uses: [],
      results: [],
      other: 0,
      reasoning: 0,
    };
    if (typeof m.content === 'string') t.other += m.content === '' ? 0 : 1;
    for (const p of list(m.content)) {
      if (!isObj(p)) continue;
      if (
        p.providerExecuted === true ||
        p.type === 'tool-approval-request' ||
        p.type === 'tool-approval-response'
      ) {
        t.other++;
        continue;
      }
      if (p.type === 'tool-call') t.uses.push(String(p.toolCallId));
      else if (p.type === 'tool-result') t.results.push(String(p.toolCallId));
      else if (p.type === 'reasoning') t.reasoning++;
      else if (!(p.type === 'text' && p.text === '')) t.other++;
    }
    turns.push(t);
  }
  return anthropicRules(turns);
}

/** LangChain messages: `AIMessage.tool_calls`, `ToolMessage.tool_call_id`, content strings or blocks. */
export function langChainViolations(messages: readonly unknown[]): string[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    if (!isObj(m)) continue;
    const type = typeof m.getType === 'function' ? (m.getType as () => string)() : String(m.type);
    if (type === 'system') continue;
    const t: Turn = {
      role: type === 'ai' ? 'assistant' : 'user',
      uses: [],
      results: [],
      other: 0,
      reasoning: 0,
    };
    if (type === 'tool') t.results.push(String(m.tool_call_id));
    else {
      for (const c of list(m.tool_calls)) if (isObj(c)) t.uses.push(String(c.id));
      if (typeof m.content === 'string') t.other += m.content === '' ? 0 : 1;
      for (const b of list(m.content)) {
        if (!isObj(b)) continue;
        if (b.type === 'thinking' || b.type === 'redacted_thinking' || b.type === 'reasoning') t.reasoning++;
        // A tool_use block mirrors a tool call already counted.
        else if (b.type !== 'tool_use' && !(b.type === 'text' && b.text === '')) t.other++;
      }
    }
    turns.push(t);
  }
  return anthropicRules(turns);
}

/** The Agents SDK's input items against the Responses API's rules. */
export function agentItemsViolations(items: readonly unknown[]): string[] {
  const out: string[] = [];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  items.forEach((item, i) => {
    if (!isObj(item)) return;
    if (item.type === 'function_call') {
      const id = String(item.callId);
      if (calls.has(id)) out.push(`function_call ${id} twice`);
      calls.set(id, i);
    } else if (item.type === 'function_call_result') {
      const id = String(item.callId);
      if (!calls.has(id)) out.push(`function_call_output ${id} (item ${i}) follows no call`);
      if (answered.has(id)) out.push(`function_call_output ${id} twice`);
      answered.add(id);
    } else if (item.type === 'reasoning') {
      // What the reasoning produced: an assistant message or a call (function, hosted, computer…).
      const next = items[i + 1];
      const produced =
        isObj(next) &&
        (next.role === 'assistant' || (typeof next.type === 'string' && next.type.endsWith('_call')));
      if (!produced) out.push(`reasoning item ${i} is not followed by the output it produced`);
    }
  });
  for (const [id, at] of calls)
    if (!answered.has(id)) out.push(`function_call ${id} (item ${at}) has no output`);
  return out;
}
