/**
 * Writing a conversation into the memory index: its turns and the units over them (see
 * `conversation-units.ts`). Embedding happens here, outside the stores: turns and fact keys are
 * embedded; windows and session spans take the mean of their turns' vectors when searched, so they
 * cost no embedding call and store no vector.
 */
import { CtxError } from '../errors.ts';
import {
  CONVERSATION_ID,
  type Conversation,
  type ConversationTurn,
  conversationSource,
  turnChunkId,
  type UnitKind,
  unitSource,
} from './conversation-units.ts';
import { type Embedder, embedAll } from './embedder.ts';
import { type FactExtractor, type IndexedFacts, indexFacts } from './fact-extractor.ts';
import { chunkOf } from './memory-index.ts';
import type { ChunkRecord, MemoryStore } from './memory-store.ts';
import { statementKey } from './statement-keys.ts';
import { dayOf } from './time-expressions.ts';

export interface IndexConversationOptions {
  tenant: string;
  project?: string;
  userId?: string;
  /** Embeds turns and fact keys; without one the conversation is searched by keyword only. */
  embedder?: Embedder;
  /** Turns in a window unit, centred on each turn (odd; 1 = no window units). @default 3 */
  windowTurns?: number;
  /**
   * Turns per session-span unit (a longer session gets several); 0 = no spans. Off by default: on
   * the open half of LoCoMo the weight selection gave spans weight 0 (docs/memory.md). @default 0
   */
  sessionSpan?: number;
  /** Write the deterministic fact key of every turn (`statementKey`). @default true */
  factKeys?: boolean;
  /**
   * Model facts, off the request path: give the extractor of the configured summarizer model
   * (`factExtractorFrom`) and where background work goes (`ctx.waitUntil`, a queue). Once the turns
   * are written, `indexFacts` starts for the conversation and its promise is handed to `defer`;
   * `indexConversation` resolves without waiting for it. That promise never rejects: a failing
   * session, or a failing write, is reported in `failed`. Without it no model is called.
   */
  facts?: DeferredFacts;
}

export interface DeferredFacts {
  extractor: FactExtractor;
  defer: (work: Promise<IndexedFacts>) => void;
}

export const INDEX_CONVERSATION_DEFAULTS = {
  windowTurns: 3,
  sessionSpan: 0,
  factKeys: true,
} as const satisfies Partial<IndexConversationOptions>;

/** At most this many characters of a turn are indexed (a pasted log is not a conversation turn). */
const MAX_TURN_CHARS = 20_000;

function checkId(value: unknown, path: string): void {
  if (typeof value !== 'string' || !CONVERSATION_ID.test(value))
    throw new CtxError('invalid_input', 'must match [A-Za-z0-9_.:-]{1,128}', { path });
}

function checkConversation(conversation: Conversation): void {
  checkId(conversation.id, 'conversation.id');
  if (!Array.isArray(conversation.sessions))
    throw new CtxError('invalid_input', 'must be an array', { path: 'conversation.sessions' });
  const sessions = new Set<string>();
  for (const [s, session] of conversation.sessions.entries()) {
    const at = `conversation.sessions[${s}]`;
    checkId(session.id, `${at}.id`);
    if (sessions.has(session.id))
      throw new CtxError('invalid_input', 'repeats a session id', { path: `${at}.id` });
    sessions.add(session.id);
    if (session.date != null && dayOf(session.date) === null)
      throw new CtxError('invalid_input', 'must be YYYY-MM-DD or null', { path: `${at}.date` });
    if (!Array.isArray(session.turns))
      throw new CtxError('invalid_input', 'must be an array', { path: `${at}.turns` });
    const turns = new Set<string>();
    for (const [t, turn] of session.turns.entries()) {
      checkId(turn.id, `${at}.turns[${t}].id`);
      if (turns.has(turn.id))
        throw new CtxError('invalid_input', 'repeats a turn id', { path: `${at}.turns[${t}].id` });
      turns.add(turn.id);
      if (
        typeof turn.speaker !== 'string' ||
        turn.speaker.trim() === '' ||
        turn.speaker.length > 80 ||
        turn.speaker.includes(': ')
      )
        throw new CtxError('invalid_input', 'must be 1–80 characters without ": "', {
          path: `${at}.turns[${t}].speaker`,
        });
      if (typeof turn.text !== 'string')
        throw new CtxError('invalid_input', 'must be a string', { path: `${at}.turns[${t}].text` });
    }
  }
}

function positiveInteger(name: string, value: number, odd = false): number {
  if (!Number.isInteger(value) || value < 1 || value > 1000 || (odd && value % 2 === 0))
    throw new CtxError('invalid_config', `must be ${odd ? 'an odd' : 'an'} integer from 1 to 1000`, {
      path: name,
    });
  return value;
}

/** The text a turn is indexed (and embedded) as: `speaker: text`. */
export function turnText(turn: Pick<ConversationTurn, 'speaker' | 'text'>): string {
  return `${turn.speaker}: ${turn.text.slice(0, MAX_TURN_CHARS)}`;
}

