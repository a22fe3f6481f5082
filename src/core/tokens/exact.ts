/**
 * Exact OpenAI token counts through `gpt-tokenizer`, loaded lazily (the encodings are large).
 * Pure JS, so it runs in Node, Deno and Workers alike.
 */
import { CtxError } from '../errors.ts';
import { countedParts, opaqueText, outputText } from '../messages/text.ts';
import type { TokenCounter } from '../ports.ts';

export type TiktokenEncoding = 'o200k_base' | 'cl100k_base';

/** What ctxkit uses of a `gpt-tokenizer/encoding/*` module. */
export interface TiktokenEncoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

const loaded = new Map<TiktokenEncoding, Promise<TiktokenEncoder>>();

/**
 * The optional peer `gpt-tokenizer`, imported when first needed. The specifier is built at run time
 * so that a bundler (wrangler, esbuild, Vite) building an app that never counts exactly does not
 * have to find the package; bundled code that does passes `load` (see `ExactCounterOptions`).
 */
function load(encoding: TiktokenEncoding): Promise<TiktokenEncoder> {
  let p = loaded.get(encoding);
  if (!p) {
    const specifier = `gpt-tokenizer/encoding/${encoding}`;
    p = (import(/* @vite-ignore */ specifier) as Promise<TiktokenEncoder>).catch((cause: unknown) => {
      loaded.delete(encoding);
      throw new CtxError(
        'unsupported',
        `exact ${encoding} counts need the optional package gpt-tokenizer (npm install gpt-tokenizer; in bundled code pass load: () => import('${specifier}')): ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`,
        { cause },
      );
    });
    loaded.set(encoding, p);
  }
  return p;
}

export interface ExactCounterOptions {
  /** Tokens added per message for role and framing (OpenAI charges 3–4). @default 4 */
  messageOverhead?: number;
  /** Tokens charged per image. @default 1200 */
  imageTokens?: number;
  /**
   * Loads the encoding. @default a run-time `import('gpt-tokenizer/encoding/<encoding>')`, which Node
   * and Deno resolve from node_modules. In a bundle (Workers) pass the import, so that the bundler
   * includes it: `load: () => import('gpt-tokenizer/encoding/o200k_base')`.
   */
  load?: () => Promise<TiktokenEncoder>;
}

/** Creates an exact counter; resolves once the encoding is loaded. */
export async function createTiktokenCounter(
  encoding: TiktokenEncoding = 'o200k_base',
  options: ExactCounterOptions = {},
): Promise<TokenCounter> {
  const enc = options.load ? await options.load() : await load(encoding);
  const overhead = options.messageOverhead ?? 4;
  const imageTokens = options.imageTokens ?? 1200;
  const noSpecial = new Set<string>();
  const countText = (text: string) =>
    text === '' ? 0 : enc.countTokens(text, { disallowedSpecial: noSpecial });
  return {
    name: encoding === 'o200k_base' ? 'o200k' : 'cl100k',
    countText,
    countMessage(message) {
      if (message.meta?.agentVisible === false) return 0;
      let total = overhead;
      for (const p of countedParts(message.parts)) {
        if (p.type === 'text' || p.type === 'reasoning') total += countText(p.text);
        else if (p.type === 'tool-call') total += countText(p.name) + countText(JSON.stringify(p.args));
        else if (p.type === 'tool-result') total += countText(outputText(p.output));
        else if (p.type === 'opaque' || p.type === 'tool-approval') total += countText(opaqueText(p));
        else total += imageTokens;
      }
      return total;
    },
  };
}
