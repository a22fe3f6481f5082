/**
 * The sessions `ctxcheck bench cache` replays: each trajectory of a folder of real agent runs, as the
 * agent saw it arrive (Claude Code's own compaction summary dropped: the managers compact here), with
 * the index of every assistant message — a send happens right before each.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromOpenAI, type Message } from '../../core/index.ts';
import { readTrajectory } from '../bench-compaction/cases.ts';

export interface CacheSession {
  name: string;
  messages: Message[];
  /** Indices of the assistant messages: the send before each is priced. */
  steps: number[];
}

/** `8463c716__agent-a7be2f0` for `8463c716-a2ea-…__agent-a7be2f0.json`. */
export function shortName(file: string): string {
  const [head, ...rest] = file.replace(/\.json$/, '').split('__');
  const id = /^[0-9a-f]{8}-/.test(head!) ? head!.slice(0, 8) : head!;
  return [id, ...rest].join('__');
}

/** Sessions of `dir` with at least two sends, by file name; `filter` keeps names containing it. */
export function loadCacheSessions(dir: string, filter?: string): CacheSession[] {
  if (!existsSync(dir)) return [];
  const out: CacheSession[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const name = shortName(f);
    if (filter !== undefined && !name.includes(filter)) continue;
    const raw = readTrajectory(join(dir, f), f);
    const messages = fromOpenAI(raw.messages, { path: `${f}:messages` }).filter(
      (m) => m.role !== 'system' && m.meta?.isCompactSummary !== true,
    );
    const steps = messages.flatMap((m, i) => (m.role === 'assistant' && i > 0 ? [i] : []));
    if (steps.length >= 2) out.push({ name, messages, steps });
  }
  return out;
}
