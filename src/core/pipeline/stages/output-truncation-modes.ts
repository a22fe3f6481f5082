/**
 * ctxkit's `default` arrival truncation: head + tail within the line and byte limits, a middle marker,
 * the full output spilled first and named in the notice (blob, size, SHA-256, how to read it back).
 * The seed systems' modes are in `presets/<seed>/output-truncation.ts` (SEED-RULES §4.1, §5.2, §1.5).
 */
import { countLines, formatCount, formatSize, utf8Prefix, utf8Suffix } from '../../text/trim.ts';
import { utf8Length } from '../../tokens/text-stats.ts';
import { type ModeInput, type ModeOutput, type SpillOutcome, unchanged } from './truncation-mode.ts';

export type { ModeInput, ModeOutput, SpillOutcome } from './truncation-mode.ts';

export interface DefaultLimits {
  maxLines: number;
  maxBytes: number;
}

/** The notice the default mode appends; it names the blob, its size and SHA-256, and how to read it back. */
export function defaultNotice(
  shown: { headLines: number; tailLines: number; bytes: number },
  total: { lines: number; bytes: number },
  spill: SpillOutcome,
): string {
  const what = `[output truncated: showing the first ${formatCount(shown.headLines)} and last ${formatCount(shown.tailLines)} of ${formatCount(total.lines)} lines (${formatSize(shown.bytes)} of ${formatSize(total.bytes)})`;
  if (!spill.ok) return `\n\n${what}; the full output could not be saved: ${spill.error}]`;
  return `\n\n${what}; full output saved as blob ${spill.id} (${formatSize(spill.size)}, SHA-256 ${spill.sha256}) — read it back from ${spill.location}, or fetch byte ranges instead of pasting it all back]`;
}

/** Head + tail within the line and byte limits, with a middle marker; spills first; errors too. */
export async function truncateDefault(input: ModeInput, limits: DefaultLimits): Promise<ModeOutput> {
  const { text } = input;
  const totalLines = countLines(text);
  const totalBytes = utf8Length(text);
  if (totalLines <= limits.maxLines && totalBytes <= limits.maxBytes) return unchanged(text);
  const spill = await input.spill(text);
  let head = text;
  let tail = '';
  if (totalLines > limits.maxLines) {
    const lines = text.split('\n');
    const h = Math.ceil(limits.maxLines / 2);
    head = lines.slice(0, h).join('\n');
    tail = lines.slice(lines.length - (limits.maxLines - h)).join('\n');
  }
  const headBudget = Math.ceil(limits.maxBytes / 2);
  const tailBudget = limits.maxBytes - headBudget;
  if (tail === '') {
    head = utf8Prefix(text, headBudget);
    tail = utf8Suffix(text, tailBudget);
  } else {
    if (utf8Length(head) > headBudget) head = utf8Prefix(head, headBudget);
    if (utf8Length(tail) > tailBudget) tail = utf8Suffix(tail, tailBudget);
  }
  const headLines = head === '' ? 0 : countLines(head);
  const tailLines = tail === '' ? 0 : countLines(tail);
  const omittedBytes = totalBytes - utf8Length(head) - utf8Length(tail);
  const marker = `\n… [${formatSize(Math.max(0, omittedBytes))} omitted] …\n`;
  const out = head + marker + tail;
  const notice = defaultNotice(
    { headLines, tailLines, bytes: utf8Length(head) + utf8Length(tail) },
    { lines: totalLines, bytes: totalBytes },
    spill,
  );
  return { text: out + notice, changed: true, spill, detail: `${totalLines} lines/${totalBytes} bytes` };
}
