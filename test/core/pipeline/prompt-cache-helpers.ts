/** A small coding session for the prompt-cache tests: reads, an edit, a re-read, then shell steps. */

import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import { messageDigest } from '../../../src/core/messages/digest.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createContext } from '../../../src/core/pipeline/engine/context.ts';
import type { ContextOptions } from '../../../src/core/pipeline/engine/context-types.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';

/** `n` lines of code-like text, different for each `seed`. */
export function code(seed: string, n: number): string {
  return Array.from(
    { length: n },
    (_, i) => `  const ${seed}_${i} = compute(${i}, "${seed}-${(i * 7919) % 1000}"); // step ${i}`,
  ).join('\n');
}

/**
 * The user asks for a fix; the agent reads src/parse.ts, edits it, reads it again (the first read is
 * now stale: dedup's second tier), then runs `steps` shell commands with `lines` lines of output each.
 */
export function codingSession(steps: number, lines = 40): Message[] {
  const out: Message[] = [user('Fix the tokenizer bug in src/parse.ts and run the tests.', { id: 'u0' })];
  const step = (id: string, name: string, args: Record<string, string>, result: string) => {
    out.push(assistant('', [toolCall(id, name, args)], { id: `a-${id}` }));
    out.push(toolResult(id, name, result, { id: `t-${id}` }));
  };
  step('read1', 'Read', { file_path: 'src/parse.ts' }, code('parse', 60));
  step(
    'edit1',
    'Edit',
    { file_path: 'src/parse.ts', old_string: 'a', new_string: 'b' },
    'The file was updated.',
  );
  step('read2', 'Read', { file_path: 'src/parse.ts' }, code('parsed', 60));
  for (let k = 0; k < steps; k++)
    step(`sh${k}`, 'Bash', { command: `npm test -- case${k}` }, code(`t${k}`, lines));
  out.push(assistant('Done.', [], { id: 'a-end' }));
  return out;
}

/** Positions of the assistant messages: a send happens right before each. */
export function sendPoints(history: readonly Message[]): number[] {
  return history.flatMap((m, i) => (m.role === 'assistant' && i > 0 ? [i] : []));
}

/** Whether `send` starts with every message of `previous` (content digests). */
export function extendsSend(previous: readonly Message[], send: readonly Message[]): boolean {
  if (send.length < previous.length) return false;
  return previous.every((m, i) => messageDigest(m) === messageDigest(send[i]!));
}

/** An incremental context on a fixed clock (Anthropic's cache rules, 16K unless `options` say). */
export function clockedContext(options: ContextOptions = {}) {
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const ctx = createContext({
    budget: { contextWindow: 16_000 },
    dialect: 'anthropic',
    clock,
    ids: sequentialIds(),
    ...options,
  });
  return { ctx, clock };
}
