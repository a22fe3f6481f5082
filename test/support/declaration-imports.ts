/**
 * The packages an entry's declarations reach: from its `.d.ts`, every relative import and re-export is
 * followed (`import`, `export … from`, `import('…')` types), and every bare specifier is kept by its
 * package name (`drizzle-orm/sqlite-core` → `drizzle-orm`). What TypeScript loads for a consumer who
 * imports that entry, so each package listed must be installed for the entry to type-check with
 * `skipLibCheck: false`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** The packages (sorted) the declarations of `entry` (a `.d.ts` path) reach, and the files that name each. */
export function declarationImports(entry: string): Map<string, string[]> {
  const root = dirname(entry);
  const seen = new Set<string>();
  const packages = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8').replaceAll(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of text.matchAll(SPECIFIER)) {
      const specifier = m[1]!;
      if (specifier.startsWith('.')) {
        queue.push(join(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
        continue;
      }
      if (specifier.startsWith('node:')) continue;
      const name = packageName(specifier);
      packages.set(name, [...(packages.get(name) ?? []), relative(root, file)]);
    }
  }
  return new Map([...packages].sort(([a], [b]) => a.localeCompare(b)));
}
