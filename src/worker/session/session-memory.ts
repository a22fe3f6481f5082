/**
 * The memory side of a session run: the frozen memory block of the system prompt (memories and
 * recall from the project's other sessions), memories extracted by compaction, and 000 memory
 * flushes written to the tenant's daily memory document.
 */
import {
  buildMemoryBlock,
  consolidateMemories,
  documentFiles,
  ensureMemoryBlock,
  indexDocument,
  type MemoryFlush,
  type MemoryRecord,
  type Message,
  messageText,
  type PipelineRun,
  saveMemory,
  selectMemories,
  type TokenCounter,
  writeFlush,
} from '../../core/index.ts';
import type { Loaded, SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

const DAY = 86_400_000;

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

/** The frozen memory block: memories and recall from other sessions, computed once per context. */
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
    if (selected.length > 0)
      await deps.memories.markSurfaced(
        key.tenant,
        selected.map((m) => m.id),
        now,
      );
    return buildMemoryBlock(selected, recall, { counter: counterOf(deps), now });
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

/** Saves extracted memories in the session's project; compaction memories are consolidated after. */
export async function saveExtracted(
  deps: SessionDeps,
  key: SessionKey,
  project: string,
  run: PipelineRun,
): Promise<string[]> {
  if (run.memories.length === 0) return [];
  const now = deps.clock.now();
  const ids: string[] = [];
  for (const m of run.memories) {
    const record: MemoryRecord = {
      tenant: key.tenant,
      id: deps.ids.next('mem'),
      project,
      userId: '',
      type: m.type,
      class: m.class ?? 'durable',
      title: m.title,
      content: m.content,
      pinned: false,
      expiresAt: m.expiresDays === undefined ? null : now + m.expiresDays * DAY,
      createdAt: now,
      updatedAt: now,
      lastSurfacedAt: null,
    };
    await saveMemory(deps.memories, record);
    ids.push(record.id);
  }
  await consolidateMemories(deps.memories, key.tenant, { now, project });
  return ids;
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
    const paths = await writeFlush(files, {
      reason: flush.reason,
      date: iso.slice(0, 10),
      time: iso.slice(11, 16),
      daily: flush.summary,
    });
    for (const path of paths) {
      const content = await files.read(path);
      if (content !== undefined)
        await indexDocument(deps.memories, path, content, { tenant: key.tenant, project });
    }
  }
}
