/**
 * Exact OpenAI token counts through `gpt-tokenizer`, loaded lazily (the encodings are large).
 * Pure JS, so it runs in Node, Deno and Workers alike.
 */
import { CtxError } from '../errors.ts';
import { outputText } from '../messages/text.ts';
import type { TokenCounter } from '../ports.ts';

export type TiktokenEncoding = 'o200k_base' | 'cl100k_base';

interface Encoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

const loaded = new Map<TiktokenEncoding, Promise<Encoder>>();

function load(encoding: TiktokenEncoding): Promise<Encoder> {
  let p = loaded.get(encoding);
  if (!p) {
    p = (
      encoding === 'o200k_base'
        ? (import('gpt-tokenizer/encoding/o200k_base') as Promise<Encoder>)
        : (import('gpt-tokenizer/encoding/cl100k_base') as Promise<Encoder>)
    ).catch((cause: unknown) => {
      loaded.delete(encoding);
      throw new CtxError(
        'unsupported',
        `exact ${encoding} counts need the optional package gpt-tokenizer (npm install gpt-tokenizer): ${cause instanceof Error ? cause.message : String(cause)}`,
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
}

/** Creates an exact counter; resolves once the encoding is loaded. */
export async function createTiktokenCounter(
  encoding: TiktokenEncoding = 'o200k_base',
  options: ExactCounterOptions = {},
): Promise<TokenCounter> {
  const enc = await load(encoding);
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
      for (const p of message.parts) {
        if (p.type === 'text' || p.type === 'reasoning') total += countText(p.text);
        else if (p.type === 'tool-call') total += countText(p.name) + countText(JSON.stringify(p.args));
        else if (p.type === 'tool-result') total += countText(outputText(p.output));
        else total += imageTokens;
      }
      return total;
    },
  };
}
