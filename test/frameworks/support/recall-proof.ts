/**
 * The recall proof shared by the framework tests: the real session's replay (replay.ts), its ten early
 * facts by the bench's rule (src/cli/bench-recall/facts.ts), the model's procedure as a script a mock
 * model runs from what it reads in its prompt (procedure.ts), and an o200k count that shares no code
 * with ctxkit's counters (gpt-tokenizer) for "the prompt still fits".
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { earlyFacts, type Fact } from '../../../src/cli/bench-recall/facts.ts';
import { createFactProcedure, type FactProcedure } from '../../../src/cli/bench-recall/procedure.ts';
import { promptText } from '../../../src/cli/bench-recall/run.ts';
import {
  createRecall,
  type Message,
  outputText,
  RECALL_TOOL_DEFINITIONS,
  type Recall,
} from '../../../src/core/index.ts';
import { HAVE_DATA, loadReplay, NO_DATA, type Replay } from './replay.ts';

export const RECALL_WINDOWS = [64_000, 32_000] as const;

export interface RecallProof {
  replay: Replay;
  facts: Fact[];
  recall: Recall;
  procedure: FactProcedure;
  /** o200k tokens of each prompt the model was sent (its content, and the tool definitions). */
  promptTokens: number[];
  /** The model's next call from the prompt it was sent (in ctxkit's neutral form). */
  step(prompt: readonly Message[]): ReturnType<FactProcedure['next']>;
}

/** What the last tool message of a prompt says: the answer the model reads. */
export function lastToolText(prompt: readonly Message[]): string | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return undefined;
  return last.parts.map((p) => (p.type === 'tool-result' ? outputText(p.output) : '')).join('\n');
}

/**
 * o200k tokens of a prompt's content by gpt-tokenizer: each text, tool call (name and JSON arguments)
 * and tool output, and 4 per message for its framing (OpenAI's documented per-message overhead is 3-4).
 */
export function o200kTokens(prompt: readonly Message[]): number {
  let n = 0;
  for (const m of prompt) {
    n += 4;
    for (const p of m.parts)
      if (p.type === 'text' || p.type === 'reasoning') n += countTokens(p.text);
      else if (p.type === 'tool-call') n += countTokens(`${p.name}${JSON.stringify(p.args)}`);
      else if (p.type === 'tool-result') n += countTokens(outputText(p.output));
  }
  return n;
}

export function recallProof(toolsJson: () => string): RecallProof {
  const replay = loadReplay(10);
  const facts = earlyFacts(replay.history);
  const procedure = createFactProcedure(facts);
  const proof: RecallProof = {
    replay,
    facts,
    recall: createRecall(),
    procedure,
    promptTokens: [],
    step(prompt) {
      proof.promptTokens.push(o200kTokens(prompt) + countTokens(toolsJson()));
      return procedure.next(lastToolText(prompt), promptText(prompt));
    },
  };
  return proof;
}

/**
 * The proof: ten facts; each came back word for word in a recall or reread answer the model read, or
 * was still in the prompt it read when it asked (nothing of it had left); every prompt within the window.
 */
export function expectAllFacts(proof: RecallProof, window: number): void {
  const { facts, procedure } = proof;
  expect(facts).toHaveLength(10);
  const outcomes = procedure.outcomes.map((o, i) => `${facts[i]!.kind}: ${o}`);
  for (const o of outcomes) expect(o).toMatch(/: (recall|reread|prompt)$/);
  for (const [i, fact] of facts.entries())
    if (procedure.outcomes[i] !== 'prompt') expect(procedure.answers[i]!.join('\n')).toContain(fact.value);
  expect(proof.promptTokens.length).toBeGreaterThan(10);
  for (const [i, t] of proof.promptTokens.entries()) expect(t, `prompt ${i}`).toBeLessThanOrEqual(window);
}

/**
 * The suite of one framework: its tool set refuses to run without the archive, and `run` (the example
 * agent on the replay, its mock model scripted by `proof.step`) gets every fact back at each window.
 */
export function recallProofSuite(
  entry: string,
  tools: (recall: never) => Promise<unknown>,
  run: (proof: RecallProof, window: number) => Promise<void>,
): void {
  describe(`ctxkitRecallTools (${entry}, examples/${entry})`, () => {
    it('rejects a tool set without the createRecall() the entry archives into', async () => {
      await expect(tools({} as never)).rejects.toThrow(
        /ctxkitRecallTools: expected the result of createRecall/,
      );
    });
    it.skipIf(!HAVE_DATA).each(RECALL_WINDOWS)(
      'gets all ten early facts of a real session back through recall and reread after compaction at %i, every prompt within the window',
      async (window) => {
        const proof = recallProof(() => JSON.stringify(Object.values(RECALL_TOOL_DEFINITIONS)));
        await run(proof, window);
        expectAllFacts(proof, window);
      },
    );
    if (!HAVE_DATA) it.skip(NO_DATA, () => {});
  });
}
