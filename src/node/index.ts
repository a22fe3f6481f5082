/**
 * `ctxkit/node`: what ctxkit offers on Node only — the SQLite session and memory stores (optional
 * peers `better-sqlite3` and `drizzle-orm`), the filesystem blob store, the workspace
 * (`~/.ctxkit`: database + Markdown memory files) and the path hooks for `createDedup`.
 */
export * from '../cli/blobs/fs-blob-store.ts';
export * from '../cli/fs-path-hooks.ts';
export * from '../cli/memory/open-workspace.ts';
export * from '../cli/memory/workspace-files.ts';
export * from '../db/sqlite/index.ts';
