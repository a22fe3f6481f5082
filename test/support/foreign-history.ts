/**
 * A short history as another adapter reads it (Chat Completions here): a user turn, a call that also
 * carries an approval request and a Responses hosted item (a foreign opaque part), and its multi-part
 * result (text, an image by URL, a file by id). The framework adapters' tests write it out to check
 * what each does with parts from elsewhere.
 */
import { fromOpenAI } from '../../src/core/adapters/openai.ts';
import type { Message } from '../../src/core/messages/types.ts';

export function foreignHistory(): { user: Message; call: Message; tool: Message } {
  const [user, call, tool] = fromOpenAI([
    { role: 'user', content: 'shoot' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
    },
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: [
        { type: 'text', text: 'the page' },
        { type: 'image_url', image_url: { url: 'https://x.test/p.png' } },
        { type: 'file', file: { file_id: 'file-1' } },
      ],
    },
  ]);
  return {
    user: user!,
    call: {
      ...call!,
      parts: [
        ...call!.parts,
        { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'request' },
        { type: 'opaque', source: 'responses', kind: 'web_search_call', value: { type: 'web_search_call' } },
      ],
    },
    tool: tool!,
  };
}
