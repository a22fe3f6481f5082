/**
 * Writing to the index: memories (with their vector) and Markdown documents (chunked, daily files
 * dated for decay). Embedding happens here, outside the stores.
 */
import { type ChunkOptions, chunkLines } from './chunker.ts';
import { type Embedder, embedAll } from './embedder.ts';
import { dailyDate } from './hybrid-search.ts';
import { type ChunkRecord, type MemoryRecord, type MemoryStore, memorySource } from './memory-store.ts';

/** The text a memory is indexed (and embedded) as. */
export function memoryText(memory: Pick<MemoryRecord, 'title' | 'content'>): string {
  return memory.title === '' ? memory.content : `${memory.title}\n${memory.content}`;
}

/** The one index chunk that stands for a memory in every store (source `memorySource(id)`). */
export function memoryChunk(
  memory: MemoryRecord,
  vector?: { embedding: number[]; model: string },
): ChunkRecord {
  const source = memorySource(memory.id);
  return {
    tenant: memory.tenant,
    id: source,
    project: memory.project,
    userId: memory.userId,
    source,
    startLine: 1,
    endLine: 1,
    text: memoryText(memory),
    date: null,
    embedding: vector?.embedding ?? null,
    model: vector?.model ?? null,
  };
}

export async function saveMemory(
  store: MemoryStore,
  memory: MemoryRecord,
  embedder?: Embedder,
): Promise<MemoryRecord> {
  if (!embedder) return store.put(memory);
  const [embedding] = await embedAll(embedder, [memoryText(memory)]);
  return store.put(memory, { embedding: embedding!, model: embedder.modelId });
}

/** Where a written chunk belongs: its tenant and scope (`''` = global project / shared user). */
export interface ChunkScope {
  tenant: string;
  project?: string;
  userId?: string;
}

/** A chunk in the scope, with the vector (and its model) when there is one. */
export function chunkOf(
  scope: ChunkScope,
  fields: ChunkFields,
  vector?: { embedding: number[] | undefined; model: string },
): ChunkRecord {
  const embedding = vector?.embedding;
  return {
    tenant: scope.tenant,
    project: scope.project ?? '',
    userId: scope.userId ?? '',
    ...fields,
    embedding: embedding ?? null,
    model: embedding ? vector!.model : null,
  };
}

type ChunkFields = Pick<ChunkRecord, 'id' | 'source' | 'startLine' | 'endLine' | 'text' | 'date'>;

/** The chunks of `pieces` in the scope, each embedded by `embedder` when one is given. */
export async function embeddedChunks(
  scope: ChunkScope,
  embedder: Embedder | undefined,
  pieces: readonly ChunkFields[],
): Promise<ChunkRecord[]> {
  const vectors = embedder
    ? await embedAll(
        embedder,
        pieces.map((p) => p.text),
      )
    : [];
  return pieces.map((p, i) =>
    chunkOf(scope, p, embedder && { embedding: vectors[i], model: embedder.modelId }),
  );
}

export interface IndexDocumentOptions extends ChunkOptions {
  tenant: string;
  project?: string;
  userId?: string;
  embedder?: Embedder;
}

/** Chunks `content` and replaces the chunks of `path`; returns the chunks written. */
export async function indexDocument(
  store: MemoryStore,
  path: string,
  content: string,
  options: IndexDocumentOptions,
): Promise<ChunkRecord[]> {
  const chunks = await embeddedChunks(
    options,
    options.embedder,
    chunkLines(content, options).map((p) => ({
      id: `${path}#${p.startLine}-${p.endLine}`,
      source: path,
      startLine: p.startLine,
      endLine: p.endLine,
      text: p.text,
      date: dailyDate(path),
    })),
  );
  await store.replaceChunks(options.tenant, path, chunks);
  return chunks;
}
