/**
 * The seed systems' token estimators, reproduced exactly (SEED-RULES §1.9, §4.4, §5.5), plus
 * characters/4 for comparison. Each is a `TokenCounter`.
 */
import { countedParts, opaqueText, outputText } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';
import type { TokenCounter } from '../ports.ts';
import { pyJsonDumps } from './py-json.ts';
import { asciiSplit, codePointLength, utf8Length } from './text-stats.ts';

export { type CountCacheOptions, memoizeCounter } from './count-cache.ts';

export interface Chars4Options {
  /** What a "character" is: UTF-8 bytes as tiancai's Go code counts (`len`), or code points. @default 'bytes' */
  unit?: 'bytes' | 'chars';
  /** Characters charged per image. @default 4800 (≈1200 tokens) */
  imageChars?: number;
}

/**
 * 003 (tiancai): `ceil(chars / 4)` over text, reasoning, tool-call name + JSON args and tool output;
 * images +4800 chars; invisible messages count 0.
 */
export function createChars4Counter(options: Chars4Options = {}): TokenCounter {
  const unit = options.unit ?? 'bytes';
  const imageChars = options.imageChars ?? 4800;
  const len = unit === 'bytes' ? utf8Length : codePointLength;
  const countText = (text: string) => Math.ceil(len(text) / 4);
  return {
    name: unit === 'bytes' ? 'chars4' : 'chars4-cp',
    countText,
    countMessage(message) {
      if (message.meta?.agentVisible === false) return 0;
      let chars = 0;
      for (const p of countedParts(message.parts)) {
        if (p.type === 'text' || p.type === 'reasoning') chars += len(p.text);
        else if (p.type === 'tool-call') chars += len(p.name) + len(JSON.stringify(p.args));
        else if (p.type === 'tool-result') chars += len(outputText(p.output));
        else if (p.type === 'image') chars += imageChars;
        else chars += len(opaqueText(p));
      }
      return Math.ceil(chars / 4);
    },
  };
}

/** 002 (KosmoKrator): `ceil(code points / 3.2)` per text, +10 per message. */
export function createKosmokratorCounter(options: { imageTokens?: number } = {}): TokenCounter {
  const imageTokens = options.imageTokens ?? 1200;
  const countText = (text: string) => (text === '' ? 0 : Math.ceil(codePointLength(text) / 3.2));
  return {
    name: 'kosmokrator',
    countText,
    countMessage(message) {
      if (message.meta?.agentVisible === false) return 0;
      let total = 10;
      let text = '';
      for (const p of countedParts(message.parts)) {
        if (p.type === 'text') text += p.text;
        else if (p.type === 'tool-call') total += countText(p.name + JSON.stringify(p.args));
        else if (p.type === 'tool-result') total += countText(outputText(p.output));
        else if (p.type === 'image') total += imageTokens;
        else if (p.type === 'opaque' || p.type === 'tool-approval') total += countText(opaqueText(p));
      }
      return total + countText(text);
    },
  };
}

/** 000 (CowAgent): `int(non_ascii × 1.5 + ascii × 0.25) + 1` per text; block overheads as in §1.9. */
export function createCowagentCounter(): TokenCounter {
  const countText = (text: string) => {
    if (text === '') return 0;
    const { ascii, nonAscii } = asciiSplit(text);
    return Math.floor(nonAscii * 1.5 + ascii * 0.25) + 1;
  };
  return {
    name: 'cowagent',
    countText,
    countMessage(message: Message) {
      if (message.meta?.agentVisible === false) return 0;
      const parts = countedParts(message.parts);
      // A single text part is CowAgent's string content.
      if (parts.length === 1 && parts[0]!.type === 'text') return Math.max(1, countText(parts[0]!.text));
      let total = 0;
      for (const p of parts) {
        if (p.type === 'text') total += countText(p.text);
        else if (p.type === 'image') total += 1200;
        else if (p.type === 'tool-call') total += 50 + countText(pyJsonDumps(p.args));
        else if (p.type === 'tool-result')
          total += 30 + (typeof p.output === 'string' ? countText(p.output) : 0);
        else if (p.type === 'opaque' || p.type === 'tool-approval') total += countText(opaqueText(p));
        else total += 10;
      }
      return Math.max(1, total);
    },
  };
}
