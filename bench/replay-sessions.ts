/**
 * The recorded sessions the step-by-step benches replay (`bench:pipeline`, `bench:pipeline:idle`): each
 * trajectory of ../shared/data/trajectories/<group> as it arrives (recorded usage kept, Claude Code's
 * own compaction summary dropped: ctxkit compacts here), with the index of every assistant message (a
 * pre-flight runs right before each). Sessions with fewer than two steps are left out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shortName } from '../src/cli/bench-cache/sessions.ts';
import { fromOpenAI } from '../src/core/adapters/openai.ts';
import type { Message } from '../src/core/messages/types.ts';

export interface ReplaySession {
  group: string;
  name: string;
  /** Messages as they arrive (recorded usage kept), Claude Code's own summary dropped. */
  messages: Message[];
  /** Indices of the assistant messages: a pre-flight runs right before each. */
  steps: number[];
}

export function loadReplaySessions(data: string, groups: readonly string[]): ReplaySession[] {
  const out: ReplaySession[] = [];
  for (const group of groups) {
    const dir = join(data, group);
    if (!existsSync(dir)) {
      console.log(`skipped group ${group}: no folder ${dir}`);
      continue;
    }
    for (const f of readdirSync(dir)
      .filter((x) => x.endsWith('.json'))
      .sort()) {
      const raw = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { messages: unknown[] };
      const messages = fromOpenAI(raw.messages, { path: f }).filter((m) => m.meta?.isCompactSummary !== true);
      const steps = messages.flatMap((m, i) => (m.role === 'assistant' && i > 0 ? [i] : []));
      if (steps.length < 2) continue;
      out.push({ group, name: shortName(f), messages, steps });
    }
  }
  return out;
}
