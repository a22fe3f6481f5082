import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundle, runIn } from '../../support/runtimes.ts';

const entry = resolve(import.meta.dirname, 'portable-entry.ts');
const require = createRequire(import.meta.url);

/**
 * Deno, with the one permission the SDK needs: its constructor reads `OPENAI_CUSTOM_HEADERS` (the
 * provider passes every other SDK option explicitly). `runIn` grants no env access at all.
 */
async function runDenoWithEnv(): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxkit-provider-deno-'));
  try {
    await writeFile(join(dir, 'bundle.mjs'), await bundle(entry));
    await writeFile(
      join(dir, 'main.mjs'),
      `import run from './bundle.mjs';\nawait Deno.writeTextFile(new URL('./out.json', import.meta.url), JSON.stringify(await run()));\n`,
    );
    const pkg = require.resolve('deno/package.json');
    const api = require(join(pkg, '..', 'install_api.cjs')) as { runInstall?: () => string };
    const bin = typeof api.runInstall === 'function' ? api.runInstall() : join(pkg, '..', 'deno');
    const args = ['run', '--quiet', '--no-config', '--no-lock', '--allow-env=OPENAI_CUSTOM_HEADERS'];
    args.push(`--allow-read=${dir}`, `--allow-write=${dir}`, join(dir, 'main.mjs'));
    await new Promise<void>((ok, fail) =>
      execFile(
        bin,
        args,
        { env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
        (err, _o, stderr) => (err ? fail(new Error(`deno failed: ${stderr || err.message}`)) : ok()),
      ),
    );
    return JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('createOpenAISummarizer', () => {
  for (const runtime of ['node', 'deno', 'workerd'] as const) {
    it(`summarises through the real SDK with a retry when run in ${runtime}`, async () => {
      const out = (runtime === 'deno' ? await runDenoWithEnv() : await runIn(runtime, entry, null)) as {
        result: { summary: string; memories: unknown[]; usage: unknown; model: string };
        seen: Array<{ url: string; model: string; tools: boolean }>;
      };
      expect(out.result.summary).toBe('portable');
      expect(out.result.memories).toHaveLength(1);
      expect(out.result.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
      expect(out.seen).toEqual([
        { url: 'https://llm.invalid/v1/chat/completions', model: 'small', tools: false },
        { url: 'https://llm.invalid/v1/chat/completions', model: 'small', tools: false },
      ]);
    }, 120_000);
  }
});
