/** `MemoryStore` over the shared drizzle schema; used by the SQLite (Node) and D1 (worker) stores. */
import {
  and,
  asc,
  desc,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  like,
  lte,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import {
  buildChunkIndex,
  type ChunkIndex,
  type ChunkRecord,
  type MemoryRecord,
  type MemoryScope,
  type MemoryStore,
  memoryChunk,
  memorySource,
  provenanceOf,
} from '../../core/index.ts';
import { chunks, documents, memories } from '../schema.ts';
import { chunked, type SqlDriver, type SqlWrite } from './sql-driver.ts';
import { decodeVector, encodeVector } from './vector-codec.ts';

type ChunkRow = typeof chunks.$inferSelect;
type MemoryRow = typeof memories.$inferSelect;

function toChunk(r: ChunkRow): ChunkRecord {
  return {
    tenant: r.tenant,
    id: r.id,
    project: r.project,
    userId: r.userId,
    source: r.source,
    startLine: r.startLine,
    endLine: r.endLine,
    text: r.text,
    date: r.date,
    embedding: r.embedding === null ? null : decodeVector(r.embedding),
    model: r.model,
  };
}

function toMemory(r: MemoryRow): MemoryRecord {
  return { ...r };
}

/** Raw `SELECT c.*` rows use column names. */
interface RawChunk {
  pk: number;
  tenant: string;
  id: string;
  project: string;
  user_id: string;
  source: string;
  start_line: number;
  end_line: number;
  text: string;
  date: string | null;
  embedding: string | null;
  model: string | null;
  dims: number | null;
  rank: number;
}

function fromRaw(r: RawChunk): ChunkRecord {
  return toChunk({
    pk: r.pk,
    tenant: r.tenant,
    id: r.id,
    project: r.project,
    userId: r.user_id,
    source: r.source,
    startLine: r.start_line,
    endLine: r.end_line,
    text: r.text,
    date: r.date,
    embedding: r.embedding,
    model: r.model,
    dims: r.dims,
  });
}

/** Scope filter on `project` / `user_id` columns (optionally `c.`-prefixed in raw SQL). */
function scopeSql(scope: MemoryScope, prefix: string): SQL {
  const parts: SQL[] = [];
  const includeGlobal = scope.includeGlobal ?? true;
  if (scope.project !== undefined)
    parts.push(
      includeGlobal
        ? sql
            .raw(`(${prefix}project = `)
            .append(sql`${scope.project} OR ${sql.raw(`${prefix}project`)} = '')`)
        : sql.raw(`${prefix}project = `).append(sql`${scope.project}`),
    );
  parts.push(sql.raw(`(${prefix}user_id = '' OR ${prefix}user_id = `).append(sql`${scope.userId ?? ''})`));
  return sql.join(parts, sql` AND `);
}

export interface SqlMemoryStoreOptions {
  /**
   * The object the decoded chunk indexes are cached under (one cache per database, shared by every
   * store made with the same key, e.g. the D1 binding across requests). @default the driver
   */
  cacheKey?: object;
  /** Tenant+model indexes kept per cache key, least recently used dropped first. @default 64 */
  cachedIndexes?: number;
}

interface CachedIndex {
  stamp: string;
  index: ChunkIndex;
}

const indexCaches = new WeakMap<object, Map<string, CachedIndex>>();

/** The FTS5 token naming a tenant in `chunks_fts.tenant_key` (as the migration's triggers write it). */
export function tenantKey(tenant: string): string {
  let hex = '';
  for (const b of new TextEncoder().encode(tenant)) hex += b.toString(16).padStart(2, '0');
  return `t${hex}`;
}

/**
 * The MATCH expression of a tenant's keyword search: the tenant is part of it (its own indexed
 * column, weight 0 in `bm25()`), so FTS5 intersects with the tenant's rows instead of ranking every
 * tenant's matches and filtering after. `match` is an escaped query (`toFtsQuery`).
 */
export function ftsTenantMatch(tenant: string, match: string): string {
  return `tenant_key : "${tenantKey(tenant)}" AND text : (${match})`;
}

export function createSqlMemoryStore(driver: SqlDriver, options: SqlMemoryStoreOptions = {}): MemoryStore {
  const { db } = driver;
  const cacheKey = options.cacheKey ?? driver;
  const cacheLimit = options.cachedIndexes ?? 64;
  const indexes = indexCaches.get(cacheKey) ?? new Map<string, CachedIndex>();
  indexCaches.set(cacheKey, indexes);
  const chunkInsert = (tenant: string, c: ChunkRecord): SqlWrite =>
    db.insert(chunks).values({
      tenant,
      id: c.id,
      project: c.project,
      userId: c.userId,
      source: c.source,
      startLine: c.startLine,
      endLine: c.endLine,
      text: c.text,
      date: c.date,
      embedding: c.embedding === null ? null : encodeVector(c.embedding),
      model: c.model,
      dims: c.embedding?.length ?? null,
    });
  const deleteSource = (tenant: string, source: string): SqlWrite =>
    db.delete(chunks).where(and(eq(chunks.tenant, tenant), eq(chunks.source, source)));
  const memoryWhere = (tenant: string, id: string) => and(eq(memories.tenant, tenant), eq(memories.id, id));

  return {
    async put(input, vector) {
      const memory = { ...input, ...provenanceOf(input) };
      const source = memorySource(memory.id);
      const chunk = memoryChunk(memory, vector);
      const { tenant, id, ...rest } = memory;
      await driver.batch([
        db
          .insert(memories)
          .values(memory)
          .onConflictDoUpdate({ target: [memories.tenant, memories.id], set: rest }),
        deleteSource(tenant, source),
        chunkInsert(tenant, chunk),
      ]);
      return { ...memory };
    },
    async get(tenant, id) {
      const [row] = await db.select().from(memories).where(memoryWhere(tenant, id)).limit(1);
      return row ? toMemory(row) : undefined;
    },
    async tenantsWithExpired(now) {
      const rows = await db
        .selectDistinct({ tenant: memories.tenant })
        .from(memories)
        .where(and(isNotNull(memories.expiresAt), lte(memories.expiresAt, now)))
        .orderBy(asc(memories.tenant));
      return rows.map((r) => r.tenant);
    },
    async list(tenant, options = {}) {
      const conds: SQL[] = [eq(memories.tenant, tenant), scopeSql(options, '')];
      if (options.types) conds.push(inArray(memories.type, [...options.types]));
      if (options.visibleTo !== undefined)
        conds.push(or(eq(memories.scope, 'shared'), eq(memories.sessionId, options.visibleTo))!);
      if (options.fromSession !== undefined) conds.push(eq(memories.sessionId, options.fromSession));
      if (options.sources) conds.push(inArray(memories.source, [...options.sources]));
      if (options.now !== undefined)
        conds.push(or(isNull(memories.expiresAt), gt(memories.expiresAt, options.now))!);
      const rows = await db
        .select()
        .from(memories)
        .where(and(...conds))
        .orderBy(desc(memories.updatedAt), desc(memories.id))
        .limit(Math.min(options.limit ?? 200, 1_000_000));
      return rows.map(toMemory);
    },
    async delete(tenant, ids) {
      let n = 0;
      for (const group of chunked(ids, 40)) {
        const found = await db
          .select({ id: memories.id })
          .from(memories)
          .where(and(eq(memories.tenant, tenant), inArray(memories.id, group)));
        n += found.length;
        const sources = group.map(memorySource);
        await driver.batch([
          db.delete(memories).where(and(eq(memories.tenant, tenant), inArray(memories.id, group))),
          db.delete(chunks).where(and(eq(chunks.tenant, tenant), inArray(chunks.source, sources))),
        ]);
      }
      return n;
    },
    async markSurfaced(tenant, ids, at) {
      for (const group of chunked(ids, 40))
        await db
          .update(memories)
          .set({ lastSurfacedAt: at })
          .where(and(eq(memories.tenant, tenant), inArray(memories.id, group)));
    },
    async replaceChunks(tenant, source, next) {
      await driver.batch([
        deleteSource(tenant, source),
        ...next.map((c) => chunkInsert(tenant, { ...c, source })),
      ]);
    },
    async keywordSearch(tenant, match, scope, limit) {
      if (match.trim() === '') return [];
      const rows = await db.all<RawChunk>(sql`
        SELECT c.pk, c.tenant, c.id, c.project, c.user_id, c.source, c.start_line, c.end_line, c.text,
          c.date, NULL AS embedding, c.model, c.dims, bm25(chunks_fts, 1.0, 0.0) AS rank
        FROM chunks_fts JOIN chunks c ON c.pk = chunks_fts.rowid
        WHERE chunks_fts MATCH ${ftsTenantMatch(tenant, match)} AND c.tenant = ${tenant}
          AND ${scopeSql(scope, 'c.')}
        ORDER BY rank, c.pk
        LIMIT ${limit}`);
      return rows.map((r) => ({ chunk: fromRaw(r), bm25: r.rank }));
    },
    async keywordRanks(tenant, match, scope, limit) {
      if (match.trim() === '') return [];
      return db.all<{ id: string; bm25: number }>(sql`
        SELECT c.id AS id, bm25(chunks_fts, 1.0, 0.0) AS bm25
        FROM chunks_fts JOIN chunks c ON c.pk = chunks_fts.rowid
        WHERE chunks_fts MATCH ${ftsTenantMatch(tenant, match)} AND c.tenant = ${tenant}
          AND ${scopeSql(scope, 'c.')}
        ORDER BY bm25, c.pk
        LIMIT ${limit}`);
    },
    async substringSearch(tenant, runs, scope, limit) {
      if (runs.length === 0) return [];
      const rows = await db
        .select()
        .from(chunks)
        .where(
          and(
            eq(chunks.tenant, tenant),
            scopeSql(scope, ''),
            or(...runs.slice(0, 40).map((r) => like(chunks.text, `%${r.replace(/[%_\\]/g, '')}%`))),
          ),
        )
        .orderBy(asc(chunks.pk))
        .limit(limit);
      return rows.map(toChunk);
    },
    async vectorChunks(tenant, model, scope) {
      const rows = await db
        .select()
        .from(chunks)
        .where(and(eq(chunks.tenant, tenant), eq(chunks.model, model), scopeSql(scope, '')))
        .orderBy(asc(chunks.pk));
      return rows.map(toChunk);
    },
    async chunkIndex(tenant, model) {
      // (count, max pk) changes on every write to the tenant's chunks: rows are only ever inserted
      // (with a growing AUTOINCREMENT pk) or deleted. One indexed query instead of re-reading rows.
      const [stampRow] = await db.all<{ n: number; top: number | null }>(
        sql`SELECT count(*) AS n, max(pk) AS top FROM chunks WHERE tenant = ${tenant}`,
      );
      const stamp = `${stampRow?.n ?? 0}:${stampRow?.top ?? 0}`;
      const key = `${tenant}\u0000${model ?? ''}`;
      const hit = indexes.get(key);
      if (hit && hit.stamp === stamp) {
        indexes.delete(key);
        indexes.set(key, hit);
        return hit.index;
      }
      const rows = await db.select().from(chunks).where(eq(chunks.tenant, tenant)).orderBy(asc(chunks.pk));
      const index = buildChunkIndex(rows, model, (r) => ({
        chunk: toChunk({ ...r, embedding: null }),
        vector: r.embedding !== null && r.model === model ? decodeVector(r.embedding) : null,
      }));
      indexes.set(key, { stamp, index });
      while (indexes.size > cacheLimit) indexes.delete(indexes.keys().next().value!);
      return index;
    },
    async readDocument(tenant, path) {
      const [row] = await db
        .select()
        .from(documents)
        .where(and(eq(documents.tenant, tenant), eq(documents.path, path)))
        .limit(1);
      return row ? { path: row.path, content: row.content, updatedAt: row.updatedAt } : undefined;
    },
    async writeDocument(tenant, path, content, at) {
      await db
        .insert(documents)
        .values({ tenant, path, content, updatedAt: at })
        .onConflictDoUpdate({ target: [documents.tenant, documents.path], set: { content, updatedAt: at } });
    },
    async listDocuments(tenant, prefix = '') {
      const rows = await db
        .select()
        .from(documents)
        .where(
          and(eq(documents.tenant, tenant), sql`substr(${documents.path}, 1, ${prefix.length}) = ${prefix}`),
        )
        .orderBy(asc(documents.path));
      return rows.map((r) => ({ path: r.path, content: r.content, updatedAt: r.updatedAt }));
    },
  };
}
