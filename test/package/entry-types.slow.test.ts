/**
 * Each entry of package.json's `exports` type-checks on its own, as a strict TypeScript consumer with
 * `skipLibCheck: false` sees it, under `moduleResolution` `bundler` and `node16`, with only ctxkit (and
 * zod) installed plus the packages that entry needs (linked from the repository's node_modules). No
 * diagnostic may come from ctxkit's declarations or the consumer's file; a peer's own declarations
 * may have theirs (Mastra's bundled types, drizzle-orm's drivers for other databases): they are that
 * package's, listed in the log and in docs/packaging.md. `npm run test:slow` (a tsc run per entry and
 * resolution, 1–4 min); `npm test` checks the same import graph without tsc
 * (test/package/consumer.test.ts, "declares … with the types of no package but the ones it needs").
 */
import { realpath, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Consumer,
  exec,
  linkOptionalPeers,
  packAndInstall,
  REPO_MODULES,
} from '../support/package-consumer.ts';

const TSC = join(REPO_MODULES, 'typescript', 'bin', 'tsc');
let c: Consumer;

beforeAll(async () => {
  c = await packAndInstall();
}, 600_000);

afterAll(async () => {
  await c?.cleanup();
});

/** Each entry, what a consumer writes, and the packages its types need. */
const ENTRIES: Array<[entry: string, code: string, needs: string[]]> = [
  [
    'ctxkit',
    `import { createPipeline } from 'ctxkit';\nexport const p = createPipeline({ preset: 'default', budget: { contextWindow: 8000 } });`,
    [],
  ],
  [
    'ctxkit/tokens',
    `import { createCalibratedCounter } from 'ctxkit/tokens';\nexport const n: number = createCalibratedCounter().countText('x');`,
    [],
  ],
  [
    'ctxkit/invariants',
    `import { checkInvariants } from 'ctxkit/invariants';\nexport const v = checkInvariants([]);`,
    [],
  ],
  [
    'ctxkit/adapters',
    `import { fromOpenAI } from 'ctxkit/adapters';\nexport const m = fromOpenAI([{ role: 'user', content: 'hi' }]);`,
    [],
  ],
  [
    'ctxkit/providers',
    `import { createOpenAISummarizer } from 'ctxkit/providers';\nexport const s = createOpenAISummarizer({ model: 'm' });`,
    [],
  ],
  [
    'ctxkit/node',
    `import { createFsBlobStore } from 'ctxkit/node';\nexport const b = createFsBlobStore({ dir: '/tmp/x' });`,
    ['drizzle-orm', '@types/better-sqlite3', '@types/node'],
  ],
  [
    'ctxkit/ai-sdk',
    `import { ctxkitPrepareStep } from 'ctxkit/ai-sdk';\nexport const h = ctxkitPrepareStep({ contextWindow: 8000 });`,
    ['ai', '@types/node'],
  ],
  [
    'ctxkit/mastra',
    `import { ctxkitProcessor } from 'ctxkit/mastra';\nexport const p = ctxkitProcessor({ contextWindow: 8000 });`,
    ['@mastra/core', '@types/node'],
  ],
  [
    'ctxkit/langchain',
    `import * as lc from 'ctxkit/langchain';\nexport const keys = Object.keys(lc);`,
    ['langchain', '@langchain/core', '@types/node'],
  ],
  [
    'ctxkit/openai-agents',
    `import * as agents from 'ctxkit/openai-agents';\nexport const keys = Object.keys(agents);`,
    ['@openai/agents', '@types/node'],
  ],
];

describe('each entry of exports', () => {
  it.each(ENTRIES)(
    'type-checks %s under bundler and node16 with skipLibCheck: false and only the packages it needs',
    async (entry, code, needs) => {
      const name = entry.replaceAll(/[/-]/g, '_');
      await writeFile(join(c.project, `${name}.ts`), `${code}\n`);
      await linkOptionalPeers(c.project, needs);
      try {
        for (const resolution of ['bundler', 'node16'] as const) {
          const compilerOptions = {
            strict: true,
            skipLibCheck: false,
            module: resolution === 'bundler' ? 'esnext' : 'node16',
            moduleResolution: resolution,
            target: 'ES2022',
            noEmit: true,
            types: needs.includes('@types/node') ? ['node'] : [],
          };
          const config = `tsconfig.${name}.${resolution}.json`;
          await writeFile(
            join(c.project, config),
            JSON.stringify({ compilerOptions, files: [`${name}.ts`] }),
          );
          const r = await exec(process.execPath, [TSC, '-p', config], { cwd: c.project, timeoutMs: 300_000 });
          const errors = (r.stdout + r.stderr).split('\n').filter((l) => /^\S.*\(\d+,\d+\): error /.test(l));
          // tsc names a linked package's files by their real path.
          const modules = await realpath(REPO_MODULES);
          const theirs = errors.filter((l) => resolve(c.project, l.split('(')[0]!).startsWith(modules));
          const ours = errors.filter((l) => !theirs.includes(l));
          if (theirs.length > 0)
            console.log(
              `${entry} (${resolution}): ${theirs.length} errors in ${needs.join(', ')}'s own declarations`,
            );
          expect(ours, `${entry} under ${resolution}`).toEqual([]);
          // Every error is a diagnostic with a file (none about the options or a missing file).
          expect(r.code === 0 || errors.length > 0, r.stdout + r.stderr).toBe(true);
        }
      } finally {
        // unlink: the link only, never what it points to (the repository's node_modules).
        for (const pkg of needs) await unlink(join(c.project, 'node_modules', pkg));
      }
    },
    600_000,
  );
});
