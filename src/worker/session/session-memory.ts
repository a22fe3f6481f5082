/**
 * The memory side of a session run: the frozen memory block of the system prompt (memories and
 * recall from the project's other sessions), memories extracted by compaction, and 000 memory
 * flushes written to the tenant's daily memory document.
 */
import {
  buildMemoryBlock,
  compactionMemories,
  consolidateMemories,
  documentFiles,
  ensureMemoryBlock,
  indexDocument,
  type MemoryFlush,
  type Message,
  messageText,
  type PipelineRun,
  type PipelineState,
  saveMemory,
  selectMemories,
  type TokenCounter,
} from '../../core/index.ts';
import { withVectors } from '../embedder.ts';
import { appendFlush } from './memory-documents.ts';
import type { Loaded, SessionDeps } from './session-service.ts';
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

/**
 * The frozen memory block: memories and recall from other sessions, computed once per context. Entries
 * failing the prompt-injection scan (002 §4.11) are left out and listed in `block.dropped`.
 */
export async function withMemoryBlock(deps: SessionDeps, key: SessionKey, loaded: Loaded) {
  const now = deps.clock.now();
  return ensureMemoryBlock(loaded.state, async () => {
    const query = lastUserText(loaded.messages);
    const all = await deps.memories.list(key.tenant, { project: loaded.info.project, now });
    const selected = selectMemories(all, { query, now });
    const recall =
      query === ''
        ? []
        : await deps.sessions.recall(key.tenant, {
            project: loaded.info.project,
            excludeSession: key.session,
            query,
            limit: 3,
          });
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
 * `compaction` memory (working, 14 days) and the memories extracted in the same pass, in the
 * session's project; then consolidation (expired ones pruned, the 10 newest compaction memories kept).
 */
export async function saveExtracted(
  deps: SessionDeps,
  key: SessionKey,
  project: string,
  before: PipelineState,
  run: PipelineRun,
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
