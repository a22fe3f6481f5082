/**
 * A whole Chat Completions answer written out by hand, for a fake provider's `raw` reply: a call of
 * `recall` (or a plain text answer) with `usage` exactly as given — what a provider that reports
 * garbage (negative, fractional, absurd counts) sends.
 */
import type { ProviderReply } from './fake-provider-server.ts';

export function rawChatAnswer(id: string, usage: unknown, o: { callsRecall?: boolean } = {}): ProviderReply {
  const calls = o.callsRecall ?? true;
  const call = { id, type: 'function', function: { name: 'recall', arguments: '{"query":"release token"}' } };
  return {
    kind: 'raw',
    body: JSON.stringify({
      id: `chatcmpl-${id}`,
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          message: calls
            ? { role: 'assistant', content: null, tool_calls: [call] }
            : { role: 'assistant', content: 'done' },
          finish_reason: calls ? 'tool_calls' : 'stop',
        },
      ],
      usage,
    }),
  };
}
