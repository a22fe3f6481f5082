/**
 * The real trajectories of `../shared/data/trajectories` (see its README) as neutral messages, for the
 * framework adapters' round trips and the example agents. Never copied into the repository: a test
 * that needs them skips with `TRAJECTORIES_MISSING` when the folder is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromOpenAI, type Message } from '../../src/core/index.ts';

export const TRAJECTORIES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'trajectories');
export const HAVE_TRAJECTORIES = existsSync(TRAJECTORIES);
export const TRAJECTORIES_MISSING = `real trajectories: no folder ${TRAJECTORIES} (see ../shared/data/README.md)`;

export interface Trajectory {
  name: string;
  messages: Message[];
}

/** One trajectory by its path under the folder (`claude-code/x.json`). */
export function loadTrajectory(name: string): Trajectory {
  const raw = JSON.parse(readFileSync(join(TRAJECTORIES, name), 'utf8')) as { messages: unknown[] };
  return { name, messages: fromOpenAI(raw.messages, { path: name }) };
}

/** Every trajectory, in folder then file order. */
export function loadTrajectories(): Trajectory[] {
  return readdirSync(TRAJECTORIES)
    .sort()
    .flatMap((group) =>
      readdirSync(join(TRAJECTORIES, group))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => loadTrajectory(`${group}/${f}`)),
    );
}
