/**
 * The one drizzle schema of ctxkit (sqlite-core), shared by D1 (worker) and better-sqlite3 (Node).
 * Every row carries its tenant; every query filters by it. The FTS5 tables `chunks_fts` and
 * `messages_fts` (contentless with a tenant key column / external content over
 * `session_messages.pk`, both with the `porter unicode61` tokenizer) and their triggers
 * live in a custom migration, since drizzle-kit does not model virtual tables.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const sessions = sqliteTable(
  'sessions',
  {
    tenant: text('tenant').notNull(),
    id: text('id').notNull(),
    project: text('project').notNull().default(''),
    title: text('title'),
    createdAt: integer('created_at').notNull(),
    lastActive: integer('last_active').notNull(),
    lastSeq: integer('last_seq').notNull().default(0),
    /** `SessionState` as JSON (pipeline state, working context, frozen memory block). */
    state: text('state').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenant, t.id] }),
    index('sessions_tenant_project_active').on(t.tenant, t.project, t.lastActive),
    index('sessions_last_active').on(t.lastActive),
  ],
);

export const sessionMessages = sqliteTable(
  'session_messages',
  {
    pk: integer('pk').primaryKey({ autoIncrement: true }),
    tenant: text('tenant').notNull(),
    sessionId: text('session_id').notNull(),
    seq: integer('seq').notNull(),
    messageId: text('message_id').notNull(),
    role: text('role').notNull(),
    /** User/assistant text, indexed by `messages_fts` for session recall. */
    text: text('text').notNull(),
    /** The neutral `Message` as JSON. */
    message: text('message').notNull(),
    createdAt: integer('created_at').notNull(),
    compacted: integer('compacted', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [uniqueIndex('session_messages_seq').on(t.tenant, t.sessionId, t.seq)],
);

export const memories = sqliteTable(
  'memories',
  {
    tenant: text('tenant').notNull(),
    id: text('id').notNull(),
    project: text('project').notNull().default(''),
    userId: text('user_id').notNull().default(''),
    type: text('type', { enum: ['project', 'user', 'decision', 'compaction'] }).notNull(),
    class: text('class', { enum: ['priority', 'durable', 'working'] }).notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    pinned: integer('pinned', { mode: 'boolean' }).notNull().default(false),
    expiresAt: integer('expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    lastSurfacedAt: integer('last_surfaced_at'),
    /** Provenance (`MemorySource`): where the text came from. Rows older than it: `import`. */
    source: text('source', { enum: ['user', 'assistant', 'tool', 'import'] })
      .notNull()
      .default('user'),
    /** The session it was extracted in; `''` for a memory written through an API or imported. */
    sessionId: text('session_id').notNull().default(''),
    /** `session`: seen only by `session_id`; `shared`: by the sessions `project` reaches. */
    scope: text('scope', { enum: ['session', 'shared'] })
      .notNull()
      .default('shared'),
  },
  (t) => [
    primaryKey({ columns: [t.tenant, t.id] }),
    index('memories_scope').on(t.tenant, t.project, t.userId),
    index('memories_session').on(t.tenant, t.sessionId),
  ],
);

export const chunks = sqliteTable(
  'chunks',
  {
    pk: integer('pk').primaryKey({ autoIncrement: true }),
    tenant: text('tenant').notNull(),
    id: text('id').notNull(),
    project: text('project').notNull().default(''),
    userId: text('user_id').notNull().default(''),
    source: text('source').notNull(),
    startLine: integer('start_line').notNull(),
    endLine: integer('end_line').notNull(),
    text: text('text').notNull(),
    /** `YYYY-MM-DD` for daily memory (decays), null otherwise. */
    date: text('date'),
    /** Base64 of little-endian float32 (see `vector-codec.ts`); JSON arrays are read too. */
    embedding: text('embedding'),
    model: text('model'),
    dims: integer('dims'),
  },
  (t) => [
    uniqueIndex('chunks_id').on(t.tenant, t.id),
    index('chunks_source').on(t.tenant, t.source),
    index('chunks_model').on(t.tenant, t.model),
  ],
);

export const documents = sqliteTable(
  'documents',
  {
    tenant: text('tenant').notNull(),
    path: text('path').notNull(),
    content: text('content').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.path] })],
);

export const schema = { sessions, sessionMessages, memories, chunks, documents };
