/**
 * Tokens per character of one script, text by text: what a reference tokenizer spends on the runs of
 * that script alone (each run counted on its own), over the corpus, the unseen texts and the
 * fitted-only samples. It shows how far texts in the same script differ, which no character class
 * can see (README "Token counting").
 *
 *   npx tsx scripts/script-token-rates.ts [--preset o200k] [--script han|hangul|cyrillic|kana]
 *                                         [--corpus ../shared/data/tokens] [--min 200]
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTokenCorpus } from '../src/cli/tokens/corpus.ts';
import { loadFitOnlySamples } from '../src/cli/tokens/fit-only-texts.ts';
import { REFERENCE_TOKENIZERS } from '../src/cli/tokens/reference-tokenizers.ts';
import { isCalibratedPreset } from '../src/core/tokens/calibrated/presets.ts';

const SCRIPTS: Record<string, RegExp> = {
  han: /[\u3400-\u9fff\uf900-\ufaff]+/gu,
  hangul: /[\uac00-\ud7af]+/gu,
  cyrillic: /[\u0400-\u04ff]+/gu,
  kana: /[\u3040-\u30ff]+/gu,
};

function fail(message: string): never {
  console.error(`script-token-rates: ${message}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'o200k' },
    script: { type: 'string', default: 'han' },
    corpus: { type: 'string', default: '../shared/data/tokens' },
    min: { type: 'string', default: '200' },
  },
});
const preset = values.preset;
if (!isCalibratedPreset(preset)) fail(`--preset: unknown preset '${preset}'`);
const pattern = SCRIPTS[values.script];
if (!pattern) fail(`--script: unknown script '${values.script}' (known: ${Object.keys(SCRIPTS).join(', ')})`);
const min = Number(values.min);
if (!Number.isInteger(min) || min < 1) fail(`--min: expected a positive integer, got '${values.min}'`);
if (!existsSync(join(values.corpus, 'manifest.json')))
  fail(`no corpus at ${values.corpus} (expected manifest.json)`);

const count = await REFERENCE_TOKENIZERS[preset].load();
const texts = [...(await loadTokenCorpus(values.corpus)), ...loadFitOnlySamples()];
console.log(`| text | category | ${values.script} characters | ${preset} tokens per character |`);
console.log('|---|---|---:|---:|');
for (const t of texts) {
  const runs = t.text.match(pattern) ?? [];
  const chars = runs.reduce((a, r) => a + [...r].length, 0);
  if (chars < min) continue;
  const tokens = runs.reduce((a, r) => a + count(r), 0);
  console.log(`| ${t.file} | ${t.category} | ${chars} | ${(tokens / chars).toFixed(3)} |`);
}
