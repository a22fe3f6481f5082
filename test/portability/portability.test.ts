import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../support/mini-vitest.ts';
import { runIn } from '../support/runtimes.ts';

const entry = resolve(import.meta.dirname, 'entry.ts');
const alias = { vitest: resolve(import.meta.dirname, '../support/mini-vitest.ts') };

describe('portability lane', () => {
  for (const runtime of ['deno', 'workerd'] as const) {
    it(`runs the core test files unchanged in ${runtime}`, async () => {
      const results = (await runIn(runtime, entry, null, { alias })) as CaseResult[];
      const failed = results.filter((r) => r.status === 'failed');
      expect(failed.map((f) => `${f.name}: ${f.error}`)).toEqual([]);
      expect(results.filter((r) => r.status === 'passed').length).toBeGreaterThan(40);
    });
  }
});
