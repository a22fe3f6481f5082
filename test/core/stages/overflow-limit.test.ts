import { describe, expect, it } from 'vitest';
import { isContextOverflowError, learnedWindow, overflowLimit } from '../../../src/core/index.ts';

// Each provider's own wording, as its server sends it (the JSON body where the numbers ride in fields).
const WORDINGS: Array<[string, string, ReturnType<typeof overflowLimit>]> = [
  [
    'OpenAI Chat Completions',
    "This model's maximum context length is 8000 tokens. However, your messages resulted in 15329 tokens. Please reduce the length of the messages.",
    { limit: 8000, measured: 15329 },
  ],
  [
    'OpenAI (requested, with functions)',
    "This model's maximum context length is 128000 tokens. However, you requested 130512 tokens. Please reduce the length of the messages or functions.",
    { limit: 128000, measured: 130512 },
  ],
  [
    'vLLM (input + output)',
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    { limit: 8192, measured: 8000, output: 1000 },
  ],
  [
    'vLLM (newer)',
    "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 8192 tokens and your request has 7500 input tokens (1000 > 8192 - 7500).",
    { limit: 8192, measured: 7500, output: 1000 },
  ],
  [
    'OpenRouter',
    'This endpoint\'s maximum context length is 8192 tokens. However, you requested about 15329 tokens (15000 of text input, 329 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    { limit: 8192, measured: 15000, output: 329 },
  ],
  ['Anthropic', 'prompt is too long: 210000 tokens > 200000 maximum', { measured: 210000, limit: 200000 }],
  [
    'Anthropic (input + max_tokens)',
    'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
    { measured: 188240, output: 21333, limit: 200000 },
  ],
  [
    'Gemini',
    'The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).',
    { measured: 1234567, limit: 1048576 },
  ],
  [
    'llama.cpp (message)',
    'request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it',
    { measured: 9000, limit: 8192 },
  ],
  [
    'llama.cpp (error fields)',
    '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}',
    { measured: 9000, limit: 8192 },
  ],
  ['Ollama', 'prompt too long; exceeded max context length by 4021 tokens', { excess: 4021 }],
  [
    'Mistral',
    'Prompt contains 240000 tokens, too large for model with 128000 maximum context length',
    { measured: 240000, limit: 128000 },
  ],
  [
    'Together',
    "The input (516368 tokens) is longer than the model's context length (262144 tokens).",
    { measured: 516368, limit: 262144 },
  ],
  [
    'LM Studio',
    'Prompt has 2000 tokens, but the configured context size is 1000 tokens',
    { measured: 2000, limit: 1000 },
  ],
  [
    'limit only',
    "Requested token count exceeds the model's maximum context length of 131072 tokens.",
    { limit: 131072 },
  ],
];

describe('overflowLimit', () => {
  it.each(WORDINGS)('reads what %s states', (_, text, expected) => {
    expect(isContextOverflowError(text)).toBe(true);
    expect(overflowLimit(text)).toEqual(expected);
    expect(overflowLimit(new Error(`400 ${text}`))).toEqual(expected);
  });

  it('states nothing when the wording has no numbers', () => {
    expect(
      overflowLimit(
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
      ),
    ).toBeUndefined();
    expect(
      overflowLimit('the request exceeds the available context size, try increasing it'),
    ).toBeUndefined();
  });
});

describe('learnedWindow', () => {
  it("scales the provider's limit by how its measure compares with the estimate of the same request", () => {
    // ctxkit thought it sent 12,000; the provider counted 15,000 against its 8,000 window.
    expect(learnedWindow({ limit: 8000, measured: 15000 }, 12000)).toBe(6400);
    expect(learnedWindow({ limit: 8000 }, 12000)).toBe(8000);
  });

  it('takes the excess off the sent estimate when only the excess is stated (Ollama)', () => {
    expect(learnedWindow({ excess: 4000 }, 12000)).toBe(8000);
    expect(learnedWindow({ excess: 20000 }, 12000)).toBeUndefined();
    expect(learnedWindow({}, 12000)).toBeUndefined();
  });
});
