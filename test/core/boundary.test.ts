import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = resolve(import.meta.dirname, '../../src/core');

/** Imports and globals that tie code to one runtime (STYLE.md rule 1). */
const FORBIDDEN: Array<[RegExp, string]> = [
  [/from\s+['"](node:[^'"]+)['"]/, 'node: import'],
  [/import\(\s*['"](node:[^'"]+)['"]\s*\)/, 'node: dynamic import'],
  [/from\s+['"](cloudflare:[^'"]+)['"]/, 'cloudflare: import'],
  [
    /from\s+['"](drizzle-orm[^'"]*|drizzle-kit|yargs[^'"]*|better-sqlite3|fs|path|os|child_process)['"]/,
    'runtime package',
  ],
  [/\bprocess\.(env|argv|exit|cwd|stdout|stderr)\b/, 'process global'],
  [/\bDeno\./, 'Deno global'],
  [/\bBuffer\./, 'Buffer global'],
  [/\brequire\(/, 'CommonJS require'],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function scanCore(dir = CORE): string[] {
  const problems: string[] = [];
  for (const file of files(dir)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        for (const [re, what] of FORBIDDEN)
          if (re.test(line)) problems.push(`${relative(CORE, file)}:${i + 1}: ${what}: ${line.trim()}`);
      });
  }
  return problems;
}

describe('src/core boundary', () => {
  it('imports no runtime anywhere in src/core', () => {
    expect(scanCore()).toEqual([]);
  });

  it('flags a forbidden import when one is present', () => {
    const re = FORBIDDEN[0]![0];
    expect(re.test(`import { readFile } from 'node:fs';`)).toBe(true);
    expect(FORBIDDEN.some(([r]) => r.test('const k = process.env.KEY;'))).toBe(true);
  });
});
