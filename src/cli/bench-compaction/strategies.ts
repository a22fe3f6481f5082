/**
 * The strategies compared side by side: the full prefix, the most recent messages at a given budget,
 * observation masking, the production summary where there is one, and ctxkit presets.
 */
import {
  createPipeline,
  type Message,
  type PresetName,
  type Summarizer,
  type TokenCounter,
} from '../../core/index.ts';
import type { CompactionCase } from './cases.ts';
import { countTokens } from './measure.ts';

export interface StrategyResult {
  strategy: string;
  messages: Message[];
  /** Input tokens the window allows (window − reserve), for strategies run at a window. */
  budget?: number;
}

/** Share of the window reserved for the answer in preset runs. */
export const RESERVE_SHARE = 0.08;

/** Input tokens a preset run at `window` may send: the window less the reserved answer. */
export function usableInput(window: number): number {
  return window - Math.floor(window * RESERVE_SHARE);
}

/**
 * The most recent messages that fit `budget` tokens. A leading tool result whose call fell outside
 * the window is left out too, so no result is sent without its call.
 */
export function recentAtBudget(prefix: readonly Message[], budget: number, counter: TokenCounter): Message[] {
  let used = 0;
  let start = prefix.length;
  for (let i = prefix.length - 1; i >= 0; i--) {
    const t = counter.countMessage(prefix[i]!);
    if (used + t > budget) break;
    used += t;
    start = i;
  }
  while (start < prefix.length && prefix[start]!.role === 'tool') start++;
  return prefix.slice(start);
}

/**
 * Observation masking: tool outputs produced for the last `keepTurns` assistant messages stay; older
 * outputs are replaced by a placeholder. Observations that arrive as user messages (mini-swe-agent)
 * count as tool outputs of the assistant message before them.
 */
export function observationMasking(prefix: readonly Message[], keepTurns = 10): Message[] {
  let seen = 0;
  let keepFrom = 0;
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]!.role !== 'assistant') continue;
    seen++;
    if (seen === keepTurns) {
      keepFrom = i;
      break;
    }
  }
  let lastWasAssistant = false;
  return prefix.map((m, i) => {
    const observation =
      m.role === 'tool' || (m.role === 'user' && lastWasAssistant && i > 0 && !isFirstUser(prefix, i));
    lastWasAssistant = m.role === 'assistant';
    if (i >= keepFrom || !observation) return m;
    if (m.role === 'tool')
      return {
        ...m,
        parts: m.parts.map((p) => (p.type === 'tool-result' ? { ...p, output: '[output omitted]' } : p)),
      };
    return { ...m, parts: [{ type: 'text' as const, text: '[observation omitted]' }] };
  });
}

function isFirstUser(prefix: readonly Message[], i: number): boolean {
  return prefix.findIndex((m) => m.role === 'user') === i;
}

/** With the ahead path: runs, and which summary the cut's compaction used. */
export interface AheadTally {
  runs: number;
  ahead: number;
  inline: number;
  pending: number;
}

/**
 * Runs a ctxkit preset's pre-flight on the prefix (without its recorded provider usage) with a context
 * window of `window` tokens and 8% of it reserved for the answer, up to four times.
 */
export async function presetStrategy(
  preset: PresetName,
  prefix: readonly Message[],
  window: number,
  summarizer: Summarizer,
  ahead?: AheadTally,
): Promise<Message[]> {
  const pipeline = createPipeline({
    preset,
    budget: { contextWindow: window, reserveOutput: window - usableInput(window) },
    summarizer,
    clock: { now: () => Date.parse('2026-01-01T00:00:00Z') },
    ids: { next: (p = 'id') => `${p}_bench` },
  });
  // The recorded usage counts the real session's system prompt and tool schemas, which the prefix
  // does not hold; anchored to it, the estimate would see a context the bench never measures.
  const messages = prefix.map((m) => {
    if (m.usage === undefined) return m;
    const { usage: _drop, ...rest } = m;
    return rest;
  });
  // The ahead path: the compaction is prepared one step before the cut (the prefix without its
  // newest step) and the pre-flight at the cut applies it, carrying that step verbatim.
  if (ahead) await pipeline.ahead({ messages: messages.slice(0, newestStep(messages)) });
  let run = await pipeline.prepare({ messages });
  if (ahead) {
    ahead.runs++;
    for (const e of run.events) if (e.type === 'compaction-source') ahead[e.source]++;
  }
  // Presets that act once per call (turn trims, one compaction) get a few more pre-flights to settle.
  for (let i = 0; i < 3 && run.estimate.level !== 'ok' && run.messages !== messages; i++)
    run = await pipeline.prepare({ messages: run.messages, state: run.state });
  return run.send;
}

/** Start of the newest step: the last assistant message (0 when there is none). */
function newestStep(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i > 0; i--) if (messages[i]!.role === 'assistant') return i;
  return messages.length;
}

export function baselineStrategies(
  c: CompactionCase,
  counter: TokenCounter,
  budgets: readonly number[],
): StrategyResult[] {
  const out: StrategyResult[] = [{ strategy: 'full prefix', messages: c.prefix }];
  out.push({ strategy: 'observation masking', messages: observationMasking(c.prefix) });
  if (c.productionSummary) {
    const production = [c.productionSummary];
    out.push({ strategy: 'production summary', messages: production });
    out.push({
      strategy: 'recent @ production budget',
      messages: recentAtBudget(c.prefix, countTokens(production, counter), counter),
    });
  }
  for (const b of budgets)
    out.push({ strategy: `recent @ ${b}`, messages: recentAtBudget(c.prefix, b, counter) });
  return out;
}
