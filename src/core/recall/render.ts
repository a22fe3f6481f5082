/**
 * The text of an archived message as the recall tools hand it back: its role, then every part in
 * order (text, tool calls with their arguments, tool results with their output), nothing summarised
 * or cut. Deterministic, so that an offset into it means the same on every call.
 */
import { contentText, opaqueText, outputText } from '../messages/text.ts';
import type { Message, Part } from '../messages/types.ts';

function partText(p: Part): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'reasoning':
      return p.redacted ? '' : `(reasoning) ${p.text}`;
    case 'tool-call':
      return `(call ${p.name} ${p.id}) ${JSON.stringify(p.args)}`;
    case 'tool-result': {
      const body = p.content ? `${outputText(p.output)}${contentText(p.content)}` : outputText(p.output);
      return `(result of ${p.callId}${p.isError ? ', error' : ''}) ${body}`;
    }
    case 'image':
      return `(image ${typeof p.url === 'string' && !p.url.startsWith('data:') ? p.url : ''})`;
    case 'opaque':
    case 'tool-approval':
      return opaqueText(p);
    default:
      return '';
  }
}

/** `role: text`, parts separated by blank lines. */
export function renderMessage(message: Message): string {
  const parts = message.parts.map(partText).filter((t) => t !== '');
  return `${message.role}: ${parts.join('\n\n')}`;
}
