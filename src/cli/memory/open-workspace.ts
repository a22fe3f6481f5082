/**
 * Opens the Node workspace: the SQLite stores in `{dir}/ctxkit.db` and the Markdown memory files
 * under `{dir}`. `dir` comes from the caller (flag / `CTXKIT_HOME`); `~/.ctxkit` otherwise.
 */
import type { Clock, IdGenerator, MemoryFiles, MemoryStore, SessionStore } from '../../core/index.ts';
import { createSqliteMemoryStore, createSqliteSessionStore, openSqlite } from '../../db/sqlite/index.ts';
import { defaultWorkspaceDir, nodeMemoryFiles, workspaceDbPath } from './workspace-files.ts';

export interface Workspace {
  dir: string;
  sessions: SessionStore;
  memories: MemoryStore;
  files: MemoryFiles;
  close(): void;
}

export function openWorkspace(options: { dir?: string; clock?: Clock; ids?: IdGenerator } = {}): Workspace {
  const dir = options.dir ?? defaultWorkspaceDir();
  const handle = openSqlite({ path: workspaceDbPath(dir) });
  return {
    dir,
    sessions: createSqliteSessionStore(handle, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.ids ? { ids: options.ids } : {}),
    }),
    memories: createSqliteMemoryStore(handle),
    files: nodeMemoryFiles(dir),
    close: () => handle.close(),
  };
}
