/**
 * The blocks of a Markdown page that are marked runnable (docs/development.md, "Runnable blocks"), each
 * right after its marker line:
 * - `<!-- runnable -->` above a shell block: run in the repository, must exit 0;
 * - `<!-- runnable: background -->` above a shell block: a service started in the background, ready once
 *   its output says `ready on`;
 * - `<!-- runnable: project -->` above a shell block: run in a user's project where ctxkit is installed,
 *   must exit 0;
 * - `<!-- runnable: file NAME -->` above a block of any language: the file NAME of that project (the
 *   README's library example), written before the blocks after it run.
 * The docs test (test/cli/docs-runnable.test.ts) runs them in order, page by page, the project blocks in
 * a project whose `ctxkit` is this repository's sources; the package test runs the README's project
 * blocks in a project with the packed tarball installed.
 */

export type RunnableMode = 'run' | 'background' | 'project' | 'file';

export interface RunnableBlock {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  mode: RunnableMode;
  /** The block's text as written (without the fences). */
  script: string;
  /** `file` blocks: the file's name in the project. */
  name?: string;
}

const MARKER = /^<!--\s*runnable(?::\s*([a-z-]+)(?:\s+(\S+))?)?\s*-->\s*$/;
const MODES = new Set<string>(['run', 'background', 'project', 'file']);
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
    if (!MODES.has(mode)) {
      throw new Error(`${where}: unknown runnable mode "${mode}" (known: ${[...MODES].join(', ')})`);
    }
    const name = marker[2];
    if (mode === 'file' && (name === undefined || name.includes('..') || name.startsWith('/')))
      throw new Error(
        `${where}: a file block needs a name in the project (<!-- runnable: file example.mjs -->)`,
      );
    if (mode !== 'file' && name !== undefined) throw new Error(`${where}: only a file block takes a name`);
    const open = FENCE.exec(lines[i + 1] ?? '');
    if (!open) throw new Error(`${where}: <!-- runnable --> must sit right above a fenced block`);
    if (mode !== 'file' && !SHELLS.has(open[2]!)) {
      throw new Error(`${where}: a runnable block must be a shell block (\`\`\`sh), got "${open[2]}"`);
    }
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 2;
    for (; j < lines.length && !lines[j]!.startsWith(fence); j++) body.push(lines[j]!);
    if (j >= lines.length) throw new Error(`${where}: the runnable block is not closed`);
    blocks.push({
      file,
      line: i + 2,
      mode: mode as RunnableMode,
      script: body.join('\n'),
      ...(name !== undefined ? { name } : {}),
    });
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
