/**
 * Fact keys a model extracts at write time (LongMemEval's fact-augmented keys): for each session of
 * a conversation, short third-person facts with absolute dates, each citing the turns it comes from.
 * `indexFacts` writes them as `facts` units beside the deterministic fact keys, off the request
 * path: call it after `indexConversation`, in the background (a queue, `ctx.waitUntil`), whenever a
 * model is configured; searches see the facts from the next search on. No SDK is imported: the
 * function given to `factExtractorFrom` is the only effect (the same kind of function
 * `summarizerFrom` takes).
 */
import * as z from 'zod/mini';
import { CtxError } from '../errors.ts';
import { stripFence, stripThinking } from '../summarizers/prompts/parse-answer.ts';
import {
  type Conversation,
  type ConversationSession,
  conversationSource,
  unitSource,
} from './conversation-units.ts';
import type { Embedder } from './embedder.ts';
import { embeddedChunks } from './memory-index.ts';
import type { MemoryStore } from './memory-store.ts';

/** A fact and the ids of the turns of its session it was read from. */
export interface ExtractedFact {
  text: string;
  turns: string[];
}

export interface FactExtractor {
  readonly name: string;
  /** Throws on a provider failure; `indexFacts` reports it and goes on with the next session. */
  extract(session: ConversationSession, signal?: AbortSignal): Promise<ExtractedFact[]>;
}

/** One extraction call, as handed to the function of `factExtractorFrom`. */
export interface FactCall {
  system: string;
  prompt: string;
  maxOutputTokens: number;
  signal?: AbortSignal;
}

export type FactFn = (call: FactCall) => Promise<string | { text: string }> | string | { text: string };

export interface FactExtractorOptions {
  /** @default 'model-facts' */
  name?: string;
  /** Facts kept per session. @default 40 */
  maxFacts?: number;
  /** @default 2000 */
  maxOutputTokens?: number;
  /** Characters of a turn put in the prompt. @default 1000 */
  maxTurnChars?: number;
}

export const FACT_SYSTEM_PROMPT = `You extract facts from one session of a conversation for a memory index.
Write each fact as one short, self-contained sentence in the third person: full names instead of pronouns, absolute dates instead of relative ones (resolve "yesterday", "last week", "next month" against the session date).
Keep what a later question could ask about: events, plans, preferences, possessions, relationships, places, dates, numbers. Leave out greetings and small talk.
Cite the ids of the turns each fact comes from.
Answer with JSON only: {"facts":[{"fact":"…","turns":["<turn id>"]}]}`;

const answerSchema = z.object({
  facts: z.array(z.looseObject({ fact: z.string(), turns: z.array(z.string()) })),
});

/** The user prompt: the session's date and its turns as `[id] speaker: text`. */
export function factPrompt(session: ConversationSession, maxFacts: number, maxTurnChars = 1000): string {
  const lines = session.turns.map((t) => `[${t.id}] ${t.speaker}: ${t.text.slice(0, maxTurnChars)}`);
  return `Session date: ${session.date ?? 'unknown'}\nAt most ${maxFacts} facts.\n\n${lines.join('\n')}`;
}

/** Reads the model's answer: facts citing at least one turn of the session, at most `maxFacts`. */
export function parseFactAnswer(
  text: string,
  session: ConversationSession,
  maxFacts: number,
): ExtractedFact[] {
  let raw: unknown;
  try {
    raw = JSON.parse(stripFence(stripThinking(text).trim()));
  } catch (cause) {
    throw new CtxError('provider_error', `fact extraction: the answer is not JSON: ${text.slice(0, 120)}`, {
      cause,
    });
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success)
    throw new CtxError('provider_error', 'fact extraction: the answer has no "facts" array of {fact, turns}');
  const known = new Set(session.turns.map((t) => t.id));
  const out: ExtractedFact[] = [];
  for (const f of parsed.data.facts) {
    const fact = f.fact.trim().slice(0, 500);
    const turns = [...new Set(f.turns.filter((id) => known.has(id)))];
    if (fact === '' || turns.length === 0) continue;
    out.push({ text: fact, turns });
    if (out.length >= maxFacts) break;
  }
  return out;
}

/** A `FactExtractor` over any text-generating function (an OpenAI-compatible call, the AI SDK, …). */
export function factExtractorFrom(fn: FactFn, options: FactExtractorOptions = {}): FactExtractor {
  if (typeof fn !== 'function') throw new CtxError('invalid_config', 'must be a function', { path: 'fn' });
  const maxFacts = options.maxFacts ?? 40;
  if (!Number.isInteger(maxFacts) || maxFacts < 1 || maxFacts > 1000)
    throw new CtxError('invalid_config', 'must be an integer from 1 to 1000', { path: 'maxFacts' });
  const maxOutputTokens = options.maxOutputTokens ?? 2000;
  return {
    name: options.name ?? 'model-facts',
    async extract(session, signal) {
      const call: FactCall = {
        system: FACT_SYSTEM_PROMPT,
        prompt: factPrompt(session, maxFacts, options.maxTurnChars),
        maxOutputTokens,
      };
      if (signal) call.signal = signal;
      let answer: unknown;
      try {
        answer = await fn(call);
      } catch (cause) {
        throw new CtxError('provider_error', `fact extraction failed: ${String(cause).slice(0, 200)}`, {
          cause,
        });
      }
      const text = typeof answer === 'string' ? answer : (answer as { text?: unknown } | null)?.text;
      if (typeof text !== 'string' || text.trim() === '')
        throw new CtxError('provider_error', 'fact extraction: the function answered no text');
      return parseFactAnswer(text, session, maxFacts);
    },
  };
}

export interface IndexFactsOptions {
  tenant: string;
  project?: string;
  userId?: string;
  /** Embeds the facts (the same model as the turns', so their vectors are compared). */
  embedder?: Embedder;
  signal?: AbortSignal;
}

export interface IndexedFacts {
  facts: number;
  /** Sessions whose extraction failed (their earlier facts are kept), with why. */
  failed: { session: string; error: string }[];
}

/** Runs of consecutive positions: `[1, 2, 5]` → `[[1, 2], [5, 5]]`. */
function runs(positions: readonly number[]): [number, number][] {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const p of sorted) {
    const last = out.at(-1);
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/**
 * Extracts the facts of every session and replaces the session's `facts` units with them: one unit
 * per run of consecutive cited turns, so each covers exactly the turns it was read from. A failing
 * session keeps the facts it had and is reported, never thrown.
 */
export async function indexFacts(
  store: MemoryStore,
  conversation: Conversation,
  extractor: FactExtractor,
  options: IndexFactsOptions,
): Promise<IndexedFacts> {
  const out: IndexedFacts = { facts: 0, failed: [] };
  for (const session of conversation.sessions) {
    if (options.signal?.aborted) break;
    let facts: ExtractedFact[];
    try {
      facts = await extractor.extract(session, options.signal);
    } catch (error) {
      out.failed.push({ session: session.id, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const line = new Map(session.turns.map((t, i) => [t.id, i + 1]));
    const source = unitSource(conversationSource(conversation.id, session.id), 'facts');
    const date = session.date ? session.date.slice(0, 10) : null;
    const chunks = await embeddedChunks(
      options,
      options.embedder,
      facts.flatMap((f, k) =>
        runs(f.turns.map((id) => line.get(id)!)).map(([from, to]) => ({
          id: `${source}#${k + 1}:${from}-${to}`,
          source,
          startLine: from,
          endLine: to,
          text: f.text,
          date,
        })),
      ),
    );
    await store.replaceChunks(options.tenant, source, chunks);
    out.facts += facts.length;
  }
  return out;
}
