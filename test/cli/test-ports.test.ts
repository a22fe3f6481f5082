/**
 * Tests and benches listen on ports the OS picks (port 0, test/support/free-port.ts), never on a fixed
 * one: several engineers and CI jobs share one machine, and a fixed port (the proxy tests' 8812 and
 * 8813) fails a run whenever another run holds it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|mjs)$/.test(name) ? [p] : [];
  });
}

/** A port fallback or a listen on a fixed number: `PORT ?? 8812`, `port: 8812`, `.listen(8812`. */
const FIXED = /(?:_PORT\s*\?\?\s*|\bport:\s*|\.listen\(\s*)([1-9]\d{2,4})\b/g;

describe('test and bench sources', () => {
  it('bind no fixed port when they start a server', () => {
    const found: string[] = [];
    for (const file of [...sources(join(root, 'test')), ...sources(join(root, 'bench'))]) {
      if (file === import.meta.filename) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(FIXED)) {
        const line = text.slice(0, m.index).split('\n').length;
        found.push(`${relative(root, file)}:${line}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
