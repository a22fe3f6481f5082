/**
 * 003 §5.6's tool digest at compaction time (`compactToolResultsInRecent`): the oldest visible tool
 * results beyond a cutoff archived as tool-result archiving archives them, and one
 * `[Compaction tool digest]` message listing them in a line each.
 */
import type { Message } from '../../../messages/types.ts';
import type { IdGenerator } from '../../../ports.ts';
import { trimRunes } from '../../../text/trim.ts';
import { archiveToolResult, TOOL_ARCHIVING_DEFAULTS } from '../../stages/archiving.ts';
import { rereadNote } from '../../stages/recall-hints.ts';
import { indexToolCalls } from '../../stages/stage-kit.ts';
import { archivable, itemOf, status, summaryMessage, visibleTool } from '../../stages/tool-items.ts';

export interface RecentDigestOptions {
  ids: IdGenerator;
  /** Results of these tools are never archived. */
  excludeTools?: ReadonlySet<string>;
  /** The ref a digest line names for its archived message (recall on), as `(whole: reread('…'))`. */
  refOf?: (message: Message) => string | undefined;
}

export interface RecentDigest {
  /** The input itself when nothing was archived. */
  messages: Message[];
  /** The archived originals, oldest first. */
  archived: Message[];
  digest?: Message;
}

/**
 * 003 §5.6 `compactToolResultsInRecent`: when the visible tool results exceed `cutoff` (≤ 0 → never),
 * the oldest excess are archived and one `[Compaction tool digest]` message is appended at the end:
 * `- {name|unknown} ({ok|error}): {text|(empty output), one line, ≤200 runes}` per result.
 * Pinned and excluded results are skipped (ctxkit rule; 003 has neither).
 */
export function compactToolResultsInRecent(
  messages: readonly Message[],
  cutoff: number,
  options: RecentDigestOptions,
): RecentDigest {
  const unchanged: RecentDigest = { messages: messages as Message[], archived: [] };
  if (cutoff <= 0 || messages.length === 0) return unchanged;
  const visible: number[] = [];
  messages.forEach((m, i) => {
    if (visibleTool(m)) visible.push(i);
  });
  const excess = visible.length - cutoff;
  if (excess <= 0) return unchanged;
  const calls = indexToolCalls(messages);
  const exclude = options.excludeTools ?? new Set<string>();
  const targets = visible.filter((i) => archivable(messages[i]!, calls, exclude)).slice(0, excess);
  if (targets.length === 0) return unchanged;
  const out = messages.slice();
  const lines: string[] = [];
  const archived: Message[] = [];
  for (const i of targets) {
    const m = messages[i]!;
    const item = itemOf(m, calls);
    out[i] = archiveToolResult(m);
    archived.push(m);
    const text = trimRunes(
      (item.text.trim() || '(empty output)').replaceAll('\n', ' '),
      TOOL_ARCHIVING_DEFAULTS.digestLineRunes,
    );
    const note = rereadNote(options.refOf?.(m), 'whole');
    lines.push(`- ${item.name || 'unknown'} (${status(item)}): ${text}${note === '' ? '' : ` ${note}`}`);
  }
  const digest = summaryMessage(options.ids.next('digest'), `[Compaction tool digest]\n${lines.join('\n')}`);
  out.push(digest);
  return { messages: out, archived, digest };
}
