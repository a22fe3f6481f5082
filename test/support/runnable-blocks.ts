/**
 * The command blocks of a Markdown page that are marked runnable (docs/development.md, "Runnable
 * blocks"): a fenced `sh` block right after a line `<!-- runnable -->` (run, must exit 0) or
 * `<!-- runnable: background -->` (a service started in the background, ready once its output says
 * `ready on`). The docs test (test/cli/docs-runnable.test.ts) runs them in order, page by page.
 */

export type RunnableMode = 'run' | 'background';

export interface RunnableBlock {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  mode: RunnableMode;
  /** The block's text as written (without the fences). */
  script: string;
}

const MARKER = /^<!--\s*runnable(?::\s*([a-z-]+))?\s*-->\s*$/;
const FENCE = /^(`{3,}|~{3,})\s*([A-Za-z0-9_-]*)/;
const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);

/** The runnable blocks of one page, in order; a marker not followed by a shell block is an error. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]!.trim());
    if (!marker) continue;
    const where = `${file}:${i + 1}`;
    const mode = marker[1] ?? 'run';
    if (mode !== 'run' && mode !== 'background') {
      throw new Error(`${where}: unknown runnable mode "${mode}" (known: run, background)`);
    }
    const open = FENCE.exec(lines[i + 1] ?? '');
    if (!open) throw new Error(`${where}: <!-- runnable --> must sit right above a fenced block`);
    if (!SHELLS.has(open[2]!)) {
      throw new Error(`${where}: a runnable block must be a shell block (\`\`\`sh), got "${open[2]}"`);
    }
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 2;
    for (; j < lines.length && !lines[j]!.startsWith(fence); j++) body.push(lines[j]!);
    if (j >= lines.length) throw new Error(`${where}: the runnable block is not closed`);
    blocks.push({ file, line: i + 2, mode, script: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** `export NAME=value` lines a service printed for its reader to paste (e.g. `npm start`'s key). */
export function printedExports(output: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const m of output.matchAll(/^\s*export ([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$/gm)) vars[m[1]!] = m[2]!;
  return vars;
}
