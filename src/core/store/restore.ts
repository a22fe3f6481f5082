/**
 * Restore after a restart, as each preset does it: 000 §1.11 (CowAgent) and 002 §4.10
 * (KosmoKrator, with the recommended fix: the summary goes BEFORE the kept rows).
 */
import { startsTurn } from '../messages/text.ts';
import type { Message, Part } from '../messages/types.ts';
import type { StoredMessage, WorkingContext } from './session-store.ts';

/** `max(3, maxContextTurns // 6)`: 20 → 3, 24 → 4, 30 → 5. */
export function cowAgentRestoreTurns(maxContextTurns: number): number {
  return Math.max(3, Math.floor(maxContextTurns / 6));
}

function userText(m: Message): string {
  return m.parts
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n')
    .trim();
}

function textMessage(id: string, role: 'user' | 'assistant', text: string): Message {
  const parts: Part[] = [{ type: 'text', text }];
  return { id, role, parts };
}

/**
 * 000 §1.11: keep the newest `restoreTurns` turns (starting at a visible user message, never
 * mid-chain), thinking stripped; per turn one user message (its text blocks joined by `\n`) and,
 * if the turn has assistant text, one assistant message with the LAST non-empty assistant text.
 * Assistant messages before the first real user message are dropped; tool traffic is dropped.
 */
export function restoreCowAgent(
  messages: readonly Message[],
  options: { maxContextTurns?: number } = {},
): Message[] {
  const restoreTurns = cowAgentRestoreTurns(options.maxContextTurns ?? 20);
  let start = 0;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!startsTurn(messages[i]!)) continue;
    seen++;
    start = i;
    if (seen === restoreTurns) break;
  }
  if (seen === 0) return [];
  const out: Message[] = [];
  let turnUser: Message | undefined;
  let lastAssistant: { id: string; text: string } | undefined;
  const close = () => {
    if (!turnUser) return;
    out.push(textMessage(turnUser.id, 'user', userText(turnUser)));
    if (lastAssistant) out.push(textMessage(lastAssistant.id, 'assistant', lastAssistant.text));
  };
  for (const m of messages.slice(start)) {
    if (startsTurn(m)) {
      close();
      turnUser = m;
      lastAssistant = undefined;
    } else if (m.role === 'assistant' && turnUser) {
      const text = userText(m);
      if (text !== '') lastAssistant = { id: m.id, text };
    }
  }
  close();
  return out;
}

/**
 * 002 §4.10 with the recommended fix: the non-compacted log rows in seq order, preceded by the
 * summary messages of the working context (the messages compaction made), so a resumed session
 * sees the summary before the recent messages, as it did in memory.
 */
export function restoreKosmoKrator(
  rows: readonly StoredMessage[],
  working: WorkingContext | null,
): Message[] {
  const summaries: Message[] = [];
  if (working) for (const item of working.items) if ('message' in item) summaries.push(item.message);
  const kept = rows.filter((r) => !r.compacted).map((r) => r.message);
  return summaries.length === 0 ? kept : [...summaries, ...kept];
}
