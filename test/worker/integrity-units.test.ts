/**
 * The pieces that keep stored data right, on their own (issue 42): spilled blobs named from their
 * session, message and content; a spill that fails keeps the output whole and says so; a model's
 * too-deep tool arguments carried opaque and written back byte for byte; the depth bound's path; the
 * retry that replaces a call its client left; the service's bounds; a body that never arrives.
 */
import { describe, expect, it } from 'vitest';
import {
  type BlobStore,
  createInMemoryMemoryStore,
  createInMemorySessionStore,
  createMemoryBlobStore,
  createPipeline,
  fixedClock,
  isCtxError,
  sequentialIds,
} from '../../src/core/index.ts';
import { sessionBlobs } from '../../src/worker/blobs/session-blobs.ts';
import type { Env } from '../../src/worker/env.ts';
import { readText } from '../../src/worker/http/body.ts';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../../src/worker/http/json-depth.ts';
import { jsonTextDepth, stringifyDeep, unwrapBody, wrapRequest } from '../../src/worker/proxy/opaque-json.ts';
import { awaitFirstByte, RETRY_GAP_MS } from '../../src/worker/proxy/retries.ts';
import { DEFAULT_BOUNDS, serviceBounds } from '../../src/worker/service-bounds.ts';
import { stageAppend } from '../../src/worker/session/append.ts';
import type { SessionDeps } from '../../src/worker/session/session-service.ts';

const deepText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('sessionBlobs', () => {
  it('names one call id of two sessions apart, bounded, and the same content of one message alike', async () => {
    const base = createMemoryBlobStore();
    const a = sessionBlobs(base, 'session-a');
    const b = sessionBlobs(base, 'session-b');
    const ia = await a.store.put('call_0', 'AAA');
    const ib = await b.store.put('call_0', 'BBB');
    expect(ia.id).not.toBe(ib.id);
    expect(await base.get(ia.id)).toBe('AAA');
    expect(await base.get(ib.id)).toBe('BBB');
    a.forMessage('m7');
    const long = await a.store.put(`c${'x'.repeat(600)}`, 'out');
    const again = await a.store.put('another-call', 'out');
    expect(long.id).toMatch(/^[A-Za-z0-9._~-]{1,120}$/);
    expect(again.id).toBe(long.id);
  });

  it('counts the puts that failed', async () => {
    const broken: BlobStore = {
      ...createMemoryBlobStore(),
      put: () => Promise.reject(new Error('R2 down')),
    };
    const s = sessionBlobs(broken, 's');
    await expect(s.store.put('x', 'y')).rejects.toThrow('R2 down');
    expect(s.failures()).toBe(1);
  });
});

describe('stageAppend', () => {
  it('keeps a tool output whole when its spill fails, and its report says so', async () => {
    const broken: BlobStore = {
      ...createMemoryBlobStore(),
      put: () => Promise.reject(new Error('R2 down')),
    };
    const spills = sessionBlobs(broken, 's1');
    const sessions = createInMemorySessionStore();
    await sessions.create({ tenant: 't', id: 's1' });
    const clock = fixedClock('2026-03-01T00:00:00Z');
    const deps: SessionDeps = {
      sessions,
      memories: createInMemoryMemoryStore(),
      pipeline: createPipeline({ preset: 'kosmokrator', blobs: spills.store, clock }),
      clock,
      ids: sequentialIds(),
      documents: { append: async () => undefined } as unknown as SessionDeps['documents'],
      spills,
    };
    const output = 'line of output\n'.repeat(10_000);
    const staged = await stageAppend(
      deps,
      { tenant: 't', session: 's1' },
      {
        messages: [
          { id: 'r1', role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'sh', output }] },
        ],
        autoId: [false],
      },
      async () => new Set(),
    );
    expect(staged.messages[0]!.parts[0]).toMatchObject({ output });
    expect(staged.reports).toEqual([
      expect.objectContaining({
        stage: 'output-truncation',
        status: 'failed',
        detail: expect.stringMatching(/kept whole/),
      }),
    ]);
    expect(staged.journal).toEqual([]);
  });
});

