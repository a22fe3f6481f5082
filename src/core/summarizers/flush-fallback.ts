/**
 * CowAgent's rule-based memory-flush fallback (SEED-RULES §2.3): at most 10 lines
 * `- 用户: {user≤120} → 回复: {first meaningful assistant line≤120}`, user texts of ≤ 3 chars skipped.
 * The labels are CowAgent's for the `cowagent` preset and English for every other (`flushLabels`).
 */
import { messageText, startsTurn } from '../messages/text.ts';
import type { Message } from '../messages/types.ts';

/** First `n` code points of `text`. */
export function clipChars(text: string, n: number): string {
  const cps = Array.from(text);
  return cps.length <= n ? text : cps.slice(0, n).join('');
}

function firstMeaningfulLine(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t !== '' && /[\p{L}\p{N}]/u.test(t)) return t;
  }
  return undefined;
}

export interface FlushLabels {
  user: string;
  reply: string;
}

/** CowAgent's labels (SEED-RULES §2.3). */
export const COWAGENT_FLUSH_LABELS: FlushLabels = { user: '用户', reply: '回复' };
export const ENGLISH_FLUSH_LABELS: FlushLabels = { user: 'User', reply: 'Reply' };

/** The labels of a preset's daily memory: CowAgent's for `cowagent`, English for the others. */
export function flushLabels(preset: string | undefined): FlushLabels {
  return preset === 'cowagent' || preset === undefined ? COWAGENT_FLUSH_LABELS : ENGLISH_FLUSH_LABELS;
}

export function memoryFlushFallback(
  messages: readonly Message[],
  maxLines = 10,
  labels: FlushLabels = COWAGENT_FLUSH_LABELS,
): string {
  const lines: string[] = [];
  for (let i = 0; i < messages.length && lines.length < maxLines; i++) {
    const m = messages[i]!;
    if (!startsTurn(m)) continue;
    const userText = messageText(m).trim();
    if (Array.from(userText).length <= 3) continue;
    let reply: string | undefined;
    for (let j = i + 1; j < messages.length && !startsTurn(messages[j]!); j++) {
      const a = messages[j]!;
      if (a.role !== 'assistant') continue;
      reply = firstMeaningfulLine(messageText(a));
      if (reply) break;
    }
    const u = clipChars(userText.replace(/\s+/g, ' '), 120);
    lines.push(
      reply ? `- ${labels.user}: ${u} → ${labels.reply}: ${clipChars(reply, 120)}` : `- ${labels.user}: ${u}`,
    );
  }
  return lines.join('\n');
}
