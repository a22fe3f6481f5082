/** The reference `MemoryStore`: plain maps and an in-memory BM25, for tests and library users. */
import { bm25Search } from './bm25.ts';
import { memoryChunk } from './memory-index.ts';
import {
  buildChunkIndex,
  type ChunkIndex,
  type ChunkRecord,
  inScope,
  type MemoryDocument,
  type MemoryRecord,
  type MemoryScope,
  type MemoryStore,
  memorySource,
  passesProvenance,
  provenanceOf,
} from './memory-store.ts';

const clone = <T>(v: T): T => structuredClone(v);

export function createInMemoryMemoryStore(): MemoryStore {
  const memories = new Map<string, MemoryRecord>();
  const chunks = new Map<string, ChunkRecord>();
  const documents = new Map<string, MemoryDocument & { tenant: string }>();
  const k = (tenant: string, id: string) => `${tenant}\u0000${id}`;
  const tenantChunks = (tenant: string) => [...chunks.values()].filter((c) => c.tenant === tenant);
  /** Built indexes by tenant and model; dropped on the tenant's next chunk write. */
  const indexes = new Map<string, Map<string | null, ChunkIndex>>();

  const replaceChunks = async (tenant: string, source: string, next: readonly ChunkRecord[]) => {
    indexes.delete(tenant);
    for (const [key, c] of chunks) if (c.tenant === tenant && c.source === source) chunks.delete(key);
    for (const c of next) chunks.set(k(tenant, c.id), clone({ ...c, tenant, source }));
  };

  const keywordSearch = async (tenant: string, match: string, scope: MemoryScope, limit: number) => {
    if (match.trim() === '') return [];
    // `match` is an escaped FTS5 query: its quoted tokens are the terms.
    const terms = [...match.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replaceAll('""', '"'));
    const pool = tenantChunks(tenant).filter((c) => inScope(c, scope));
    return bm25Search(pool, terms.join(' '), limit).map((h) => ({ chunk: clone(h.chunk), bm25: h.bm25 }));
  };

  return {
    async put(input, vector) {
      // Stored as the SQL stores keep it: the provenance fields with their defaults.
      const memory = { ...input, ...provenanceOf(input) };
      memories.set(k(memory.tenant, memory.id), clone(memory));
      await replaceChunks(memory.tenant, memorySource(memory.id), [memoryChunk(memory, vector)]);
      return clone(memory);
    },
    async get(tenant, id) {
      const m = memories.get(k(tenant, id));
      return m ? clone(m) : undefined;
    },
    async tenantsWithExpired(now) {
      const tenants = new Set<string>();
      for (const m of memories.values())
        if (m.expiresAt !== null && m.expiresAt <= now) tenants.add(m.tenant);
      return [...tenants].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },
    async list(tenant, options = {}) {
      const now = options.now;
      return [...memories.values()]
        .filter(
          (m) =>
            m.tenant === tenant &&
            inScope(m, options) &&
            passesProvenance(m, options) &&
            (options.types === undefined || options.types.includes(m.type)) &&
            (now === undefined || m.expiresAt === null || m.expiresAt > now),
        )
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1))
        .slice(0, options.limit ?? 200)
        .map(clone);
    },
    async delete(tenant, ids) {
      let n = 0;
      for (const id of ids) {
        if (memories.delete(k(tenant, id))) n++;
        await replaceChunks(tenant, memorySource(id), []);
      }
      return n;
    },
    async markSurfaced(tenant, ids, at) {
      for (const id of ids) {
        const m = memories.get(k(tenant, id));
        if (m) m.lastSurfacedAt = at;
      }
    },
    replaceChunks,
    keywordSearch,
    async keywordRanks(tenant, match, scope, limit) {
      return (await keywordSearch(tenant, match, scope, limit)).map((h) => ({
        id: h.chunk.id,
        bm25: h.bm25,
      }));
    },
    async substringSearch(tenant, runs, scope, limit) {
      return tenantChunks(tenant)
        .filter((c) => inScope(c, scope) && runs.some((r) => c.text.includes(r)))
        .slice(0, limit)
        .map(clone);
    },
    async vectorChunks(tenant, model, scope) {
      return tenantChunks(tenant)
        .filter((c) => c.model === model && c.embedding !== null && inScope(c, scope))
        .map(clone);
    },
    async chunkIndex(tenant, model) {
      const byModel = indexes.get(tenant) ?? new Map<string | null, ChunkIndex>();
      indexes.set(tenant, byModel);
      let index = byModel.get(model);
      if (!index) {
        index = buildChunkIndex(tenantChunks(tenant), model, (c) => ({ chunk: c, vector: c.embedding }));
        byModel.set(model, index);
      }
      return index;
    },
    async readDocument(tenant, path) {
      const d = documents.get(k(tenant, path));
      return d ? { path: d.path, content: d.content, updatedAt: d.updatedAt } : undefined;
    },
    async writeDocument(tenant, path, content, at) {
      documents.set(k(tenant, path), { tenant, path, content, updatedAt: at });
    },
    async listDocuments(tenant, prefix = '') {
      return [...documents.values()]
        .filter((d) => d.tenant === tenant && d.path.startsWith(prefix))
        .sort((a, b) => (a.path < b.path ? -1 : 1))
        .map((d) => ({ path: d.path, content: d.content, updatedAt: d.updatedAt }));
    },
  };
}
