import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summarizer } from '../../../src/core/index.ts';
import {
  DEFAULT_OPENAI_MODEL,
  NO_KEY_MESSAGE,
  summarizerConfigFromEnv,
  summarizerFromEnv,
  withFallback,
} from '../../../src/providers/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../support/fake-openai-server.ts';

const offline: Summarizer = {
  name: 'deterministic',
  summarize: async () => ({ summary: 'offline summary', model: 'deterministic' }),
};

describe('summarizerConfigFromEnv', () => {
  it('is offline with a plain message when no key and no base URL are set', () => {
    expect(summarizerConfigFromEnv({})).toEqual({ kind: 'offline', message: NO_KEY_MESSAGE });
    expect(NO_KEY_MESSAGE).toBe(
      'no API key configured (CTXKIT_LLM_API_KEY or OPENAI_API_KEY); using the deterministic summarizer',
    );
  });

  it('uses OPENAI_API_KEY and the default model when only that is set', () => {
    const config = summarizerConfigFromEnv({ OPENAI_API_KEY: 'sk-1' });
    expect(config.kind === 'llm' && [config.options.apiKey, config.options.model]).toEqual([
      'sk-1',
      DEFAULT_OPENAI_MODEL,
    ]);
  });

  it('prefers CTXKIT_LLM_API_KEY over OPENAI_API_KEY', () => {
    const config = summarizerConfigFromEnv({ OPENAI_API_KEY: 'a', CTXKIT_LLM_API_KEY: 'b' });
    expect(config.kind === 'llm' && config.options.apiKey).toBe('b');
  });

  it('reads OPENAI_BASE_URL as the openai SDK does; CTXKIT_LLM_BASE_URL wins when both are set', () => {
    const openai = summarizerConfigFromEnv({
      OPENAI_BASE_URL: 'http://127.0.0.1:8820/v1',
      CTXKIT_LLM_MODEL: 'm',
    });
    expect(openai.kind === 'llm' && openai.options.baseURL).toBe('http://127.0.0.1:8820/v1');
    const both = summarizerConfigFromEnv({
      OPENAI_BASE_URL: 'http://127.0.0.1:8820/v1',
      CTXKIT_LLM_BASE_URL: 'http://127.0.0.1:8821/v1',
      CTXKIT_LLM_MODEL: 'm',
    });
    expect(both.kind === 'llm' && both.options.baseURL).toBe('http://127.0.0.1:8821/v1');
    expect(() => summarizerConfigFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:8820/v1' })).toThrow(
      /CTXKIT_LLM_MODEL: required when OPENAI_BASE_URL is set/,
    );
    expect(() => summarizerConfigFromEnv({ OPENAI_BASE_URL: 'nope', OPENAI_API_KEY: 'k' })).toThrow(
      /OPENAI_BASE_URL/,
    );
  });

  it('needs no key when a local base URL is set (Ollama, vLLM)', () => {
    const config = summarizerConfigFromEnv({
      CTXKIT_LLM_BASE_URL: 'http://localhost:11434/v1',
      CTXKIT_LLM_MODEL: 'qwen3:4b',
    });
    expect(config.kind).toBe('llm');
    expect(config.kind === 'llm' && config.options.apiKey).toBeUndefined();
  });

  it('reads every variable when all are set', () => {
    const config = summarizerConfigFromEnv({
      CTXKIT_LLM_BASE_URL: 'https://gateway.example/v1',
      CTXKIT_LLM_API_KEY: 'k',
      CTXKIT_LLM_MODEL: 'big',
      CTXKIT_SUMMARY_MODEL: 'small',
      CTXKIT_LLM_TIMEOUT_MS: '5000',
      CTXKIT_LLM_MAX_RETRIES: '4',
      CTXKIT_LLM_STREAM: 'true',
    });
    expect(config).toMatchObject({
      kind: 'llm',
      options: {
        baseURL: 'https://gateway.example/v1',
        model: 'big',
        summarizationModel: 'small',
        timeoutMs: 5000,
        maxRetries: 4,
        stream: true,
      },
    });
  });

  it('treats blank variables as unset', () => {
    expect(summarizerConfigFromEnv({ CTXKIT_LLM_API_KEY: '  ', CTXKIT_LLM_TIMEOUT_MS: '' }).kind).toBe(
      'offline',
    );
  });

  it.each([
    [{ CTXKIT_LLM_TIMEOUT_MS: 'soon', OPENAI_API_KEY: 'k' }, /CTXKIT_LLM_TIMEOUT_MS: must be a whole number/],
    [{ CTXKIT_LLM_MAX_RETRIES: '99', OPENAI_API_KEY: 'k' }, /CTXKIT_LLM_MAX_RETRIES: must be at most 10/],
    [{ CTXKIT_LLM_BASE_URL: 'localhost:11434' }, /CTXKIT_LLM_BASE_URL/],
    [{ CTXKIT_LLM_STREAM: 'maybe', OPENAI_API_KEY: 'k' }, /CTXKIT_LLM_STREAM: must be true or false/],
    [
      { CTXKIT_LLM_BASE_URL: 'http://localhost:8000/v1' },
      /CTXKIT_LLM_MODEL: required when CTXKIT_LLM_BASE_URL is set/,
    ],
  ])('throws invalid_config naming the variable when a value is bad (%o)', (env, message) => {
    expect(() => summarizerConfigFromEnv(env)).toThrow(message);
  });

  it('ignores non-string bindings when given a Worker env', () => {
    expect(summarizerConfigFromEnv({ DB: {}, CTXKIT_LLM_API_KEY: 'k' }).kind).toBe('llm');
  });
});

