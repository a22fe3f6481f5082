import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fixtureJsonSchema, SCHEMA_FILE } from '../../../scripts/gen-fixture-schema.ts';

describe('fixtureJsonSchema', () => {
  it('matches the committed fixtures/fixture.schema.json when the zod schema has not changed (run npm run gen:schema)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    expect(
      committed === fixtureJsonSchema(),
      'fixtures/fixture.schema.json is stale: run `npm run gen:schema`',
    ).toBe(true);
  });

  it('describes every step kind when generated', () => {
    const text = fixtureJsonSchema();
    for (const step of ['append', 'admit', 'prepare', 'summarizer', 'overflow', 'compact', 'tick', 'check'])
      expect(text).toContain(`"const": "${step}"`);
  });
});
