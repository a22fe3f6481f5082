/**
 * The memory side of a session run: the frozen memory block of the system prompt (memories and
 * recall from the project's other sessions), memories extracted by compaction, and 000 memory
 * flushes written to the tenant's daily memory document.
 */
import {
  buildMemoryBlock,
  CtxError,
  compactionMemories,
  consolidateMemories,
  documentFiles,
  EXTRACTED_REACHES,
  type ExtractedReach,
  ensureMemoryBlock,
  indexDocument,
  type MemoryFlush,
  type MemoryRecord,
  type Message,
  messageText,
  type PipelineRun,
  type PipelineState,
  saveMemory,
  selectMemories,
  type TokenCounter,
} from '../../core/index.ts';
import { withVectors } from '../embedder.ts';
import type { Env } from '../env.ts';
import { appendFlush } from './memory-documents.ts';
import type { Loaded, SessionDeps } from './session-deps.ts';
import type { SessionKey } from './wire.ts';

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') {
      const text = messageText(m).trim();
      if (text !== '') return text.slice(0, 500);
    }
  }
  return '';
}

/** C0/C1 controls (tab and newline included: an injected line stays one line), DEL, bidi controls. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/g;
/** Longest injected title or text before the block's own clipping (220 characters a line). @default 500 */
export const INJECTED_MAX_CHARS = 500;