describe('summarizerFromEnv', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(() => server.close());

  it('returns the fallback and says why when no key is configured', () => {
    const out = summarizerFromEnv({}, { fallback: offline });
    expect([out.llm, out.summarizer, out.message]).toEqual([false, offline, NO_KEY_MESSAGE]);
  });

  it('summarises through the configured server when the env points at it', async () => {
    server.script({ kind: 'answer', content: 'from the server' });
    const out = summarizerFromEnv(
      { CTXKIT_LLM_BASE_URL: server.baseURL, CTXKIT_LLM_MODEL: 'm' },
      { fallback: offline },
    );
    const result = await out.summarizer.summarize({
      purpose: 'compaction',
      preset: 'tiancai',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    });
    expect(out.llm).toBe(true);
    expect(out.message).toContain(`summaries by m at ${server.baseURL}`);
    expect(result.summary).toBe('from the server');
  });

  it('falls back with the failure in model when the server fails', async () => {
    server.script({ kind: 'status', status: 400, message: 'nope' });
    const out = summarizerFromEnv(
      { CTXKIT_LLM_BASE_URL: server.baseURL, CTXKIT_LLM_MODEL: 'm', CTXKIT_LLM_MAX_RETRIES: '0' },
      { fallback: offline },
    );
    const result = await out.summarizer.summarize({
      purpose: 'compaction',
      preset: 'tiancai',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    });
    expect(result.summary).toBe('offline summary');
    expect(result.model).toMatch(/^deterministic \(fallback: summarizer m at .*HTTP 400/);
  });
});

describe('withFallback', () => {
  const failing: Summarizer = {
    name: 'llm',
    summarize: async () => {
      throw new Error('boom');
    },
  };

  it('reports the primary failure and answers with the fallback when the primary throws', async () => {
    const seen: unknown[] = [];
    const s = withFallback(failing, offline, { onFailure: (e) => seen.push(e) });
    const result = await s.summarize({ purpose: 'compaction', preset: 'default', messages: [] });
    expect(result).toEqual({
      summary: 'offline summary',
      model: 'deterministic (fallback: boom)',
      fallback: 'llm: boom',
    });
    expect(seen).toHaveLength(1);
  });

  it('rethrows when the caller aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const s = withFallback(failing, offline);
    await expect(
      s.summarize({ purpose: 'compaction', preset: 'default', messages: [], signal: controller.signal }),
    ).rejects.toThrow('boom');
  });

  it('returns the primary result untouched when the primary succeeds', async () => {
    const ok: Summarizer = { name: 'llm', summarize: async () => ({ summary: 'llm', model: 'gpt' }) };
    expect(
      await withFallback(ok, offline).summarize({ purpose: 'compaction', preset: 'default', messages: [] }),
    ).toEqual({ summary: 'llm', model: 'gpt' });
  });
});
