/**
 * CowAgent's arrival truncation (SEED-RULES §1.5): per tool 2000 lines or 51200 bytes, whole lines from
 * the head or the tail, then the 50000-character cap; errors too.
 */
import { truncateHead, truncateTail } from '../../../text/line-truncate.ts';
import { formatSize, headCodePoints } from '../../../text/trim.ts';
import { codePointLength, utf8Length } from '../../../tokens/text-stats.ts';
import {
  type ModeInput,
  type ModeOutput,
  type SpillOutcome,
  unchanged,
} from '../../stages/truncation-mode.ts';

export interface CowagentLimits {
  maxChars: number;
  maxLines: number;
  maxBytes: number;
  /** Per-tool line/byte truncation: `head` keeps the beginning, `tail` the end. */
  perTool: Readonly<Record<string, 'head' | 'tail'>>;
}

export function cowagentCapNotice(total: number, max: number): string {
  return `\n\n[Output truncated: ${total} chars total, showing first ${max} chars]`;
}

/** Per-tool 2000 lines / 51200 bytes (head or tail, whole lines), then the 50000-char cap; errors too. */
export async function truncateCowagent(input: ModeInput, limits: CowagentLimits): Promise<ModeOutput> {
  let text = input.text;
  let changed = false;
  let spill: SpillOutcome | undefined;
  const side = input.toolName !== undefined ? limits.perTool[input.toolName] : undefined;
  if (side) {
    const cut = (side === 'tail' ? truncateTail : truncateHead)(text, {
      maxLines: limits.maxLines,
      maxBytes: limits.maxBytes,
    });
    if (cut.truncated) {
      const limit = formatSize(limits.maxBytes);
      let notice: string;
      if (side === 'head') {
        // read.py: no spill (the file is the source); the notice says how to page on.
        const end = cut.outputLines;
        if (cut.firstLineExceedsLimit) {
          const first = formatSize(utf8Length(text.split('\n', 1)[0] ?? ''));
          notice = `[Line 1 is ${first}, exceeds ${limit} limit. Use bash tool to read: head -c ${limits.maxBytes} ${input.path ?? ''} | tail -n +1]`;
        } else if (cut.truncatedBy === 'lines')
          notice = `\n\n[Showing lines 1-${end} of ${cut.totalLines}. Use offset=${end + 1} to continue.]`;
        else
          notice = `\n\n[Showing lines 1-${end} of ${cut.totalLines} (${limit} limit). Use offset=${end + 1} to continue.]`;
      } else {
        // bash.py: the full output goes to a file named in the notice.
        spill = await input.spill(text);
        const path = spill.ok ? spill.location : 'None';
        const start = cut.totalLines - cut.outputLines + 1;
        const end = cut.totalLines;
        if (cut.lastLinePartial) {
          const lastLine = text.split('\n').at(-1) ?? '';
          notice = `\n\n[Showing last ${formatSize(cut.outputBytes)} of line ${end} (line is ${formatSize(utf8Length(lastLine))}). Full output: ${path}]`;
        } else if (cut.truncatedBy === 'lines')
          notice = `\n\n[Showing lines ${start}-${end} of ${cut.totalLines}. Full output: ${path}]`;
        else
          notice = `\n\n[Showing lines ${start}-${end} of ${cut.totalLines} (${limit} limit). Full output: ${path}]`;
      }
      text = side === 'tail' && cut.content === '' ? `(no output)${notice}` : cut.content + notice;
      changed = true;
    }
  }
  const total = codePointLength(text);
  if (total > limits.maxChars) {
    text = headCodePoints(text, limits.maxChars) + cowagentCapNotice(total, limits.maxChars);
    changed = true;
  }
  return changed
    ? { text, changed, ...(spill ? { spill } : {}), detail: side ? `${side} cut` : 'char cap' }
    : unchanged(text);
}
