import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/messages/types.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';

const msg = (id: string, text: string, role: Message['role'] = 'user'): Message => ({
  id,
  role,
  parts: [{ type: 'text', text }],
});

/** The pre-flight checks a history that extends the last one in its new messages only: it must still see every fault. */
describe('the input check after a history it checked before', () => {
  const history = () => [msg('u1', 'hi'), msg('a1', 'hello', 'assistant'), msg('u2', 'next')];

  it('refuses a new message that reuses an id of the history before it', async () => {
    const p = createPipeline({ budget: { contextWindow: 32_000 } });
    const h = history();
    await p.prepare({ messages: h });
    await expect(p.prepare({ messages: [...h, msg('a1', 'again', 'assistant')] })).rejects.toThrow(
      /duplicate message id "a1" at messages\[1\] and messages\[3\]/,
    );
    // A refused call leaves nothing half-done: the same history, fixed, is taken; the faulty one is still refused.
    await expect(p.prepare({ messages: [...h, msg('a2', 'ok', 'assistant')] })).resolves.toBeDefined();
    await expect(p.prepare({ messages: [...h, msg('u1', 'dup')] })).rejects.toThrow(
      /duplicate message id "u1"/,
    );
  });

  it('checks again a history changed in place in the same array', async () => {
    const p = createPipeline({ budget: { contextWindow: 32_000 } });
    const h = history();
    await p.prepare({ messages: h });
    h[1] = { id: 'u1', role: 'assistant', parts: [{ type: 'text', text: 'same id as the first' }] };
    await expect(p.prepare({ messages: h })).rejects.toThrow(/duplicate message id "u1"/);
    h[1] = { id: 'a1', role: 'robot', parts: [] } as unknown as Message;
    await expect(p.prepare({ messages: h })).rejects.toThrow(/role/);
  });
});
