/**
 * Expands the file arguments of `replay` and `validate`: plain paths, directories (every `.json`
 * below them) and globs with `*`, `**` and `?` (quoted globs work the same as shell-expanded ones).
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { CliError } from './io.ts';

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${re}$`);
}

async function walk(dir: string, out: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await walk(full, out);
    else out.push(full);
  }
}

async function kind(path: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** Resolves patterns to a sorted, de-duplicated list of files (relative to `cwd` when inside it). */
export async function expandFiles(
  patterns: readonly string[],
  cwd: string,
  ext = '.json',
): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    if (!/[*?]/.test(pattern)) {
      const full = resolve(cwd, pattern);
      const k = await kind(full);
      if (k === 'file') found.add(full);
      else if (k === 'dir') {
        const all: string[] = [];
        await walk(full, all);
        for (const f of all) if (f.endsWith(ext) && !f.endsWith(`.schema${ext}`)) found.add(f);
      } else throw new CliError(`${pattern}: no such file or directory`);
      continue;
    }
    const normalized = pattern.split(sep).join('/');
    const firstMagic = normalized.search(/[*?]/);
    const root = normalized.slice(0, normalized.lastIndexOf('/', firstMagic) + 1) || './';
    const rootDir = resolve(cwd, root);
    if ((await kind(rootDir)) !== 'dir') throw new CliError(`${pattern}: no such directory ${root}`);
    const re = globToRegExp(resolve(cwd, normalized).split(sep).join('/'));
    const all: string[] = [];
    await walk(rootDir, all);
    const matches = all.filter((f) => re.test(f.split(sep).join('/')) && !f.endsWith(`.schema${ext}`));
    if (matches.length === 0) throw new CliError(`${pattern}: no files match`);
    for (const f of matches) found.add(f);
  }
  return [...found].sort();
}

/** A path for display: relative to `cwd` when it is inside it. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
