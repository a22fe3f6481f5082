/**
 * A prompt plan as plain text: one system prompt and one user prompt, the shape every model client
 * takes (`generateText({ system, prompt })`, a LangChain `invoke([system, user])`). Most families are
 * already that; co-cli's dropped history (chat turns with tool calls, SEED-RULES §3.3) is written out
 * as a role-tagged transcript in front of its instruction.
 */
import type { OpenAIMessage } from '../../adapters/openai.ts';
import type { JsonValue } from '../../messages/types.ts';
import type { PromptPlan } from './types.ts';

export interface PlanText {
  system: string;
  prompt: string;
}

function contentText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => {
      if (typeof p !== 'object' || p === null || Array.isArray(p)) return '';
      if (typeof p.text === 'string') return p.text;
      if (typeof p.refusal === 'string') return p.refusal;
      return p.type === 'image_url' ? '[image]' : '';
    })
    .join('');
}

/** One history message as transcript lines: `[user]: …`, `[assistant → tool_call]: name(args)`, `[tool_result name]: …`. */
export function chatTurnLines(message: OpenAIMessage): string[] {
  const m = message as unknown as Record<string, JsonValue | undefined>;
  const text = contentText(m.content);
  const lines: string[] = [];
  if (m.role === 'tool') {
    const name = typeof m.name === 'string' ? ` ${m.name}` : '';
    return [`[tool_result${name}]: ${text}`];
  }
  if (text !== '') lines.push(`[${String(m.role)}]: ${text}`);
  if (m.role === 'assistant' && Array.isArray(m.tool_calls))
    for (const call of m.tool_calls) {
      if (typeof call !== 'object' || call === null || Array.isArray(call)) continue;
      const fn = call.function;
      if (typeof fn !== 'object' || fn === null || Array.isArray(fn)) continue;
      lines.push(`[assistant → tool_call]: ${String(fn.name)}(${String(fn.arguments)})`);
    }
  return lines;
}

/**
 * `{ system, prompt }` of a plan: the leading system message(s) joined, then the last message as the
 * prompt; messages in between (co-cli's history) go in front of it inside `<conversation>` tags.
 */
export function planText(plan: PromptPlan): PlanText {
  const messages = plan.messages;
  let start = 0;
  const system: string[] = [];
  while (start < messages.length && messages[start]!.role === 'system') {
    system.push(contentText(messages[start]!.content as JsonValue));
    start++;
  }
  const last = messages.length > start ? messages[messages.length - 1]! : undefined;
  const instruction = last ? contentText(last.content as JsonValue | undefined) : '';
  const history = messages.slice(start, Math.max(start, messages.length - 1));
  const lines = history.flatMap(chatTurnLines);
  const prompt =
    lines.length === 0
      ? instruction
      : `<conversation>\n${lines.join('\n')}\n</conversation>\n\n${instruction}`;
  return { system: system.join('\n\n'), prompt };
}