export interface IndexedConversation {
  turns: number;
  /** Units written, by kind. */
  units: Record<UnitKind, number>;
}

/**
 * Replaces the index of every session of the conversation (its turns, windows, session spans and
 * fact keys; `facts` written by `indexFacts` are kept) and returns what was written. Throws
 * `CtxError('invalid_input')` naming the field at fault.
 */
export async function indexConversation(
  store: MemoryStore,
  conversation: Conversation,
  options: IndexConversationOptions,
): Promise<IndexedConversation> {
  checkConversation(conversation);
  const facts = options.facts;
  if (
    facts !== undefined &&
    (typeof facts.extractor?.extract !== 'function' || typeof facts.defer !== 'function')
  )
    throw new CtxError('invalid_config', 'must be { extractor: FactExtractor, defer: (work) => void }', {
      path: 'facts',
    });
  const windowTurns = positiveInteger(
    'windowTurns',
    options.windowTurns ?? INDEX_CONVERSATION_DEFAULTS.windowTurns,
    true,
  );
  const spanOption = options.sessionSpan ?? INDEX_CONVERSATION_DEFAULTS.sessionSpan;
  const span = spanOption === 0 ? 0 : positiveInteger('sessionSpan', spanOption);
  const withKeys = options.factKeys ?? INDEX_CONVERSATION_DEFAULTS.factKeys;
  const embedder = options.embedder;
  const out: IndexedConversation = { turns: 0, units: { window: 0, session: 0, keys: 0, facts: 0 } };
  for (const session of conversation.sessions) {
    const source = conversationSource(conversation.id, session.id);
    const date = session.date ? session.date.slice(0, 10) : null;
    const base = (
      id: string,
      src: string,
      from: number,
      to: number,
      text: string,
      vector?: number,
    ): ChunkRecord =>
      chunkOf(
        options,
        { id, source: src, startLine: from, endLine: to, text, date },
        embedder && vector !== undefined
          ? { embedding: vectors[vector], model: embedder.modelId }
          : undefined,
      );
    const texts = session.turns.map(turnText);
    const speakers = [...new Set(session.turns.map((t) => t.speaker))];
    const keys = withKeys
      ? session.turns.map((t) => {
          const others = speakers.filter((s) => s !== t.speaker);
          return statementKey({
            speaker: t.speaker,
            text: t.text.slice(0, MAX_TURN_CHARS),
            date,
            ...(others.length === 1 ? { addressee: others[0]! } : {}),
          });
        })
      : [];
    const vectors = embedder ? await embedAll(embedder, [...texts, ...keys]) : [];
    const turns = session.turns.map((t, i) =>
      base(turnChunkId(source, t.id), source, i + 1, i + 1, texts[i]!, i),
    );
    const n = turns.length;
    const half = (windowTurns - 1) / 2;
    const windows: ChunkRecord[] = [];
    if (windowTurns > 1 && n > 1)
      for (let i = 0; i < n; i++) {
        const from = Math.max(0, i - half);
        const to = Math.min(n - 1, i + half);
        const src = unitSource(source, 'window');
        windows.push(base(`${src}#${i + 1}`, src, from + 1, to + 1, texts.slice(from, to + 1).join('\n')));
      }
    const spans: ChunkRecord[] = [];
    for (let from = 0; span > 0 && from < n; from += span) {
      const to = Math.min(n, from + span) - 1;
      const src = unitSource(source, 'session');
      spans.push(
        base(`${src}#${from + 1}-${to + 1}`, src, from + 1, to + 1, texts.slice(from, to + 1).join('\n')),
      );
    }
    const keyChunks = keys.map((k, i) => {
      const src = unitSource(source, 'keys');
      return base(`${src}#${i + 1}`, src, i + 1, i + 1, k, n + i);
    });
    await store.replaceChunks(options.tenant, source, turns);
    await store.replaceChunks(options.tenant, unitSource(source, 'window'), windows);
    await store.replaceChunks(options.tenant, unitSource(source, 'session'), spans);
    await store.replaceChunks(options.tenant, unitSource(source, 'keys'), keyChunks);
    out.turns += n;
    out.units.window += windows.length;
    out.units.session += spans.length;
    out.units.keys += keyChunks.length;
  }
  if (facts) facts.defer(factsInBackground(store, conversation, facts.extractor, options));
  return out;
}

/** `indexFacts` for the conversation, resolving with a write failure reported rather than thrown. */
function factsInBackground(
  store: MemoryStore,
  conversation: Conversation,
  extractor: FactExtractor,
  options: IndexConversationOptions,
): Promise<IndexedFacts> {
  const { tenant, project, userId, embedder } = options;
  return indexFacts(store, conversation, extractor, {
    tenant,
    ...(project !== undefined ? { project } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(embedder ? { embedder } : {}),
  }).catch((error: unknown) => ({
    facts: 0,
    failed: [{ session: '*', error: error instanceof Error ? error.message : String(error) }],
  }));
}
