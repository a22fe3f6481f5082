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
    /from\s+['"](drizzle-orm[^'"]*|drizzle-kit|yargs[^'"]*|better-sqlite3|openai[^'"]*|fs|path|os|child_process)['"]/,
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

/** A value import of zod classic (type-only imports and `zod/mini` are fine). */
const ZOD_CLASSIC = /^\s*import\s+(?!type\b)[^;]*from\s+['"]zod(\/v4)?['"]/;
/** The one core file on classic: the fixture schema feeds `z.toJSONSchema` (decision 0008). */
const ZOD_CLASSIC_ALLOWED = new Set(['fixtures/schema.ts']);

describe('src/core boundary', () => {
  it('imports no runtime anywhere in src/core', () => {
    expect(scanCore()).toEqual([]);
  });

  it('flags a forbidden import when one is present', () => {
    const re = FORBIDDEN[0]![0];
    expect(re.test(`import { readFile } from 'node:fs';`)).toBe(true);
    expect(FORBIDDEN.some(([r]) => r.test('const k = process.env.KEY;'))).toBe(true);
  });

  it('keeps zod classic out of the pipeline bundle: core schemas import zod/mini', () => {
    const classic = files(CORE)
      .map((f) => relative(CORE, f).split('\\').join('/'))
      .filter((f) => !ZOD_CLASSIC_ALLOWED.has(f))
      .filter((f) =>
        readFileSync(join(CORE, f), 'utf8')
          .split('\n')
          .some((line) => ZOD_CLASSIC.test(line)),
      );
    expect(classic).toEqual([]);
    expect(ZOD_CLASSIC.test(`import * as z from 'zod';`)).toBe(true);
    expect(ZOD_CLASSIC.test(`import * as z from 'zod/mini';`)).toBe(false);
    expect(ZOD_CLASSIC.test(`import type * as z from 'zod';`)).toBe(false);
  });
});
