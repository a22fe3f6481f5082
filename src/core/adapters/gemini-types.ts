/** A Gemini `generateContent` request as ctxkit writes it. */
import type { JsonValue } from '../messages/types.ts';
import type { Bag } from './bag.ts';

export interface GeminiContent {
  role: 'user' | 'model';
  parts: Bag[];
  [key: string]: JsonValue;
}

export interface GeminiRequest {
  systemInstruction?: { parts: Bag[]; [key: string]: JsonValue };
  contents: GeminiContent[];
}
