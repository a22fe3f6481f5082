/**
 * From a run's journal to the archive: every message a stage removed, replaced by a stub, cut,
 * archived, folded into a summary or spilled is stored whole, as the run received it, under its
 * ref (the one the stub names, else its content ref) and, when a summary folded it, under the
 * summary's span ref too. Entries that lost nothing (`inserted`, `repaired`) add nothing, nor do the
 * recall tools' own answers (copies of what the archive holds).
 */
import type { Message } from '../messages/types.ts';
import type { JournalEntry } from '../pipeline/types.ts';
import type { ArchivedMessage } from './archive.ts';
import { RECALL_TOOL_NAMES } from './definitions.ts';
import { contentRef } from './ref.ts';
import { renderMessage } from './render.ts';

/** The journal actions after which the model no longer sees the original: what the archive keeps. */
export const LOST_ACTIONS: ReadonlySet<JournalEntry['action']> = new Set<JournalEntry['action']>([
  'removed',
  'replaced',
  'truncated',
  'archived',
  'summarized',
  'spilled',
]);

/** A tool message holding only answers of the recall tools: what it says is in the archive already. */
function recallAnswer(m: Message): boolean {
  return (
    m.role === 'tool' &&
    m.parts.every(
      (p) => p.type === 'tool-result' && (RECALL_TOOL_NAMES as readonly string[]).includes(p.name ?? ''),
    )
  );
}

/** The archive rows for what `journal` says left `input` (one per message and ref; spans in order). */
export function archivedMessages(
  input: readonly Message[],
  journal: readonly JournalEntry[],
  at: number,
): ArchivedMessage[] {
  if (journal.length === 0) return [];
  const position = new Map<string, number>();
  for (const [i, m] of input.entries()) position.set(m.id, i);
  const out = new Map<string, ArchivedMessage>();
  for (const e of journal) {
    if (!LOST_ACTIONS.has(e.action)) continue;
    const i = position.get(e.messageId);
    if (i === undefined) continue; // a message the run made itself (a summary replaced in the same run)
    const m = input[i]!;
    if (recallAnswer(m)) continue;
    const span = e.ref?.startsWith('s') ? e.ref : undefined;
    const ref = e.ref !== undefined && span === undefined ? e.ref : contentRef(m);
    const key = `${ref} ${span ?? ''}`;
    if (out.has(key)) continue;
    const item: ArchivedMessage = {
      ref,
      seq: i,
      messageId: m.id,
      role: m.role,
      action: e.action,
      stage: e.stage,
      at,
      text: renderMessage(m),
    };
    if (span !== undefined) item.span = span;
    if (e.location.startsWith('blob:')) item.location = e.location;
    out.set(key, item);
  }
  return [...out.values()];
}
