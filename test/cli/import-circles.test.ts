/**
 * No import circles in src/ (STYLE.md rule 17): every relative import and re-export, type-only ones
 * included (as `npx madge --circular --extensions ts src` counts them), resolved to its file; each
 * strongly connected component of more than one file is a circle. There are none: any circle fails.
 * Break one by moving the type or helper both sides need into a third file both import.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1]!);
      const candidates = [target, `${target}.ts`, join(target, 'index.ts')];
      const hit = candidates.find((c) => c.endsWith('.ts') && statSafe(c));
      if (hit) deps.push(relative(root, hit));
    }
    graph.set(relative(root, file), deps);
  }
  return graph;
}

function statSafe(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('import circles in src/', () => {
  const found = circles(importGraph(SRC)).map((c) => c.join(' ↔ '));

  it('finds no circle in src/', () => {
    expect(found).toEqual([]);
  });

  it('finds a circle when two files import each other', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', []],
    ]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts']]);
  });
});
