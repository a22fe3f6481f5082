/**
 * Line-based chunking (000/004 `chunker.py`): lines are packed into chunks of at most
 * `maxChars` characters; each new chunk starts with the trailing lines of the previous one
 * that fit in `overlapChars`. A single line longer than `maxChars` is split into its own chunks.
 */

export interface TextChunk {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
}

export interface ChunkOptions {
  /** 500 tokens × 4 chars. @default 2000 */
  maxChars?: number;
  /** 50 tokens × 4 chars. @default 200 */
  overlapChars?: number;
}

export function chunkLines(content: string, options: ChunkOptions = {}): TextChunk[] {
  const maxChars = options.maxChars ?? 2000;
  const overlapChars = options.overlapChars ?? 200;
  const lines = content.split('\n');
  const chunks: TextChunk[] = [];
  let current: { line: number; text: string }[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    const text = current.map((l) => l.text).join('\n');
    if (text.trim() !== '')
      chunks.push({ startLine: current[0]!.line, endLine: current[current.length - 1]!.line, text });
    const keep: { line: number; text: string }[] = [];
    let kept = 0;
    for (let i = current.length - 1; i >= 0; i--) {
      const l = current[i]!;
      if (kept + l.text.length + 1 > overlapChars) break;
      keep.unshift(l);
      kept += l.text.length + 1;
    }
    current = keep;
    size = kept;
  };
  for (const [i, text] of lines.entries()) {
    const line = i + 1;
    if (text.length > maxChars) {
      flush();
      current = [];
      size = 0;
      for (let at = 0; at < text.length; at += maxChars)
        chunks.push({ startLine: line, endLine: line, text: text.slice(at, at + maxChars) });
      continue;
    }
    if (size + text.length + 1 > maxChars && current.length > 0) {
      const before = current.length;
      flush();
      // Overlap made of the whole previous chunk would loop forever; drop it then.
      if (current.length === before) {
        current = [];
        size = 0;
      }
    }
    current.push({ line, text });
    size += text.length + 1;
  }
  if (current.length > 0 && !chunks.some((c) => c.endLine === current[current.length - 1]!.line)) {
    const text = current.map((l) => l.text).join('\n');
    if (text.trim() !== '')
      chunks.push({ startLine: current[0]!.line, endLine: current[current.length - 1]!.line, text });
  }
  return chunks;
}
