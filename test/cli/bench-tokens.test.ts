import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchTokensResult, runBenchTokens } from '../../src/cli/commands/bench-tokens.ts';
import { loadTokenCorpus, UNSEEN_CATEGORY } from '../../src/cli/tokens/corpus.ts';
import { fitWeights, predict } from '../../src/cli/tokens/fit.ts';
import {
  isFitOnly,
  loadUdhrSamples,
  UDHR_CATEGORY,
  UDHR_LANGUAGES,
  udhrText,
} from '../../src/cli/tokens/fit-only-texts.ts';
import { evaluateSessionCalibration } from '../../src/cli/tokens/session-eval.ts';

const tiny = mkdtempSync(join(tmpdir(), 'ctxkit-bench-tokens-'));
afterAll(() => rmSync(tiny, { recursive: true, force: true }));

async function writeTinyCorpus(): Promise<void> {
  const files: Array<[string, string, string]> = [
    ['en/a.txt', 'en-prose', 'The cat sat on the mat and looked at the bird outside the window. '.repeat(30)],
    [
      'json/b.txt',
      'json',
      JSON.stringify({ users: [{ id: 1, name: 'Ada', tags: ['x', 'y'] }] }, null, 2).repeat(20),
    ],
    ['zh/c.txt', 'zh', '猫是一种小型食肉哺乳动物，通常被人类饲养。'.repeat(30)],
    ['tokenx-fixtures/d.txt', 'tokenx-fixtures', 'function add(a, b) {\n  return a + b;\n}\n'.repeat(30)],
  ];
  for (const [file, , text] of files) {
    await mkdir(join(tiny, file, '..'), { recursive: true });
    writeFileSync(join(tiny, file), text);
  }
  writeFileSync(
    join(tiny, 'manifest.json'),
    JSON.stringify(files.map(([file, category]) => ({ file, category }))),
  );
}

describe('runBenchTokens', () => {
  it('reports every estimator per category, unseen texts apart, and throughput when given a tiny corpus', async () => {
    await writeTinyCorpus();
    const lines: string[] = [];
    const progress: number[] = [];
    const result = await runBenchTokens(
      { corpusDir: tiny, tokenizers: ['o200k'], json: true, runs: 1, crossValidate: false },
      { write: (l) => lines.push(l), progress: (done) => progress.push(done) },
    );
    expect(JSON.parse(lines.join('\n')).files).toBe(4);
    expect(progress.at(-1)).toBe(4);
    const o200k = result.tokenizers[0]!;
    expect(o200k.estimators.map((e) => e.estimator)).toEqual(['ctxkit', 'tokenx', 'chars/4', 'chars/3.2']);
    const ctxkit = o200k.estimators[0]!;
    expect(Object.keys(ctxkit.categories).sort()).toEqual(['en-prose', 'json', 'tokenx-fixtures', 'zh']);
    expect(ctxkit.overall.files).toBe(3);
    expect(ctxkit.unseen.files).toBe(1);
    expect(ctxkit.overall.mean).toBeLessThan(0.15);
    expect(ctxkit.overall.mean).toBeLessThan(o200k.estimators[2]!.overall.mean); // beats chars/4
    expect(Object.keys(result.throughput)).toEqual(['ctxkit', 'tokenx', 'chars/4', 'chars/3.2']);
    expect(result.throughput.ctxkit).toBeGreaterThan(0);
  });

  it('renders markdown tables with the unseen category marked when json is off', async () => {
    await writeTinyCorpus();
    const lines: string[] = [];
    await runBenchTokens(
      { corpusDir: tiny, tokenizers: ['cl100k'], runs: 1, crossValidate: false },
      { write: (l) => lines.push(l) },
    );
    const text = lines.join('\n');
    expect(text).toContain('## cl100k: gpt-tokenizer (cl100k_base)');
    expect(text).toContain('| tokenx-fixtures (unseen) | 1 |');
    expect(text).toMatch(/\| ctxkit \| [\d.]+ \| [\d.]+× \|/);
  });

  it('throws naming the manifest when the corpus folder has none', async () => {
    await expect(runBenchTokens({ corpusDir: join(tiny, 'nope') }, { write: () => {} })).rejects.toThrow(
      /manifest\.json/,
    );
  });
});

