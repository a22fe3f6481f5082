/**
 * The official `@anthropic-ai/sdk` through ctxkit's drop-in proxy: only `baseURL`, `apiKey` (the
 * ctxkit key, sent as `x-api-key`) and the session header change. Run against `npm start`:
 *
 *   CTXKIT_URL=http://127.0.0.1:8787 CTXKIT_KEY=ctx_… npx tsx examples/proxy-anthropic.ts
 *
 * (`CTXKIT_MODEL` picks the model, `CTXKIT_SESSION` the session; the service forwards to
 * `UPSTREAM_ANTHROPIC_BASE_URL` with `UPSTREAM_ANTHROPIC_API_KEY`).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ExampleOptions } from './proxy-openai.ts';

export async function runAnthropicExample(options: ExampleOptions) {
  const client = new Anthropic({
    baseURL: `${options.url}/v1/proxy/anthropic`,
    apiKey: options.key,
    defaultHeaders: { 'x-ctxkit-session': options.session },
  });
  const model = options.model ?? 'claude-sonnet-4-6';
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What does a context window limit?' }];
  const { data: first, response } = await client.messages
    .create({ model, max_tokens: 256, system: 'You answer in one sentence.', messages })
    .withResponse();
  messages.push(
    { role: 'assistant', content: first.content },
    { role: 'user', content: 'And how do agents stay inside it?' },
  );
  const stream = client.messages.stream({ model, max_tokens: 256, system: 'You answer in one sentence.', messages });
  const second = await stream.finalMessage();
  const text = (m: Anthropic.Message) =>
    m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return {
    first: text(first),
    second: text(second),
    tokensAfter: response.headers.get('x-ctxkit-tokens-after'),
    journal: response.headers.get('x-ctxkit-journal'),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.CTXKIT_URL ?? 'http://127.0.0.1:8787';
  const key = process.env.CTXKIT_KEY;
  if (!key) {
    console.error('set CTXKIT_KEY (npm start prints the development key)');
    process.exit(2);
  }
  const session = process.env.CTXKIT_SESSION ?? 'example-anthropic';
  const model = process.env.CTXKIT_MODEL; // a model the upstream serves (e.g. a local server's)
  console.log(await runAnthropicExample({ url, key, session, ...(model ? { model } : {}) }));
}
