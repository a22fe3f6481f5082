/**
 * The deterministic summarizer's texts for tool results (003's heuristic): `tool-result` gives the
 * status and an 800-character head+tail excerpt, `tool-batch` one line per result.
 */
import { outputText } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import type { SummarizeRequest } from '../ports.ts';
import { trimRunes, trimTextWithTail } from '../text/trim.ts';

function toolName(
  messages: readonly Message[],
  callId: string,
  name: string | undefined,
): string | undefined {
  if (name) return name;
  for (const m of messages)
    for (const p of m.parts) if (p.type === 'tool-call' && p.id === callId) return p.name;
  return undefined;
}

export function toolTexts(request: SummarizeRequest): string {
  const items = request.messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'tool-result' ? [p] : [])),
  );
  if (request.purpose === 'tool-result') {
    const p = items[0];
    const name = p ? (toolName(request.messages, p.callId, p.name) ?? 'unknown') : 'unknown';
    const text = p ? outputText(p.output) : '';
    return `Tool "${name}" finished with status ${p?.isError ? 'error' : 'ok'}. Output excerpt:\n${trimTextWithTail(text, 800)}`;
  }
  return items
    .map((p) => {
      const name = toolName(request.messages, p.callId, p.name) ?? 'unknown';
      const text = trimRunes(outputText(p.output).replaceAll('\n', ' '), 220);
      return `- [${p.callId || 'n/a'}] ${name} (${p.isError ? 'error' : 'ok'}): ${text}`;
    })
    .join('\n');
}
