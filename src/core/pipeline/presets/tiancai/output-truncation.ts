/**
 * tiancai's arrival truncation (SEED-RULES §5.2): every result, errors included; over the spill threshold
 * the full output is spilled and a notice names it, else it is cut by lines (head + tail), then runes,
 * then bytes, with the stats notice.
 */
import { countLines, formatSize, headCodePoints, utf8Prefix } from '../../../text/trim.ts';
import { codePointLength, utf8Length } from '../../../tokens/text-stats.ts';
import {
  type ModeInput,
  type ModeOutput,
  type SpillOutcome,
  unchanged,
} from '../../stages/truncation-mode.ts';

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
