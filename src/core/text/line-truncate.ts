/**
 * CowAgent's per-tool truncation (`agent/tools/utils/truncate.py`, SEED-RULES §1.5): 2000 lines or
 * 50 KB (51200 bytes), whichever is hit first, whole lines only. `truncateHead` keeps the beginning
 * (file reads, grep); `truncateTail` keeps the end (bash) and may keep a partial last line cut on a
 * UTF-8 boundary when that line alone is over the byte limit.
 */
import { utf8Length } from '../tokens/text-stats.ts';
import { utf8Suffix } from './trim.ts';

export interface LineLimits {
  /** @default 2000 */
  maxLines?: number;
  /** @default 51200 */
  maxBytes?: number;
}

export interface LineTruncation {
  content: string;
  truncated: boolean;
  truncatedBy: 'lines' | 'bytes' | undefined;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  lastLinePartial: boolean;
  firstLineExceedsLimit: boolean;
}

export const LINE_LIMIT_DEFAULTS = { maxLines: 2000, maxBytes: 51200 } as const;

function untouched(content: string, lines: number, bytes: number): LineTruncation {
  return {
    content,
    truncated: false,
    truncatedBy: undefined,
    totalLines: lines,
    totalBytes: bytes,
    outputLines: lines,
    outputBytes: bytes,
    lastLinePartial: false,
    firstLineExceedsLimit: false,
  };
}

/** Keeps the first whole lines that fit both limits. A first line over the byte limit → empty content. */
export function truncateHead(content: string, limits: LineLimits = {}): LineTruncation {
  const maxLines = limits.maxLines ?? LINE_LIMIT_DEFAULTS.maxLines;
  const maxBytes = limits.maxBytes ?? LINE_LIMIT_DEFAULTS.maxBytes;
  const totalBytes = utf8Length(content);
  const lines = content.split('\n');
  if (lines.length <= maxLines && totalBytes <= maxBytes) return untouched(content, lines.length, totalBytes);
  const base = { truncated: true, totalLines: lines.length, totalBytes, lastLinePartial: false };
  if (utf8Length(lines[0]!) > maxBytes) {
    return {
      ...base,
      content: '',
      truncatedBy: 'bytes',
      outputLines: 0,
      outputBytes: 0,
      firstLineExceedsLimit: true,
    };
  }
  const out: string[] = [];
  let bytes = 0;
  let by: 'lines' | 'bytes' = 'lines';
  for (let i = 0; i < lines.length; i++) {
    if (i >= maxLines) break;
    const size = utf8Length(lines[i]!) + (i > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      by = 'bytes';
      break;
    }
    out.push(lines[i]!);
    bytes += size;
  }
  if (out.length >= maxLines && bytes <= maxBytes) by = 'lines';
  const text = out.join('\n');
  return {
    ...base,
    content: text,
    truncatedBy: by,
    outputLines: out.length,
    outputBytes: utf8Length(text),
    firstLineExceedsLimit: false,
  };
}

/** Keeps the last whole lines that fit both limits; a last line over the byte limit keeps its end. */
export function truncateTail(content: string, limits: LineLimits = {}): LineTruncation {
  const maxLines = limits.maxLines ?? LINE_LIMIT_DEFAULTS.maxLines;
  const maxBytes = limits.maxBytes ?? LINE_LIMIT_DEFAULTS.maxBytes;
  const totalBytes = utf8Length(content);
  const lines = content.split('\n');
  if (lines.length <= maxLines && totalBytes <= maxBytes) return untouched(content, lines.length, totalBytes);
  const out: string[] = [];
  let bytes = 0;
  let by: 'lines' | 'bytes' = 'lines';
  let partial = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (out.length >= maxLines) break;
    const line = lines[i]!;
    const size = utf8Length(line) + (out.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      by = 'bytes';
      if (out.length === 0) {
        const cut = utf8Suffix(line, maxBytes);
        out.unshift(cut);
        bytes = utf8Length(cut);
        partial = true;
      }
      break;
    }
    out.unshift(line);
    bytes += size;
  }
  if (out.length >= maxLines && bytes <= maxBytes) by = 'lines';
  const text = out.join('\n');
  return {
    content: text,
    truncated: true,
    truncatedBy: by,
    totalLines: lines.length,
    totalBytes,
    outputLines: out.length,
    outputBytes: utf8Length(text),
    lastLinePartial: partial,
    firstLineExceedsLimit: false,
  };
}
