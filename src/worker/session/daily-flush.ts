/**
 * The 23:55 daily summary of one session (004, SEED-RULES §2.3): the session's new user/assistant
 * text since the last daily flush is summarised (`memory-flush`) into the tenant's daily memory
 * document `memory/YYYY-MM-DD.md` (`## Daily Summary (HH:MM)`), long-term lines into `MEMORY.md`.
 * Skipped when nothing changed (same SHA-256 of the text). Texts that a trim or an overflow already
 * flushed are left out, and the texts flushed here are recorded in the session's pipeline state
 * (`flushed`), so no later flush writes them again. The documents are shared by the tenant's
 * sessions, so they are not re-indexed here: the cron re-indexes each written document once, after
 * every session has flushed (`indexMemoryDocument`). Re-indexing the whole growing document after
 * each of N sessions was O(N²) work that held the isolate for seconds (issue 17).
 */
import {
  documentFiles,
  flushLabels,
  indexDocument,
  type Message,
  memoryFlushFallback,
  messageText,
  recordFlushed,
  type Summarizer,
  sha256Hex,
  unflushedMessages,
} from '../../core/index.ts';
import { withVectors } from '../embedder.ts';
import { appendFlush } from './memory-documents.ts';
import { afterSetState, freshView } from './session-cache.ts';
import { requireSession, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

export interface DailyMark {
  /** SHA-256 of the text flushed last time. */
  hash: string;
  /** Seq of the newest row flushed last time. */
  seq: number;
}

export type DailyFlushResult =
  | { status: 'unchanged'; mark: DailyMark | null }
  | {
      status: 'flushed';
      mark: DailyMark;
      /** Documents written, to be re-indexed by the caller (`indexMemoryDocument`). */
      paths: string[];
      fallback: boolean;
      /** The session's project: the chunks of its documents are indexed under it. */
      project: string;
    };

function utcStamp(ms: number): { date: string; time: string } {
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

export async function dailyFlush(
  deps: SessionDeps,
  key: SessionKey,
  summarizer: Summarizer,
  preset: string,
  last: DailyMark | null,
): Promise<DailyFlushResult> {
  const info = await requireSession(deps, key);
  const rows = await deps.sessions.messages(key.tenant, key.session, { afterSeq: last?.seq ?? 0 });
  const texts: Message[] = rows
    .map((r) => r.message)
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && messageText(m).trim() !== '');
  if (texts.length === 0) return { status: 'unchanged', mark: last };
  const hash = await sha256Hex(texts.map((m) => `${m.role}: ${messageText(m)}`).join('\n'));
  const mark: DailyMark = { hash, seq: rows[rows.length - 1]!.seq };
  if (last && hash === last.hash) return { status: 'unchanged', mark };
  // 000 §2.3: the daily flush de-duplicates against every earlier flush of the session, and records its own.
  const state =
    freshView(deps.cache, deps.clock.now())?.state ?? (await deps.sessions.getState(key.tenant, key.session));
  const { fresh, keys } = await unflushedMessages(texts, state.pipeline.flushed);
  if (fresh.length === 0) return { status: 'unchanged', mark };

  let daily = '';
  let longTerm: string[] = [];
  let fallback = false;
  try {
    const result = await summarizer.summarize({ purpose: 'memory-flush', preset, messages: fresh });
    daily = result.summary.trim() === '无' ? '' : result.summary.trim();
    longTerm = (result.memories ?? []).map((m) => (m.title ? `${m.title}: ${m.content}` : m.content));
  } catch (error) {
    console.warn('ctxkit daily flush: summarizer failed, using the rule-based fallback', error);
  }
  if (daily === '') {
    daily = memoryFlushFallback(fresh, 10, flushLabels(preset));
    fallback = true;
  }
  const now = deps.clock.now();
  const paths = await appendFlush(
    deps.documents,
    key.tenant,
    { reason: 'daily', ...utcStamp(now), daily, longTerm },
    now,
  );
  // Recorded once the daily document holds them: a failed append leaves them to the next run.
  const next = {
    ...state,
    pipeline: { ...state.pipeline, flushed: recordFlushed(state.pipeline.flushed, keys) },
  };
  await deps.sessions.setState(key.tenant, key.session, next);
  afterSetState(deps.cache, next, now);
  return { status: 'flushed', mark, paths, fallback, project: info.project };
}

/** Re-indexes one memory document for search (chunks, BM25 terms, vectors when Workers AI is bound). */
export async function indexMemoryDocument(
  deps: Pick<SessionDeps, 'memories' | 'embedder' | 'clock'>,
  tenant: string,
  path: string,
  project: string,
): Promise<boolean> {
  const content = await documentFiles(deps.memories, tenant, deps.clock).read(path);
  if (content === undefined) return false;
  await withVectors(deps.embedder, (embedder) =>
    indexDocument(deps.memories, path, content, {
      tenant,
      project,
      ...(embedder ? { embedder } : {}),
    }),
  );
  return true;
}