const corpus = resolve(import.meta.dirname, '../../../shared/data/tokens');
const trajectories = resolve(import.meta.dirname, '../../../shared/data/trajectories/mini-swe-agent');

describe('runBenchTokens on the real corpus', () => {
  let result: BenchTokensResult | undefined;
  const run = async () => {
    result ??= await runBenchTokens(
      { corpusDir: corpus, tokenizers: ['o200k'], runs: 5 },
      { write: () => {} },
    );
    return result;
  };

  // Every preset against its own reference tokenizer (about a minute): test/cli/bench-tokens.slow.test.ts
  // (`npm run test:slow`); o200k below is its representative in `npm test`.
  it.skipIf(!existsSync(corpus))('meets the cross-validated accuracy goals for o200k', async () => {
    const cv = (await run()).tokenizers[0]!.crossValidated!;
    expect(cv.overall.files).toBe(196);
    expect(cv.overall.mean).toBeLessThanOrEqual(0.04);
    expect(cv.overall.p95).toBeLessThanOrEqual(0.12); // goal; measured 10.8%
    for (const [category, stats] of Object.entries(cv.categories)) {
      if (category === UNSEEN_CATEGORY || isFitOnly(category)) continue;
      expect(stats.mean, category).toBeLessThanOrEqual(0.1);
    }
  });

  it.skipIf(!existsSync(corpus))(
    'beats tokenx and chars/4 on calibration texts and stays close on unseen ones',
    async () => {
      const [ctxkit, tokenx, chars4] = (await run()).tokenizers[0]!.estimators;
      expect(ctxkit!.overall.mean).toBeLessThan(tokenx!.overall.mean / 2);
      expect(ctxkit!.overall.mean).toBeLessThan(chars4!.overall.mean / 4);
      // Goal: ≤ 4% on unseen texts. Measured 5.3% (not met: Chinese, Korean and Russian Wikipedia
      // are under-counted by 7–15%; tokenx, calibrated on these texts, gets 4.2%).
      expect(ctxkit!.unseen.mean).toBeLessThanOrEqual(0.06);
      expect(ctxkit!.unseen.mean).toBeLessThan(chars4!.unseen.mean / 2);
    },
  );

  it.skipIf(!existsSync(corpus))(
    'counts the scripts the corpus lacks far better than tokenx and chars/4 (the declarations of human rights)',
    async () => {
      const [ctxkit, tokenx, chars4] = (await run()).tokenizers[0]!.estimators;
      const udhr = (e: typeof ctxkit) => e!.categories[UDHR_CATEGORY]!;
      expect(udhr(ctxkit).files).toBe(UDHR_LANGUAGES.length);
      // Fitted on: measured 5.8% (tokenx 33.2%, chars/4 34.9%).
      expect(udhr(ctxkit).mean).toBeLessThanOrEqual(0.1);
      expect(udhr(ctxkit).mean).toBeLessThan(udhr(tokenx).mean / 3);
      expect(udhr(ctxkit).mean).toBeLessThan(udhr(chars4).mean / 3);
      // Signed error per language, worst first.
      const languages = Object.entries((await run()).tokenizers[0]!.languages!);
      expect(languages.map(([l]) => l).sort()).toEqual([...UDHR_LANGUAGES].sort());
      expect(Math.abs(languages[0]![1])).toBeGreaterThanOrEqual(Math.abs(languages.at(-1)![1]));
      // Each language held out of the fit (cv by language): measured 13.6%.
      const cv = (await run()).tokenizers[0]!.crossValidated!.categories[UDHR_CATEGORY]!;
      expect(cv.mean).toBeLessThanOrEqual(0.2);
    },
  );

  it.skipIf(!existsSync(corpus))(
    'estimates at least 3× faster than tokenx when measured side by side beside other test files',
    async () => {
      const t = (await run()).throughput;
      // The goal, ≥ 5×, is held in bench-tokens.slow.test.ts (timed in process CPU time: 5.6–7.4× alone,
      // ~90–150 vs ~13–25 MB/s). Here another test file shares the two cores, which read 3.2× once in a
      // full npm test at load 3.5: this guard catches a regression of the estimator's speed, not the goal.
      expect(t.ctxkit! / t.tokenx!).toBeGreaterThanOrEqual(3);
    },
  );
});

