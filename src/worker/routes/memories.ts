/**
 * Long-term memories of the tenant: create, list, read, delete, and hybrid search (keyword side:
 * FTS5 BM25 over the memory and daily-memory chunks, plus vectors when Workers AI is bound). Every
 * memory carries its provenance — `source` (user, assistant, tool, import), the session it came from
 * and its scope — so that one can be listed by where it came from, traced to its session and deleted.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import {
  CtxError,
  MEMORY_CLASSES,
  MEMORY_SOURCES,
  MEMORY_TYPES,
  type MemoryRecord,
  type MemorySource,
  saveMemory,
  searchMemory,
} from '../../core/index.ts';
import { withVectors, workerEmbedder } from '../embedder.ts';
import { type AppEnv, ID_PATTERN, idParam, jsonBody, queryParams } from '../http/context.ts';
import { byteLength, storageQuota, withReservation } from '../limits/storage-quota.ts';
import { createD1MemoryStore, createD1SessionStore } from '../store/d1-stores.ts';

/** A chunk's vector as stored (base64 of 384 float32s, Workers AI's default model). */
const VECTOR_BYTES = 2048;

const DAY = 86_400_000;

const createSchema = z.strictObject({
  type: z.enum(MEMORY_TYPES as [string, ...string[]]),
  /** @default 'durable' */
  class: z.enum(MEMORY_CLASSES as [string, ...string[]]).optional(),
  title: z.string().min(1).max(500),
  content: z.string().min(1).max(20_000),
  /** @default '' (every project) */
  project: z.string().max(200).optional(),
  /** @default false */
  pinned: z.boolean().optional(),
  /** Days until it expires; unset = never. */
  expiresDays: z.number().positive().max(36_500).optional(),
  /** Where its text came from. @default 'user' */
  source: z.enum(MEMORY_SOURCES as [string, ...string[]]).optional(),
  /** Only this session of the tenant sees it (scope `session`). @default none: shared in `project` */
  session: z.string().regex(ID_PATTERN, 'must be a session id').optional(),
});

