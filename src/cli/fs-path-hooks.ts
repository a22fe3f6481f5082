/**
 * File-system hooks for `createDedup` in Node: 002 normalises a path with `realpath()` when the file
 * exists (else the raw string) and skips greps on existing directories (SEED-RULES §4.2). Core does
 * this by string only; pass these to get 002's behaviour exactly:
 * `createDedup({ ...fsPathHooks(process.cwd()) })`.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

export interface FsPathHooks {
  normalizePath(path: string): string;
  isDirectory(path: string): boolean;
}

export function fsPathHooks(cwd: string): FsPathHooks {
  return {
    normalizePath(path) {
      try {
        return realpathSync(resolve(cwd, path));
      } catch {
        return path;
      }
    },
    isDirectory(path) {
      try {
        return statSync(resolve(cwd, path)).isDirectory();
      } catch {
        return false;
      }
    },
  };
}
