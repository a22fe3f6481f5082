/**
 * The Node workspace of ctxkit (`~/.ctxkit` unless configured): `ctxkit.db` (sessions, memories,
 * index) and the CowAgent Markdown memory as real files (`MEMORY.md`, `memory/YYYY-MM-DD.md`).
 */
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  CtxError,
  type Embedder,
  indexDocument,
  type MemoryFiles,
  type MemoryStore,
} from '../../core/index.ts';

/** `~/.ctxkit`. The CLI resolves `CTXKIT_HOME` (or a flag) and passes it as `dir`. */
export function defaultWorkspaceDir(): string {
  return join(homedir(), '.ctxkit');
}

export function workspaceDbPath(dir: string): string {
  return join(dir, 'ctxkit.db');
}

/** Real files under `root`; paths are workspace-relative with `/` separators. */
export function nodeMemoryFiles(root: string): MemoryFiles {
  const abs = (path: string) => {
    const full = resolve(root, path);
    if (full !== resolve(root) && !full.startsWith(resolve(root) + sep))
      throw new CtxError('invalid_input', `path escapes the workspace: ${path}`, { path: 'path' });
    return full;
  };
  return {
    async read(path) {
      try {
        return await readFile(abs(path), 'utf8');
      } catch (e) {
        if ((e as { code?: string }).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async append(path, text) {
      const full = abs(path);
      await mkdir(dirname(full), { recursive: true });
      await appendFile(full, text, 'utf8');
    },
    async list(prefix = '') {
      const out: string[] = [];
      const walk = async (dir: string) => {
        let entries: import('node:fs').Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const full = join(dir, e.name);
          if (e.isDirectory()) await walk(full);
          else if (e.name.endsWith('.md')) {
            const rel = relative(root, full).split(sep).join('/');
            if (rel.startsWith(prefix)) out.push(rel);
          }
        }
      };
      await walk(resolve(root));
      return out.sort();
    },
  };
}

/** Re-indexes every Markdown memory file of the workspace (`MEMORY.md`, `memory/**.md`). */
export async function indexWorkspace(
  store: MemoryStore,
  files: MemoryFiles,
  options: { tenant: string; project?: string; embedder?: Embedder },
): Promise<number> {
  let n = 0;
  for (const path of await files.list()) {
    if (path !== 'MEMORY.md' && !path.startsWith('memory/')) continue;
    const content = await files.read(path);
    if (content === undefined) continue;
    const userId = /^memory\/users\/([^/]+)\//.exec(path)?.[1];
    n += (
      await indexDocument(store, path, content, {
        tenant: options.tenant,
        ...(options.project !== undefined ? { project: options.project } : {}),
        ...(userId !== undefined ? { userId } : {}),
        ...(options.embedder ? { embedder: options.embedder } : {}),
      })
    ).length;
  }
  return n;
}
