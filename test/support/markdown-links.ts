/**
 * The relative links of Markdown pages, checked against a set of files (the package tarball's, or the
 * repository's): each link's file must be in the set and each `#anchor` a heading of the page it names,
 * slugged as GitHub does (lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeats).
 * Links in code (fenced blocks, `code spans`) are not links; absolute URLs (`https:`, `mailto:`) are
 * not checked.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

export interface MarkdownLink {
  /** 1-based line. */
  line: number;
  href: string;
}

/** Each line with fenced code blanked and code spans removed, so that the line numbers stay. */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return line.replaceAll(/(`+)[\s\S]*?\1/g, '');
  });
}

/** The links of a page: inline `[text](href)` and `![alt](href)`, reference definitions, `src="…"`. */
export function markdownLinks(text: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  for (const [i, line] of prose(text).entries()) {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ line: i + 1, href: m[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (definition) out.push({ line: i + 1, href: definition[1]! });
    for (const m of line.matchAll(/\b(?:src|href)="([^"]+)"/g)) out.push({ line: i + 1, href: m[1]! });
  }
  return out;
}

/** The anchors of a page's headings, as GitHub makes them. */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .replaceAll(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replaceAll(/<[^>]+>/g, '')
      .toLowerCase()
      .replaceAll(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * Every relative link of the Markdown files among `files` (paths relative to `root`, `/`-separated)
 * that does not resolve inside `files`: `page:line href: why`. A link to a folder resolves when some
 * file is in it.
 */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const set = new Set(files);
  const text = new Map<string, string>();
  const read = (f: string) => {
    if (!text.has(f)) text.set(f, readFileSync(posix.join(root, f), 'utf8'));
    return text.get(f)!;
  };
  const broken: string[] = [];
  for (const page of files.filter((f) => f.endsWith('.md'))) {
    for (const { line, href } of markdownLinks(read(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
      const [path = '', anchor] = href.split('#', 2);
      const target = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURI(path)));
      const where = `${page}:${line} ${href}`;
      if (target.startsWith('../') || target.startsWith('/')) {
        broken.push(`${where}: outside the package`);
        continue;
      }
      const folder = target.endsWith('/') ? target : `${target}/`;
      if (!set.has(target) && !files.some((f) => f.startsWith(folder))) {
        broken.push(`${where}: ${target} is not there`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && set.has(target)) {
        if (!headingAnchors(read(target)).has(anchor))
          broken.push(`${where}: no heading #${anchor} in ${target}`);
      }
    }
  }
  return broken;
}
