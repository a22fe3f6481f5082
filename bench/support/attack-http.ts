/**
 * What the attack cases need beside `fetch`: a client that reads a stream through `node:http` and can
 * stop reading for a while (its socket's buffers fill, as a paused debugger's or laptop's do), a
 * `/health` poller, a second tenant's key, and readers of what a stream ended with.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { AttackEnv } from '../attack/types.ts';

export interface StreamedReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: number;
  /** The connection failed before the body ended (no clean end of the chunked body). */
  broken: boolean;
  ms: number;
}

export interface StreamOptions {
  headers: Record<string, string>;
  body: string;
  /** Stop reading once this many body bytes arrived… */
  pauseAfterBytes?: number;
  /** …for this long, then read on. */
  pauseMs?: number;
  /** Give up (destroy the socket) after this long. @default 120000 */
  timeoutMs?: number;
}

/** POSTs `body` and reads the answer to its end, pausing as asked. */
export function postStream(url: string, o: StreamOptions): Promise<StreamedReply> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let paused = false;
    const done = (status: number, headers: StreamedReply['headers'], broken: boolean) => {
      clearTimeout(timer);
      resolve({
        status,
        headers,
        text: Buffer.concat(chunks).toString('utf8'),
        bytes,
        broken,
        ms: performance.now() - started,
      });
    };
    const req = request(url, {
      method: 'POST',
      headers: { ...o.headers, 'content-length': Buffer.byteLength(o.body) },
    });
    const timer = setTimeout(() => req.destroy(new Error('timed out')), o.timeoutMs ?? 120_000);
    req.on('response', (res) => {
      res.on('data', (d: Buffer) => {
        chunks.push(d);
        bytes += d.length;
        if (!paused && o.pauseAfterBytes !== undefined && bytes >= o.pauseAfterBytes) {
          paused = true;
          res.pause();
          setTimeout(() => res.resume(), o.pauseMs ?? 0);
        }
      });
      res.on('end', () => done(res.statusCode ?? 0, res.headers, false));
      res.on('error', () => done(res.statusCode ?? 0, res.headers, true));
      res.on('aborted', () => done(res.statusCode ?? 0, res.headers, true));
    });
    req.on('error', () => done(0, {}, true));
    req.end(o.body);
  });
}

/** The events of an SSE text, blank-line separated (`\r\n` as `\n`). */
export function sseBlocks(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n\n')
    .filter((b) => b.trim() !== '');
}

/** The `data:` of an event block, joined. */
export function blockData(block: string): string {
  return block
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trimStart())
    .join('\n');
}

/** How a relayed OpenAI stream ended: `done` ([DONE]), `error` (an error event last), or `cut`. */
export function streamEnd(text: string): 'done' | 'error' | 'cut' {
  const last = sseBlocks(text).at(-1) ?? '';
  const data = blockData(last);
  if (data === '[DONE]') return 'done';
  return /"error"/.test(data) || /^event: error/m.test(last) ? 'error' : 'cut';
}

/** The concatenated `delta.content` of an OpenAI Chat Completions stream. */
export function streamedContent(text: string): string {
  let out = '';
  for (const b of sseBlocks(text)) {
    const data = blockData(b);
    if (data === '' || data === '[DONE]') continue;
    try {
      const content = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> })
        .choices?.[0]?.delta?.content;
      if (typeof content === 'string') out += content;
    } catch {}
  }
  return out;
}

/** One OpenAI Chat Completions stream chunk carrying `text`. */
export function chatChunk(text: string, model = 'gpt-4o'): string {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
}

export const DONE = 'data: [DONE]\n\n';

/**
 * `/health` polled every `everyMs` until stopped, from a process of its own (the cases' own work —
 * a fake provider writing 20 MB — must not slow the measure down): each answer's latency.
 */
export function pollHealth(base: string, everyMs = 20): { stop(): Promise<number[]> } {
  const script = `
    const times = []; let on = true;
    process.stdin.on('data', () => { on = false; });
    (async () => {
      while (on) {
        const t = performance.now();
        try { await (await fetch(${JSON.stringify(`${base}/health`)})).text(); } catch {}
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, ${everyMs}));
      }
      process.stdout.write(JSON.stringify(times));
      process.exit(0);
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    async stop() {
      child.stdin.write('stop');
      await exited;
      return JSON.parse(out || '[]') as number[];
    },
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A key of another tenant (the operator route), for cases where one tenant must not hurt another. */
export async function tenantKey(env: AttackEnv, tenant: string): Promise<string> {
  const res = await fetch(`${env.service.base}/v1/admin/tenants/${tenant}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await res.json()) as { key?: string };
  if (!body.key) throw new Error(`no key for tenant ${tenant}: ${res.status}`);
  return body.key;
}

/** `env.headers(session)` with another tenant's key. */
export function headersWith(key: string, session?: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    ...(session === undefined ? {} : { 'x-ctxkit-session': session }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms until it returns a value or `ms` passed. */
export async function eventually<T>(ms: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = performance.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined || performance.now() > until) return v;
    await sleep(100);
  }
}
