/**
 * Entry for the provider portability check: the real `openai` SDK and the summarizer, with an
 * injected `fetch` that answers like a Chat Completions server (no network), first a 500 then JSON.
 */
import { createOpenAISummarizer } from '../../../src/providers/index.ts';

export default async function run(): Promise<unknown> {
  const seen: Array<{ url: string; model: string; tools: boolean }> = [];
  let calls = 0;
  const fakeFetch = (async (url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { model: string; tools?: unknown };
    seen.push({ url: String(url), model: body.model, tools: body.tools !== undefined });
    calls += 1;
    if (calls === 1)
      return new Response(JSON.stringify({ error: { message: 'busy' } }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after-ms': '1' },
      });
    const answer = {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '{"summary": "portable", "memories": [{"type": "user", "title": "t", "content": "c"}]}',
          },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    return new Response(JSON.stringify(answer), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  const summarizer = createOpenAISummarizer({
    baseURL: 'https://llm.invalid/v1',
    apiKey: 'k',
    model: 'big',
    summarizationModel: 'small',
    fetch: fakeFetch,
    sleep: async () => {},
  });
  const result = await summarizer.summarize({
    purpose: 'compaction',
    preset: 'kosmokrator',
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
  });
  return { result, seen };
}
