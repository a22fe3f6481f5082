/**
 * Writes `fixtures/fixture.schema.json` from the zod fixture schema (zod 4's `z.toJSONSchema`).
 * `npm run gen:schema`; a test fails when the committed file is stale.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { fixtureSchema } from '../src/core/fixtures/schema.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../fixtures/fixture.schema.json', import.meta.url));

/** The JSON Schema text, exactly as committed. */
export function fixtureJsonSchema(): string {
  const schema = z.toJSONSchema(fixtureSchema, { io: 'input', unrepresentable: 'any', reused: 'ref' });
  const withId = { ...schema, $id: 'https://ctxkit.dev/fixture.schema.json', title: 'ctxcheck fixture' };
  return `${JSON.stringify(withId, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(SCHEMA_FILE, fixtureJsonSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