const listQuery = z.strictObject({
  project: z.string().max(200).optional(),
  type: z.enum(MEMORY_TYPES as [string, ...string[]]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  /** Only memories of this source. */
  source: z.enum(MEMORY_SOURCES as [string, ...string[]]).optional(),
  /** Only memories made in this session. */
  session: z.string().regex(ID_PATTERN, 'must be a session id').optional(),
});

const documentsQuery = z.strictObject({ prefix: z.string().max(300).optional() });

const searchSchema = z.strictObject({
  query: z.string().min(1).max(2000),
  project: z.string().max(200).optional(),
  /** @default 10 */
  limit: z.number().int().min(1).max(100).optional(),
  /**
   * Scores below are dropped. @default 0 — FTS5 MATCH already keeps only chunks with a query term,
   * and BM25 scores of a small corpus are tiny (idf ≈ 0), so a positive default would drop real hits.
   */
  minScore: z.number().min(0).max(1).optional(),
  /** `default` (stemmed keywords, normalised fusion, neighbour context) or CowAgent's scoring. */
  mode: z.enum(['default', 'cowagent']).optional(),
  /** "Recent first": daily memory decays with this half-life in days (cowagent: 30 unless given). */
  halfLifeDays: z.number().positive().max(36_500).optional(),
  /**
   * CJK fallback when FTS finds nothing: `bigrams` scores the share of the query's bigrams found;
   * `runs` is CowAgent's rule (004 §2.2: whole runs of ≥ 2 ideographs, every hit 0.5). @default 'bigrams'
   */
  cjkFallback: z.enum(['bigrams', 'runs']).optional(),
});

/** Every body and query schema of these routes (walked by the bounds audit). */
export const memoryRouteSchemas = {
  create: createSchema,
  list: listQuery,
  documents: documentsQuery,
  search: searchSchema,
};

export function memoryRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/memories', async (c) => {
    const body = await jsonBody(c, createSchema);
    const now = Date.now();
    const tenant = c.get('tenant');
    if (body.session !== undefined && !(await createD1SessionStore(c.env.DB).get(tenant, body.session)))
      throw new CtxError('not_found', `session ${body.session} not found`, { path: 'session' });
    const record: MemoryRecord = {
      tenant: c.get('tenant'),
      id: `mem_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
      project: body.project ?? '',
      userId: '',
      type: body.type as MemoryRecord['type'],
      class: (body.class ?? 'durable') as MemoryRecord['class'],
      title: body.title,
      content: body.content,
      pinned: body.pinned ?? false,
      expiresAt: body.expiresDays === undefined ? null : now + Math.round(body.expiresDays * DAY),
      createdAt: now,
      updatedAt: now,
      lastSurfacedAt: null,
      source: (body.source ?? 'user') as MemorySource,
      sessionId: body.session ?? '',
      scope: body.session === undefined ? 'shared' : 'session',
    };
    const store = createD1MemoryStore(c.env.DB);
    // After validation: the row and its search chunk (with a vector when Workers AI is bound), reserved.
    const bytes = 2 * byteLength(record.title + record.content) + VECTOR_BYTES;
    const saved = await withReservation(storageQuota(c.env, tenant), bytes, () =>
      withVectors(workerEmbedder(c.env), (embedder) => saveMemory(store, record, embedder)),
    );
    return c.json({ memory: publicMemory(saved) }, 201);
  });

  app.get('/v1/memories', async (c) => {
    const q = queryParams(c, listQuery);
    const memories = await createD1MemoryStore(c.env.DB).list(c.get('tenant'), {
      ...(q.project !== undefined ? { project: q.project } : {}),
      ...(q.type !== undefined ? { types: [q.type as MemoryRecord['type']] } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(q.source !== undefined ? { sources: [q.source as MemorySource] } : {}),
      ...(q.session !== undefined ? { fromSession: q.session } : {}),
      now: Date.now(),
    });
    return c.json({ memories: memories.map(publicMemory) });
  });

  // 000/004 Markdown memory kept as rows: `MEMORY.md` and the daily files `memory/YYYY-MM-DD.md`.
  app.get('/v1/memory-documents', async (c) => {
    const q = queryParams(c, documentsQuery);
    const documents = await createD1MemoryStore(c.env.DB).listDocuments(c.get('tenant'), q.prefix);
    return c.json({ documents });
  });

  app.get('/v1/memories/:id', async (c) => {
    const id = idParam(c, 'id');
    const memory = await createD1MemoryStore(c.env.DB).get(c.get('tenant'), id);
    if (!memory) throw new CtxError('not_found', `memory ${id} not found`, { path: 'params.id' });
    return c.json({ memory: publicMemory(memory) });
  });

  app.delete('/v1/memories/:id', async (c) => {
    const id = idParam(c, 'id');
    const removed = await createD1MemoryStore(c.env.DB).delete(c.get('tenant'), [id]);
    if (removed === 0) throw new CtxError('not_found', `memory ${id} not found`, { path: 'params.id' });
    return c.body(null, 204);
  });

  app.post('/v1/memories/search', async (c) => {
    const body = await jsonBody(c, searchSchema);
    const embedder = workerEmbedder(c.env);
    const store = createD1MemoryStore(c.env.DB);
    const base = {
      now: Date.now(),
      minScore: body.minScore ?? 0,
      ...(body.project !== undefined ? { project: body.project } : {}),
      ...(body.limit !== undefined ? { maxResults: body.limit } : {}),
      ...(body.mode !== undefined ? { mode: body.mode } : {}),
      ...(body.halfLifeDays !== undefined ? { halfLifeDays: body.halfLifeDays } : {}),
      ...(body.cjkFallback !== undefined ? { cjkFallback: body.cjkFallback } : {}),
    };
    // With Workers AI: hybrid search. Without: keyword only (the default mode then gives the keyword
    // side the whole score; CowAgent's mode is told so, instead of capping it at its 0.3 weight).
    const hits = await withVectors(embedder, (e) =>
      searchMemory(
        store,
        c.get('tenant'),
        body.query,
        e
          ? { ...base, embedder: e }
          : body.mode === 'cowagent'
            ? { ...base, vectorWeight: 0, keywordWeight: 1 }
            : base,
      ),
    );
    return c.json({
      hits: hits.map((h) => ({
        source: h.chunk.source,
        lines: [h.chunk.startLine, h.chunk.endLine],
        text: h.chunk.text,
        date: h.chunk.date,
        score: h.score,
        keywordScore: h.keywordScore,
        vectorScore: h.vectorScore,
      })),
    });
  });
}

/** The memory without its tenant (the caller knows it). */
function publicMemory(m: MemoryRecord): Omit<MemoryRecord, 'tenant'> {
  const { tenant: _tenant, ...rest } = m;
  return rest;
}
