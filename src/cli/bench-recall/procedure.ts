/**
 * The model's procedure for getting early facts back, as a script a bench or a framework's mock model
 * runs one call at a time: for each fact, `recall(query)` (its kind's query, never the fact); if the
 * answer holds the fact, found; else `reread` each ref the answer names, in order (at most three), and
 * found when a page holds it; else missed — unless the prompt the model read when it asked still held
 * the fact (`prompt`: it left nothing to recall). `next` takes the answer to the previous call and the
 * prompt's text (what the model read) and returns the next call, or undefined when every fact was tried.
 */
import { type Fact, holdsFact } from './facts.ts';

export type FactOutcome = 'recall' | 'reread' | 'prompt' | 'missed';

export interface ToolCallPlan {
  tool: 'recall' | 'reread';
  args: { query: string } | { ref: string };
}

export interface FactProcedure {
  next(answer?: string, prompt?: string): ToolCallPlan | undefined;
  /** Per fact, how it came back so far (undefined: not tried yet). */
  readonly outcomes: (FactOutcome | undefined)[];
  /** The answers read, per fact. */
  readonly answers: string[][];
}

const REFS = /reread\('([ms][0-9a-f]{12})'/g;
export const MAX_REREADS = 3;

export function createFactProcedure(facts: readonly Fact[]): FactProcedure {
  const outcomes: (FactOutcome | undefined)[] = facts.map(() => undefined);
  const answers: string[][] = facts.map(() => []);
  let i = 0;
  let refs: string[] | undefined;
  let j = 0;
  let asked = false;
  /** Whether the prompt held the fact when the model asked for it. */
  let held = false;
  const recall = (prompt: string | undefined): ToolCallPlan | undefined => {
    refs = undefined;
    j = 0;
    if (i >= facts.length) return undefined;
    held = prompt !== undefined && holdsFact(prompt, facts[i]!);
    return { tool: 'recall', args: { query: facts[i]!.query } };
  };
  const done = (outcome: FactOutcome, prompt: string | undefined) => {
    outcomes[i] = outcome === 'missed' && held ? 'prompt' : outcome;
    i++;
    return recall(prompt);
  };
  return {
    outcomes,
    answers,
    next(answer, prompt) {
      if (!asked) {
        asked = true;
        return recall(prompt);
      }
      if (i >= facts.length) return undefined;
      const fact = facts[i]!;
      const text = answer ?? '';
      answers[i]!.push(text);
      if (holdsFact(text, fact)) return done(refs === undefined ? 'recall' : 'reread', prompt);
      if (refs === undefined)
        refs = [...new Set([...text.matchAll(REFS)].map((m) => m[1]!))].slice(0, MAX_REREADS);
      else j++;
      const ref = refs[j];
      return ref === undefined ? done('missed', prompt) : { tool: 'reread', args: { ref } };
    },
  };
}
