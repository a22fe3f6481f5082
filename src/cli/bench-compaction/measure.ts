/**
 * Reference recall and reduction. The salient references are those the agent uses in the messages
 * after the cut (its own text and tool-call arguments) that also occurred before the cut; recall is
 * the share of them still present in the compacted context. Reduction = 1 − tokens(compacted) /
 * tokens(prefix), both counted with o200k.
 */
import { extractReferences, type Message, outputText, type TokenCounter } from '../../core/index.ts';

/** All the text a model would see of a message: text, reasoning, tool names and arguments, outputs. */
export function visibleText(message: Message): string {
  const out: string[] = [];
  for (const p of message.parts) {
    if (p.type === 'text' || p.type === 'reasoning') out.push(p.text);
    else if (p.type === 'tool-call') out.push(p.name, p.argsText ?? JSON.stringify(p.args));
    else if (p.type === 'tool-result') out.push(outputText(p.output));
  }
  return out.join('\n');
}

/** What the agent itself wrote: assistant text and tool-call arguments. */
function agentText(message: Message): string {
  if (message.role !== 'assistant') return '';
  const out: string[] = [];
  for (const p of message.parts) {
    if (p.type === 'text') out.push(p.text);
    else if (p.type === 'tool-call') out.push(p.argsText ?? JSON.stringify(p.args));
  }
  return out.join('\n');
}

/** The references the agent uses after the cut that already occurred before it. */
export function salientReferences(prefix: readonly Message[], after: readonly Message[]): string[] {
  const before = new Set(extractReferences(prefix.map(visibleText).join('\n')).keys());
  const used = extractReferences(after.map(agentText).join('\n'));
  return [...used.keys()].filter((r) => before.has(r));
}

export function referenceRecall(references: readonly string[], compacted: readonly Message[]): number {
  if (references.length === 0) return 1;
  const text = compacted.map(visibleText).join('\n');
  return references.filter((r) => text.includes(r)).length / references.length;
}

export function countTokens(messages: readonly Message[], counter: TokenCounter): number {
  let total = 0;
  for (const m of messages) total += counter.countMessage(m);
  return total;
}
