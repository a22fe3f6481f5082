/** Small helpers over the harness: JSON calls with a key, and message builders in each wire format. */
import type { RunningWorker } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: replies are asserted field by field in the tests
export type Loose = any;

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export function client(w: RunningWorker, key: string) {
  const call = async <T = Loose>(
    method: string,
    path: string,
    json?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply<T>> => {
    const res = await w.request(path, {
      method,
      key,
      ...(json !== undefined ? { json } : {}),
      ...(headers ? { headers } : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) body = JSON.parse(text);
    return { status: res.status, body: body as T };
  };
  return {
    get: <T = Loose>(path: string, headers?: Record<string, string>) =>
      call<T>('GET', path, undefined, headers),
    post: <T = Loose>(path: string, json?: unknown) => call<T>('POST', path, json),
    delete: <T = Loose>(path: string) => call<T>('DELETE', path),
  };
}

export function neutralUser(id: string, text: string) {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}
