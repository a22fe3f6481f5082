/**
 * The four ways a tool output is cut when it arrives (SEED-RULES §4.1, §5.2, §1.5, plus ctxkit's
 * `default`). Each is a pure text function; the spill of the full output is done through `spill`,
 * which the caller backs with a `BlobStore`.
 */
import { truncateHead, truncateTail } from '../../text/line-truncate.ts';
import {
  countLines,
  formatCount,
  formatSize,
  headCodePoints,
  utf8Prefix,
  utf8Suffix,
} from '../../text/trim.ts';
import { codePointLength, utf8Length } from '../../tokens/text-stats.ts';

/** A spilled copy of the full output, or why it could not be written. */
export type SpillOutcome =
  | { ok: true; id: string; location: string; sha256: string; size: number }
  | { ok: false; error: string };

export interface ModeInput {
  text: string;
  isError: boolean;
  toolName: string | undefined;
  /** The call's `path` argument, when it has one (CowAgent's read notice names it). */
  path?: string | undefined;
  /** Writes the full output (once) and says where it went. */
  spill: (text: string) => Promise<SpillOutcome>;
}

export interface ModeOutput {
  text: string;
  changed: boolean;
  spill?: SpillOutcome;
  /** Short description for reports, e.g. `lines 5000→2000`. */
  detail?: string;
}

const unchanged = (text: string): ModeOutput => ({ text, changed: false });

// ---------------------------------------------------------------- 002 KosmoKrator §4.1

export const KOSMOKRATOR_SPILL_FAILED = '[error: could not save full output to disk]';

export function kosmokratorNotice(path: string): string {
  return `\n\n[truncated - full output saved to ${path}; inspect with targeted grep/file_read rather than pasting it back into context]`;
}

/** 2000 lines / 50000 bytes, spill first, head only, UTF-8-safe byte cut; error results untouched. */
export async function truncateKosmokrator(
  input: ModeInput,
  limits: { maxLines: number; maxBytes: number },
): Promise<ModeOutput> {
  const { text } = input;
  if (input.isError) return unchanged(text);
  const lines = countLines(text);
  const bytes = utf8Length(text);
  if (lines <= limits.maxLines && bytes <= limits.maxBytes) return unchanged(text);
  const spill = await input.spill(text);
  const path = spill.ok ? spill.location : KOSMOKRATOR_SPILL_FAILED;
  let out = text;
  if (lines > limits.maxLines) out = text.split('\n').slice(0, limits.maxLines).join('\n');
  if (utf8Length(out) > limits.maxBytes) out = utf8Prefix(out, limits.maxBytes);
  return {
    text: out + kosmokratorNotice(path),
    changed: true,
    spill,
    detail: `${lines} lines/${bytes} bytes`,
  };
}

// ---------------------------------------------------------------- 003 tiancai §5.2

export interface TiancaiLimits {
  maxLines: number;
  maxBytes: number;
  maxChars: number;
  /** Runes above which the whole output is spilled and replaced by a pointer; 0 disables. */
  spillThreshold: number;
  mode: 'head_tail' | 'head';
}

export function tiancaiSpillNotice(runes: number, path: string, sha256: string): string {
  return `[tool output too large: ${runes} chars]\nSaved to: ${path}\nSHA256: ${sha256}`;
}

export function tiancaiStatsNotice(
  out: { lines: number; bytes: number; chars: number },
  total: { lines: number; bytes: number; chars: number },
): string {
  return `\n\n[tool output truncated: showing ${out.lines}/${total.lines} lines, ${formatSize(out.bytes)}/${formatSize(total.bytes)} bytes, ${out.chars}/${total.chars} chars]`;
}

/** Every result including errors: spill over the threshold, else lines (head+tail) → runes → bytes. */
export async function truncateTiancai(input: ModeInput, limits: TiancaiLimits): Promise<ModeOutput> {
  let text = input.text;
  if (text === '') return unchanged(text);
  let changed = false;
  let spill: SpillOutcome | undefined;
  const runes = codePointLength(text);
  if (limits.spillThreshold > 0 && runes > limits.spillThreshold) {
    spill = await input.spill(text);
    if (spill.ok)
      return {
        text: tiancaiSpillNotice(runes, spill.location, spill.sha256),
        changed: true,
        spill,
        detail: 'spilled',
      };
    text = `[tool output spill failed: ${spill.error}]\n\n${text}`;
    changed = true;
  }
  const total = { lines: countLines(text, true), bytes: utf8Length(text), chars: codePointLength(text) };
  const over =
    (limits.maxLines > 0 && total.lines > limits.maxLines) ||
    (limits.maxBytes > 0 && total.bytes > limits.maxBytes) ||
    (limits.maxChars > 0 && total.chars > limits.maxChars);
  if (!over) return changed ? { text, changed, ...(spill ? { spill } : {}) } : unchanged(text);
  let out = text;
  if (limits.maxLines > 0 && total.lines > limits.maxLines) {
    const lines = out.split('\n');
    const L = limits.maxLines;
    if (limits.mode === 'head_tail' && L >= 4) {
      const head = Math.floor(L / 2);
      out = [
        ...lines.slice(0, head),
        `... [truncated ${total.lines - L} lines] ...`,
        ...lines.slice(lines.length - (L - head)),
      ].join('\n');
    } else out = lines.slice(0, L).join('\n');
  }
  if (limits.maxChars > 0 && codePointLength(out) > limits.maxChars)
    out = headCodePoints(out, limits.maxChars);
  if (limits.maxBytes > 0 && utf8Length(out) > limits.maxBytes) out = utf8Prefix(out, limits.maxBytes);
  const shown = { lines: countLines(out, true), bytes: utf8Length(out), chars: codePointLength(out) };
  return {
    text: out + tiancaiStatsNotice(shown, total),
    changed: true,
    ...(spill ? { spill } : {}),
    detail: `${total.lines} lines/${total.bytes} bytes`,
  };
}

// ---------------------------------------------------------------- 000 CowAgent §1.5

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

// ---------------------------------------------------------------- ctxkit default

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
