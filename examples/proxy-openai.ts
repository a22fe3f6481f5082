/**
 * The official `openai` SDK through ctxkit's drop-in proxy: only `baseURL`, `apiKey` (the ctxkit
 * key) and the session header change. Run against `npm start`:
 *
 *   CTXKIT_URL=http://127.0.0.1:8787 CTXKIT_KEY=ctx_… npx tsx examples/proxy-openai.ts
 *
 * (`CTXKIT_MODEL` picks the model, `CTXKIT_SESSION` the session; the service forwards to
 * `UPSTREAM_OPENAI_BASE_URL` with `UPSTREAM_OPENAI_API_KEY`).
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

export interface ExampleOptions {
  /** The ctxkit service, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** A ctxkit API key. */
  key: string;
  session: string;
  model?: string;
}

export async function runOpenAIExample(options: ExampleOptions) {
  const client = new OpenAI({
    baseURL: `${options.url}/v1/proxy/openai`,
    apiKey: options.key,
    defaultHeaders: { 'x-ctxkit-session': options.session },
  });
  const model = options.model ?? 'gpt-4o-mini';
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer in one sentence.' },
    { role: 'user', content: 'What does a context window limit?' },
  ];
  // The agent keeps sending its whole history; ctxkit sends the provider what fits.
  const { data: first, response } = await client.chat.completions.create({ model, messages }).withResponse();
  messages.push(first.choices[0]!.message, { role: 'user', content: 'And how do agents stay inside it?' });
  const stream = await client.chat.completions.create({
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  let second = '';
  for await (const chunk of stream) second += chunk.choices[0]?.delta?.content ?? '';
  return {
    first: first.choices[0]!.message.content ?? '',
    second,
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
  const session = process.env.CTXKIT_SESSION ?? 'example-openai';
  const model = process.env.CTXKIT_MODEL; // a model the upstream serves (e.g. a local server's)
  console.log(await runOpenAIExample({ url, key, session, ...(model ? { model } : {}) }));
}
