/**
 * Options from plain JavaScript (or a spread object TypeScript does not check for excess keys): a
 * misspelt or misplaced key and an unknown dialect are errors naming them. Before, each was dropped in
 * silence — `{ contextWindow }` outside `budget` left a 184,000-token budget, and `dialect: 'foo'`
 * priced every send with no cache rules at all.
 */
import { describe, expect, it } from 'vitest';
import {
  type CONTEXT_KEYS,
  type ContextOptions,
  createContext,
  createPipeline,
  type Message,
} from '../../../src/core/index.ts';

// A key added to the options types must be listed in CONTEXT_KEYS, else it would be refused as unknown
// (and one listed must exist): \`npm run check\` fails here.
type Unlisted = Exclude<keyof ContextOptions, (typeof CONTEXT_KEYS)[number]>;
type Unknown = Exclude<(typeof CONTEXT_KEYS)[number], keyof ContextOptions>;
const complete: [Unlisted | Unknown] extends [never] ? true : Unlisted | Unknown = true;
void complete;

const history: Message[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }];
const loose = (o: unknown) => o as never;

describe('createPipeline', () => {
  it('refuses a key it does not take, naming it and the keys it does', () => {
    expect(() => createPipeline(loose({ contextWindow: 32_000 }))).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'contextWindow' }),
    );
    expect(() => createPipeline(loose({ presett: 'default' }))).toThrow(
      /unknown option \(known: preset, config, budget/,
    );
    expect(() => createPipeline(loose(null))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it("refuses a misspelt key or an unknown dialect in prepare's input", async () => {
    const p = createPipeline({ budget: { contextWindow: 32_000 } });
    await expect(p.prepare(loose({ messages: history, sytem: 'You are terse.' }))).rejects.toMatchObject({
      code: 'invalid_input',
      path: 'sytem',
    });
    await expect(p.prepare(loose({ messages: history, dialect: 'foo' }))).rejects.toMatchObject({
      code: 'invalid_input',
      path: 'dialect',
    });
    const run = await p.prepare({ messages: history, system: 'You are terse.', dialect: 'gemini' });
    expect(Number.isFinite(run.cache.cost)).toBe(true);
  });
});

describe('createContext', () => {
  it('refuses a key it does not take and an unknown dialect, in its options and per call', async () => {
    expect(() => createContext(loose({ budgte: { contextWindow: 32_000 } }))).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'budgte' }),
    );
    expect(() => createContext(loose({ dialect: 'foo' }))).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'dialect' }),
    );
    const ctx = createContext({ budget: { contextWindow: 32_000 }, dialect: 'openai', checkpoints: 4 });
    await expect(ctx.prepare(history, loose({ sytem: 'x' }))).rejects.toMatchObject({
      code: 'invalid_input',
      path: 'sytem',
    });
    await expect(ctx.prepare(history, loose({ dialect: 'claude' }))).rejects.toMatchObject({
      path: 'dialect',
    });
    await expect(ctx.prepare(history, { system: 'x', model: 'gpt-5' })).resolves.toBeDefined();
  });
});