/** Text of another session or of a stored memory made safe for one line of the system prompt. */
export function sanitizeInjected(text: string, max = INJECTED_MAX_CHARS): string {
  const flat = text.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

function cleanMemory(m: MemoryRecord): MemoryRecord {
  return { ...m, title: sanitizeInjected(m.title, 200), content: sanitizeInjected(m.content) };
}

/** Sources whose summaries may reach another session of the project (`previousSessions`). */
const SHAREABLE_SUMMARIES = ['user', 'assistant'] as const;

/**
 * The stored memories a session's block may draw from: its `memories` setting over what it may see —
 * the shared rows of its project and every project, and its own session-scoped ones (another
 * session's never) — without compaction summaries; plus, with `previousSessions: 'project'`, the
 * summaries of the project's other sessions that came from no tool output.
 */
async function memoryPool(deps: SessionDeps, key: SessionKey, project: string, now: number) {
  const which = deps.memory?.memories ?? 'shared';
  if (which === 'off') return [];
  const visible = await deps.memories.list(key.tenant, {
    project,
    now,
    ...(which === 'own' ? { fromSession: key.session } : { visibleTo: key.session }),
  });
  const pool = visible.filter((m) => m.type !== 'compaction');
  if (deps.memory?.previousSessions !== 'project' || project === '' || which === 'own') return pool;
  const summaries = await deps.memories.list(key.tenant, {
    project,
    includeGlobal: false,
    now,
    types: ['compaction'],
    sources: SHAREABLE_SUMMARIES,
  });
  return [...pool, ...summaries.filter((m) => m.sessionId !== key.session)];
}

/**
 * The frozen memory block, computed once per context: the memories the session may see (`memoryPool`),
 * plus what the session's `memory` setting lets in from other sessions (`## Session Recall`,
 * `## Previous Sessions`; both off by default, and only within the session's project). Every injected
 * text is sanitised; entries failing the prompt-injection scan (002 §4.11) are left out and listed in
 * `block.dropped`.
 */
export async function withMemoryBlock(deps: SessionDeps, key: SessionKey, loaded: Loaded) {
  const now = deps.clock.now();
  const project = loaded.info.project;
  const withRecall = deps.memory?.recall === 'project' && project !== '';
  return ensureMemoryBlock(loaded.state, async () => {
    const query = lastUserText(loaded.messages);
    const pool = await memoryPool(deps, key, project, now);
    const selected = selectMemories(pool, { query, now }).map(cleanMemory);
    const recall =
      query === '' || !withRecall
        ? []
        : (
            await deps.sessions.recall(key.tenant, {
              project,
              excludeSession: key.session,
              query,
              limit: deps.memory?.recallLimit ?? 3,
            })
          ).map((h) => ({
            ...h,
            title: sanitizeInjected(h.title ?? '', 200),
            text: sanitizeInjected(h.text),
          }));
    // Entries failing the prompt-injection scan are dropped by the block, and never marked surfaced.
    const block = buildMemoryBlock(selected, recall, { counter: counterOf(deps), now });
    if (block.memoryIds.length > 0) await deps.memories.markSurfaced(key.tenant, block.memoryIds, now);
    return block;
  });
}

/** The block is capped with the counter the preset estimates with (the pipeline's, through `estimate`). */
function counterOf(deps: SessionDeps): TokenCounter {
  return {
    name: 'pipeline',
    countText: (text: string) => deps.pipeline.estimate({ messages: [], system: text }).tokens,
    countMessage: () => 0,
  };
}

/**
 * What a compaction writes to long-term memory (002 §4.7, `compactionMemories`): the new summary as a
 * `compaction` memory (working, 14 days) and the memories extracted in the same pass, each with its
 * provenance read from `span` (the context the run started from), kept with this session unless the
 * operator widens what ctxkit extracts (`MEMORY_EXTRACTED_REACH`); then consolidation (expired ones
 * pruned, the 10 newest compaction memories kept).
 */
export async function saveExtracted(
  deps: SessionDeps,
  key: SessionKey,
  project: string,
  before: PipelineState,
  run: PipelineRun,
  span: readonly Message[],
): Promise<string[]> {
  const summary =
    run.events.some((e) => e.type === 'compaction-end' && e.error === undefined) &&
    run.state.lastSummary !== undefined &&
    run.state.lastSummary !== before.lastSummary
      ? run.state.lastSummary
      : '';
  if (summary === '' && run.memories.length === 0) return [];
  const now = deps.clock.now();
  const records = compactionMemories(summary, run.memories, {
    tenant: key.tenant,
    project,
    now,
    ids: deps.ids,
    sessionId: key.session,
    span,
    reach: deps.memoryReach ?? 'session',
  });
  for (const record of records)
    await withVectors(deps.embedder, (embedder) => saveMemory(deps.memories, record, embedder));
  await consolidateMemories(deps.memories, key.tenant, { now, project });
  return records.map((r) => r.id);
}

/**
 * 000 memory flushes of trimmed or overflowed turns: a `## Trimmed Context` / `## Context Overflow
 * Recovery` section in the tenant's daily memory document, re-indexed for search.
 */
export async function writeFlushes(
  deps: SessionDeps,
  key: SessionKey,
  project: string,
  run: PipelineRun,
): Promise<void> {
  const flushes = (run as PipelineRun & { flushes?: MemoryFlush[] }).flushes ?? [];
  if (flushes.length === 0) return;
  const files = documentFiles(deps.memories, key.tenant, deps.clock);
  const iso = new Date(deps.clock.now()).toISOString();
  for (const flush of flushes) {
    const paths = await appendFlush(
      deps.documents,
      key.tenant,
      { reason: flush.reason, date: iso.slice(0, 10), time: iso.slice(11, 16), daily: flush.summary },
      deps.clock.now(),
    );
    for (const path of paths) {
      const content = await files.read(path);
      if (content !== undefined)
        await withVectors(deps.embedder, (embedder) =>
          indexDocument(deps.memories, path, content, {
            tenant: key.tenant,
            project,
            ...(embedder ? { embedder } : {}),
          }),
        );
    }
  }
}

/**
 * `MEMORY_EXTRACTED_REACH`: how far the memories ctxkit extracts on its own reach — `session` (the
 * default), `project` or `tenant`; tool-sourced ones stay with their session whatever it says.
 */
export function extractedReach(env: Env): ExtractedReach {
  const raw = env.MEMORY_EXTRACTED_REACH;
  if (raw === undefined || raw === '') return 'session';
  if (!EXTRACTED_REACHES.includes(raw as ExtractedReach))
    throw new CtxError('invalid_config', `must be one of ${EXTRACTED_REACHES.join(', ')}`, {
      path: 'MEMORY_EXTRACTED_REACH',
    });
  return raw as ExtractedReach;
}
