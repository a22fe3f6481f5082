/**
 * The recall bench: a real session's early facts (facts.ts), the session replayed into a context of a
 * given window with the recall tools on, then two measures per window: how many facts the prompt of
 * the new turn still holds, and how many a model gets back through the tools within their budget.
 *
 * The replay: the history is every message before the first user message after the early 75 (in a
 * Claude Code session, the user message that continues it), that message is the new turn; the context
 * prepares history and turn in one call, as a framework hook does on the turn's first model call.
 *
 * The model's procedure for each fact is procedure.ts (recall, then reread the refs it names); every
 * answer is held to `maxTokens`.
 */
import {
  createContext,
  createRecall,
  type Message,
  messageText,
  outputText,
  type RecallTools,
  sequentialIds,
} from '../../core/index.ts';
import { EARLY_MESSAGES, type Fact, holdsFact } from './facts.ts';
import { createFactProcedure, type FactOutcome, type FactProcedure } from './procedure.ts';

export interface RecallBenchRow {
  window: number;
  facts: number;
  /** Facts the prompt of the new turn still holds (its text, tool outputs and summaries). */
  inPrompt: number;
  /** Facts the tools returned. */
  returned: number;
  /** Facts the model had: in the prompt, or returned by the tools. */
  available: number;
  /** Tool calls the procedure made, and the tokens of their answers (the pipeline's counter). */
  calls: number;
  toolTokens: number;
  /** The prompt's estimate (tool definitions counted) and the usable input of the window. */
  promptTokens: number;
  usable: number;
  /** Per fact: how it came back (`recall`, `reread`, or `missed`), and whether the prompt held it. */
  detail: { kind: string; value: string; inPrompt: boolean; via: FactOutcome }[];
}

/** Messages before the first user message after the early history, and that message. */
export function replayCut(messages: readonly Message[]): { history: Message[]; turn: Message } | undefined {
  for (let i = EARLY_MESSAGES; i < messages.length; i++)
    if (messages[i]!.role === 'user') return { history: messages.slice(0, i), turn: messages[i]! };
  return undefined;
}

/** All the text a prompt shows the model (texts and tool outputs). */
export function promptText(messages: readonly Message[]): string {
  return messages
    .map((m) =>
      [messageText(m), ...m.parts.map((p) => (p.type === 'tool-result' ? outputText(p.output) : ''))].join(
        '\n',
      ),
    )
    .join('\n');
}

/** The model's procedure (procedure.ts) run against the tools directly. */
export async function fetchFacts(
  tools: RecallTools,
  facts: readonly Fact[],
  prompt?: string,
): Promise<FactProcedure> {
  const procedure = createFactProcedure(facts);
  let answer: string | undefined;
  for (let call = procedure.next(undefined, prompt); call; call = procedure.next(answer, prompt))
    answer = await tools.call(call.tool, call.args);
  return procedure;
}

export async function measureRecall(
  messages: readonly Message[],
  facts: readonly Fact[],
  window: number,
  maxTokens = 2000,
): Promise<RecallBenchRow> {
  const cut = replayCut(messages);
  if (!cut) throw new Error(`no user message after the first ${EARLY_MESSAGES} messages`);
  const ctx = createContext({
    budget: { contextWindow: window },
    recall: createRecall({ maxTokens }),
    ids: sequentialIds(),
  });
  const run = await ctx.prepare([...cut.history, cut.turn]);
  const tools = ctx.pipeline.recall!;
  const sent = promptText(run.send);
  const row: RecallBenchRow = {
    window,
    facts: facts.length,
    inPrompt: 0,
    returned: 0,
    available: 0,
    calls: 0,
    toolTokens: 0,
    promptTokens: run.estimate.after,
    usable: ctx.pipeline.budget.usable,
    detail: [],
  };
  const procedure = await fetchFacts(tools, facts, sent);
  for (const [i, fact] of facts.entries()) {
    const inPrompt = holdsFact(sent, fact);
    const via = procedure.outcomes[i] ?? 'missed';
    const answers = procedure.answers[i]!;
    row.calls += answers.length;
    for (const a of answers) row.toolTokens += ctx.pipeline.counter.countText(a);
    if (inPrompt) row.inPrompt++;
    if (via === 'recall' || via === 'reread') row.returned++;
    if (inPrompt || via !== 'missed') row.available++;
    row.detail.push({ kind: fact.kind, value: fact.value, inPrompt, via });
  }
  return row;
}
