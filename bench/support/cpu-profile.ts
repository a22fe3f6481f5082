/**
 * A CPU profile of the Worker under `npm run bench:proxy -- --profile <file>`: workerd's inspector
 * (Miniflare's `inspectorPort`) speaks the Chrome DevTools protocol; the V8 profiler samples every
 * JavaScript frame of the Worker and its Durable Objects during each measured session call (summed
 * over the calls). Writes the last call's `.cpuprofile` (open it in Chrome DevTools or speedscope)
 * and returns the functions with the most self time over all of them.
 */
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface CpuProfiler {
  /** Starts sampling (before a measured call). */
  begin(): Promise<void>;
  /** Stops sampling and adds the samples to the totals. */
  end(): Promise<void>;
  /** Closes the connection, writes the last profile and returns the functions with most self time. */
  report(file: string): Array<{ fn: string; ms: number; share: number }>;
}

/** Self time per function of one profile (ms), keyed `name bundle:line`. */
function selfTimes(profile: Profile, into: Map<string, number>): void {
  const byNode = new Map<number, number>();
  (profile.samples ?? []).forEach((id, i) => {
    byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  for (const node of profile.nodes) {
    const ms = byNode.get(node.id) ?? 0;
    if (ms === 0) continue;
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    into.set(name, (into.get(name) ?? 0) + ms);
  }
}

/** Connects to the Worker's inspector; sampling runs only between `begin()` and `end()`. */
export async function startCpuProfile(inspectorPort: number, worker = 'ctxkit'): Promise<CpuProfiler> {
  const ws = new WebSocket(`ws://127.0.0.1:${inspectorPort}/core:user:${worker}`);
  await new Promise<void>((done, fail) => {
    ws.once('open', () => done());
    ws.once('error', fail);
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((done) => {
      const id = ++next;
      waiting.set(id, done);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 100 });
  const totals = new Map<string, number>();
  let last: Profile | undefined;
  return {
    async begin() {
      await send('Profiler.start');
    },
    async end() {
      last = ((await send('Profiler.stop')) as { profile: Profile }).profile;
      selfTimes(last, totals);
    },
    report(file) {
      ws.close();
      if (last) writeFileSync(file, JSON.stringify(last));
      const total = [...totals.values()].reduce((a, b) => a + b, 0);
      return [...totals]
        .map(([fn, ms]) => ({ fn, ms, share: total > 0 ? ms / total : 0 }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 30);
    },
  };
}
