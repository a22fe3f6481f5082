/**
 * The model a send goes to picks its family's prompt-cache rules: GPT-5.6 keeps a prefix 30 minutes
 * where GPT-5 keeps it 5, so the same idle gap finds one cache warm and the other cold, and what
 * `default` holds back for a cold cache is applied for one and not the other.
 */
import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../../src/core/errors.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createContext } from '../../../src/core/pipeline/engine/context.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { fixedClock } from '../../../src/core/ports.ts';
import { codingSession, sendPoints } from './prompt-cache-helpers.ts';

const SYSTEM = { system: 'You are a coding agent.' };

/** The last run of a session whose last send comes `idleMs` after the one before. */
async function afterIdle(idleMs: number, model: string | undefined, perCall = false) {
  const history: Message[] = codingSession(6);
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const ctx = createContext({
    budget: { contextWindow: 200_000 },
    dialect: 'openai',
    clock,
    ...(model !== undefined && !perCall ? { model } : {}),
  });
  const call = { ...SYSTEM, ...(model !== undefined && perCall ? { model } : {}) };
  const points = sendPoints(history);
  for (const i of points.slice(0, -1)) {
    clock.advance(10_000);
    await ctx.prepare(history.slice(0, i), call);
  }
  clock.advance(idleMs);
  return ctx.prepare(history.slice(0, points.at(-1)), call);
}

describe('prompt-cache rules by model (default preset)', () => {
  it('prices a send with its model family’s rules, given to the context or per call', async () => {
    for (const perCall of [false, true]) {
      const run = await afterIdle(10_000, 'gpt-5.6', perCall);
      expect(run.cache.rules).toMatchObject({ write: 1.25, granularity: 1, ttlMs: 1_800_000 });
    }
    expect((await afterIdle(10_000, 'gpt-5')).cache.rules).toMatchObject({ write: 1, granularity: 128 });
    expect((await afterIdle(10_000, undefined)).cache.rules).toMatchObject({ write: 1, granularity: 128 });
  });

  it('finds GPT-5.6’s cache warm after 10 idle minutes, and keeps the deferred rewrite back', async () => {
    const warm = await afterIdle(10 * 60_000, 'gpt-5.6');
    expect(warm.cache.status).toBe('append');
    expect(warm.cache.rewrite).toBeUndefined();
    const cold = await afterIdle(10 * 60_000, 'gpt-5');
    expect(cold.cache.status).toBe('cold');
    expect(cold.cache.rewrite).toMatchObject({ stage: 'dedup', reason: expect.stringMatching(/cold/) });
  });

  it('refuses a model that is not a short string, naming it', async () => {
    const pipeline = createPipeline({});
    for (const model of [42, 'm'.repeat(257)]) {
      const error = await pipeline.prepare({ messages: [], model: model as string }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isCtxError(error, 'invalid_input')).toBe(true);
      expect((error as { path?: string }).path).toBe('model');
      let given: unknown;
      try {
        createContext({ model: model as string });
      } catch (e) {
        given = e;
      }
      expect(isCtxError(given, 'invalid_config')).toBe(true);
      expect((given as { path?: string }).path).toBe('model');
    }
  });
});
