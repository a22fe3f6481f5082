import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../src/core/index.ts';
import { readJson, readText } from '../../src/worker/http/body.ts';

function streamed(text: string, headers: Record<string, string>): Request {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
      c.close();
    },
  });
  return new Request('http://127.0.0.1/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    return isCtxError(error) ? error.code : 'other';
  }
}

describe('readText', () => {
  it('refuses on the bytes read when the declared length lies', async () => {
    const req = streamed('x'.repeat(100), { 'content-length': '10' });
    expect(await codeOf(readText(req, 50))).toBe('payload_too_large');
  });

  it('refuses on the declared length before reading', async () => {
    const req = streamed('x', { 'content-length': '51' });
    expect(await codeOf(readText(req, 50))).toBe('payload_too_large');
  });

  it('reads a body of exactly the limit', async () => {
    expect(await readText(streamed('é'.repeat(25), {}), 50)).toBe('é'.repeat(25));
  });

  it('refuses a body whose stream breaks (malformed chunked framing, a connection closed mid-body) as bad input', async () => {
    for (const headers of [{}, { 'content-length': '20' }]) {
      const body = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"messages":'));
          c.error(new Error('internal error; reference = 3ngnsdhqaa3gfmqp4jcfnivs'));
        },
      });
      const req = new Request('http://127.0.0.1/', {
        method: 'POST',
        body,
        headers,
        duplex: 'half',
      } as RequestInit);
      const error = await readText(req, 50).catch((e: unknown) => e);
      expect(isCtxError(error) && [error.code, error.path]).toEqual(['invalid_input', 'body']);
    }
  });

  it('refuses bytes that are not UTF-8', async () => {
    const req = new Request('http://127.0.0.1/', { method: 'POST', body: new Uint8Array([0xff, 0xfe]) });
    expect(await codeOf(readText(req, 50))).toBe('invalid_input');
  });
});

describe('readJson', () => {
  it('accepts application/json with a charset', async () => {
    const req = streamed('{"a":1}', { 'content-type': 'application/json; charset=utf-8' });
    expect(await readJson(req, 100)).toEqual({ a: 1 });
  });

  it('reads an empty body as undefined only when allowed', async () => {
    const empty = () =>
      new Request('http://127.0.0.1/', {
        method: 'POST',
        body: '',
        headers: { 'content-type': 'application/json' },
      });
    expect(await readJson(empty(), 100, { allowEmpty: true })).toBeUndefined();
    expect(await codeOf(readJson(empty(), 100))).toBe('invalid_input');
  });

  it('refuses another content type with unsupported', async () => {
    expect(await codeOf(readJson(streamed('{}', { 'content-type': 'text/json' }), 100))).toBe('unsupported');
  });
});
