/**
 * A real agent trajectory (../shared/data, OpenAI-shaped) replayed through the proxy call by call, as
 * its agent made them: each call sends the history up to an assistant message, and the fake provider
 * answers with that message (its text and tool calls), so the next call's history holds what the proxy
 * logged. Reasoning, usage and metadata are left out of what is sent (a Chat Completions client sends
 * none of them). The trajectory carries no system prompt or tool schemas: the replay sends a system
 * prompt of its own and a schema for each tool the trajectory calls, with the argument names it uses.
 */
import { readFileSync } from 'node:fs';
import type { FakeToolCall } from '../../support/fake-provider-server.ts';

interface TrajectoryMessage {
  role: string;
  content: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

export const REPLAY_SYSTEM =
  'You are a coding agent working in the user’s repository. Read before you edit, run the tests after every change, and commit only what passes.';

/** The trajectory's messages as a Chat Completions client sends them. */
export function wireMessages(file: string): TrajectoryMessage[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { messages: TrajectoryMessage[] };
  return raw.messages.map((m) => ({
    role: m.role,
    content: m.content ?? null,
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  }));
}

/** A schema per tool the messages call: its name and the argument names the calls use. */
export function toolSchemas(messages: readonly TrajectoryMessage[]): unknown[] {
  const args = new Map<string, Set<string>>();
  for (const m of messages)
    for (const c of m.tool_calls ?? []) {
      const keys = args.get(c.function.name) ?? new Set<string>();
      try {
        for (const k of Object.keys(JSON.parse(c.function.arguments) as object)) keys.add(k);
      } catch {}
      args.set(c.function.name, keys);
    }
  return [...args].map(([name, keys]) => ({
    type: 'function',
    function: {
      name,
      description: `The ${name} tool of the agent (schema built from the calls the trajectory makes).`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries([...keys].map((k) => [k, { type: 'string' }])),
      },
    },
  }));
}

/** The calls of the replay: the history before each of the first `max` assistant messages, and the answer. */
export function replayCalls(
  messages: readonly TrajectoryMessage[],
  max: number,
): Array<{ history: TrajectoryMessage[]; answer: { text: string; toolCalls: FakeToolCall[] } }> {
  const out: Array<{ history: TrajectoryMessage[]; answer: { text: string; toolCalls: FakeToolCall[] } }> =
    [];
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || i === 0 || out.length >= max) return;
    out.push({
      history: messages.slice(0, i),
      answer: {
        text: typeof m.content === 'string' ? m.content : '',
        toolCalls: (m.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          args: JSON.parse(c.function.arguments) as Record<string, unknown>,
        })),
      },
    });
  });
  return out;
}