describe('opaque tool arguments', () => {
  it('carries arguments deeper than the bound opaque and writes them back byte for byte', () => {
    const args = deepText(2500);
    const body = {
      model: 'm',
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }],
        },
      ],
    };
    expect(wrapRequest('openai', body)).toBe(1);
    checkJsonDepth(body);
    const sent = unwrapBody(JSON.stringify(body));
    expect(JSON.parse(sent).messages[0].tool_calls[0].function.arguments).toBe(args);
    const anthropic = {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: JSON.parse(args) }] },
      ],
    };
    expect(wrapRequest('anthropic', anthropic)).toBe(1);
    expect(unwrapBody(JSON.stringify(anthropic))).toContain(`"input":${args}`);
  });

  it('measures and writes any depth without a stack', () => {
    expect(jsonTextDepth(deepText(50_000))).toBe(50_000);
    expect(jsonTextDepth('{"a":"{{[["}')).toBe(1);
    expect(stringifyDeep(JSON.parse(deepText(50_000)))).toBe(deepText(50_000));
    const plain = { a: [1, 'x', null, { b: true }], c: 'q"\\', d: undefined };
    expect(stringifyDeep(plain)).toBe(JSON.stringify(plain));
  });
});

describe('checkJsonDepth', () => {
  it('names where a value nests past the bound', () => {
    try {
      checkJsonDepth({ tools: [JSON.parse(deepText(MAX_JSON_DEPTH + 5))] });
      expect.unreachable();
    } catch (error) {
      expect(isCtxError(error, 'invalid_input')).toBe(true);
      expect((error as { path: string }).path).toMatch(/^tools\[0\]\.a\.a…/);
    }
    expect(() => checkJsonDepth(JSON.parse(deepText(MAX_JSON_DEPTH - 1)))).not.toThrow();
  });
});

describe('awaitFirstByte', () => {
  it('replaces a waiting call with the same request arriving later, never one sent at the same time', () => {
    const t = 1_000_000;
    const first = awaitFirstByte('k1', t);
    const parallel = awaitFirstByte('k1', t + 20);
    expect([first.replaced(), parallel.replaced()]).toEqual([false, false]);
    const retry = awaitFirstByte('k1', t + RETRY_GAP_MS + 10);
    expect([first.replaced(), parallel.replaced(), retry.replaced()]).toEqual([true, false, false]);
    retry.done();
    parallel.done();
    const other = awaitFirstByte('k2', t + 10 * RETRY_GAP_MS);
    expect(other.replaced()).toBe(false);
  });
});

describe('serviceBounds', () => {
  it('has defaults, reads each variable, and names one out of its limits', () => {
    expect(serviceBounds({} as Env)).toEqual(DEFAULT_BOUNDS);
    expect(serviceBounds({ MAX_SESSION_BYTES: '2097152' } as unknown as Env).sessionBytes).toBe(2_097_152);
    expect(() => serviceBounds({ PROXY_MAX_EVENT_BYTES: '10' } as unknown as Env)).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'PROXY_MAX_EVENT_BYTES' }),
    );
    expect(serviceBounds({} as Env).proxyMessages).toBe(100_000);
    expect(serviceBounds({ PROXY_MAX_MESSAGES: '500' } as unknown as Env).proxyMessages).toBe(500);
    expect(() => serviceBounds({ PROXY_MAX_MESSAGES: '0' } as unknown as Env)).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'PROXY_MAX_MESSAGES' }),
    );
  });

  it('names MAX_BODY_BYTES and PROXY_MAX_BODY_BYTES when out of their limits (they fell back to the default unsaid)', () => {
    expect(serviceBounds({} as Env)).toMatchObject({ bodyBytes: 1_048_576, proxyBodyBytes: 33_554_432 });
    expect(serviceBounds({ MAX_BODY_BYTES: '4096' } as unknown as Env).bodyBytes).toBe(4096);
    expect(serviceBounds({ PROXY_MAX_BODY_BYTES: '67108864' } as unknown as Env).proxyBodyBytes).toBe(
      67_108_864,
    );
    for (const [name, value] of [
      ['MAX_BODY_BYTES', '1mb'],
      ['MAX_BODY_BYTES', '-1'],
      ['MAX_BODY_BYTES', '10'],
      ['PROXY_MAX_BODY_BYTES', '0'],
      ['PROXY_MAX_BODY_BYTES', String(512 * 1024 * 1024)],
    ] as const)
      expect(() => serviceBounds({ [name]: value } as unknown as Env)).toThrow(
        expect.objectContaining({ code: 'invalid_config', path: name }),
      );
  });
});

describe('readText', () => {
  it('answers 408 when a body stops arriving before its end', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"model":'));
      },
    });
    const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
    const started = performance.now();
    await expect(readText(request, 1000, 200)).rejects.toMatchObject({
      status: 408,
      code: 'request_timeout',
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