describe('evaluateSessionCalibration', () => {
  it.skipIf(!existsSync(trajectories))(
    'keeps whole-prompt error within 2% after three calls when replaying mini-swe-agent runs',
    async () => {
      const gemini = await evaluateSessionCalibration(trajectories, 'gemini');
      expect(gemini.runs.length).toBeGreaterThanOrEqual(10);
      expect(gemini.afterThree.calibrated).toBeLessThanOrEqual(0.02);
      // A different tokenizer family is corrected too.
      const o200k = await evaluateSessionCalibration(trajectories, 'o200k');
      expect(o200k.afterThree.raw).toBeGreaterThan(0.05);
      expect(o200k.afterThree.calibrated).toBeLessThanOrEqual(0.02);
    },
  );
});

describe('fitWeights', () => {
  it('fits exactly when the data allows it, and the IRLS floor decides how an outlier is traded', () => {
    const sample = (a: number, b: number, tokens: number) => ({ features: Float64Array.of(a, b), tokens });
    const exact = fitWeights([sample(10, 0, 10), sample(0, 10, 20), sample(5, 5, 15)]);
    expect(Array.from(exact).map((v) => Number(v.toFixed(3)))).toEqual([1, 2]);
    // One file disagrees with three: a floor near 0 fits the three (L1); a floor near 1 splits the difference.
    const samples = [sample(10, 0, 10), sample(10, 0, 10), sample(10, 0, 10), sample(10, 0, 15)];
    const l1 = fitWeights(samples, { irlsFloor: 0.001 });
    const ls = fitWeights(samples, { irlsFloor: 0.99 });
    expect(predict(samples[0]!.features, l1)).toBeCloseTo(10, 1);
    expect(predict(samples[0]!.features, ls)).toBeGreaterThan(10.5);
  });
});

describe('npm run calibrate', () => {
  const root = resolve(import.meta.dirname, '../..');
  const calibrate = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/calibrate.ts', ...args], {
      cwd: root,
      encoding: 'utf8',
    });

  it('exits 2 naming the flag when --irls-floor is not a fraction, or a what-if flag comes without --dry-run', () => {
    const bad = calibrate('--irls-floor', 'x', '--dry-run');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--irls-floor: expected a number between 0 and 1, got 'x'");
    const written = calibrate('--irls-floor', '0.1');
    expect(written.status).toBe(2);
    expect(written.stderr).toContain('differs from the shipped 0.05: use it with --dry-run');
    const extra = calibrate('--udhr-extra', 'eng');
    expect(extra.status).toBe(2);
    expect(extra.stderr).toContain('--udhr-extra changes the calibration texts: use it with --dry-run');
  });
});

describe('udhrText', () => {
  it('keeps the text of the body, one trimmed line per element, when given a declaration', () => {
    const html =
      '<!doctype html>\n<html lang="el"><head><title>Greek</title></head>\n<body>\n  <h1>Οικουμενική Διακήρυξη</h1>\n' +
      '  <p>Άρθρο 1 &#x26; 2</p>\n\n  <p>  Όλοι οι άνθρωποι </p>\n</body></html>';
    expect(udhrText(html)).toBe('Οικουμενική Διακήρυξη\nΆρθρο 1 & 2\nΌλοι οι άνθρωποι');
  });

  it('loads every listed language from the installed package', () => {
    const samples = loadUdhrSamples();
    expect(samples.map((s) => s.file)).toEqual(UDHR_LANGUAGES.map((l) => `udhr/${l}`));
    for (const s of samples) expect(s.text.length, s.file).toBeGreaterThan(2000);
    expect(() => loadUdhrSamples(undefined, ['eng', 'xx_none'])).toThrow("no declaration 'xx_none'");
  });
});

describe('loadTokenCorpus', () => {
  it('names the manifest entry or the JSON error when the corpus is broken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-corpus-bad-'));
    writeFileSync(join(dir, 'manifest.json'), '{not json');
    await expect(loadTokenCorpus(dir)).rejects.toThrow(/^corpus manifest.json: not valid JSON/);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ file: 'a.txt' }]));
    await expect(loadTokenCorpus(dir)).rejects.toThrow(/^corpus manifest.json\[0.category\]/);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ file: 'a.txt', category: 'x' }]));
    await expect(loadTokenCorpus(dir)).rejects.toThrow('corpus manifest.json[0].file: cannot read a.txt');
    rmSync(dir, { recursive: true, force: true });
  });
});
