/**
 * KosmoKrator's arrival truncation (SEED-RULES §4.1): over 2000 lines or 50000 bytes the full output is
 * spilled first, then the head is kept (a UTF-8-safe byte cut) with a notice naming the spill; error
 * results are left as they are.
 */
import { countLines, utf8Prefix } from '../../../text/trim.ts';
import { utf8Length } from '../../../tokens/text-stats.ts';
import { type ModeInput, type ModeOutput, unchanged } from '../../stages/truncation-mode.ts';

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
