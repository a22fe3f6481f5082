/**
 * The sections of a deterministic summary — titles, order, rendering — and its fitting to a length:
 * prose sections first within their share, then the ranked references while the text fits.
 */
import { clip } from './extract.ts';
import type { NameIndex } from './name-index.ts';
import {
  distinctReferences,
  fitReferences,
  referenceLines,
  referenceLinesLength,
} from './reference-index.ts';

export const TITLES = {
  goal: 'Goal',
  requests: 'User Requests',
  decisions: 'Key Decisions',
  changed: 'Files Changed',
  errors: 'Errors',
  done: 'Done',
  accomplished: 'Other Tool Calls',
  inProgress: 'In Progress',
  files: 'Relevant Files',
  constraints: 'User Constraints',
  identifiers: 'Identifiers',
  earlier: 'Earlier Context',
} as const;
export type Key = keyof typeof TITLES;
export type Sections = Record<Key, string[]>;
export const ORDER: Key[] = [
  'goal',
  'requests',
  'decisions',
  'changed',
  'errors',
  'done',
  'inProgress',
  'accomplished',
  'files',
  'constraints',
  'identifiers',
  'earlier',
];

/** Titles an earlier summary may use for a section (older versions of this summarizer). */
export const OLD_TITLES: Readonly<Record<string, Key>> = { accomplished: 'accomplished' };

/**
 * Which prose section gives up an item first when the prose is over its share: the other tool calls,
 * then a folded summary's text, the decisions, the later requests, the errors, the steps in progress,
 * the work done, the files changed and last the user's constraints. The goal is clipped apart.
 */
const DROP_ORDER: readonly Key[] = [
  'accomplished',
  'earlier',
  'decisions',
  'requests',
  'errors',
  'inProgress',
  'done',
  'changed',
  'constraints',
];

export function empty(): Sections {
  return {
    goal: [],
    requests: [],
    decisions: [],
    changed: [],
    errors: [],
    done: [],
    accomplished: [],
    inProgress: [],
    files: [],
    constraints: [],
    identifiers: [],
    earlier: [],
  };
}

function renderBlock(s: Sections, k: Key): string {
  const body =
    k === 'goal'
      ? s[k].join('\n')
      : k === 'files' || k === 'identifiers'
        ? referenceLines(s[k])
        : s[k].map((x) => `- ${x}`).join('\n');
  return `## ${TITLES[k]}\n${body}`;
}

/** `renderBlock(s, k).length`, without the text (0 for an empty section, which renders no block). */
export function blockLength(s: Sections, k: Key): number {
  const items = s[k];
  if (items.length === 0) return 0;
  const title = TITLES[k].length + 4; // `## ${title}\n`
  if (k === 'files' || k === 'identifiers') return title + referenceLinesLength(items);
  // One line per item (`- ` before each but the goal's), joined by newlines.
  let chars = items.length - 1;
  for (const x of items) chars += k === 'goal' ? x.length : x.length + 2;
  return title + chars;
}

/** The characters and the number of the non-empty blocks among `lengths`. */
function sumBlocks(lengths: Iterable<number>): { chars: number; blocks: number } {
  let chars = 0;
  let blocks = 0;
  for (const n of lengths)
    if (n > 0) {
      chars += n;
      blocks++;
    }
  return { chars, blocks };
}

export function render(s: Sections): string {
  const blocks: string[] = [];
  for (const k of ORDER) if (s[k].length > 0) blocks.push(renderBlock(s, k));
  return blocks.join('\n\n');
}

/**
 * Prose sections (goal, decisions, progress, constraints) may take this share of `maxOutputChars`
 * (more when the references need less); the references fill the rest, best-ranked first.
 */
export const PROSE_SHARE = 0.25;

/** Prose share (characters) under which the goal line is left out rather than clipped to a fragment. */
export const MIN_GOAL_CHARS = 120;

/**
 * Fits the summary into `max` characters: prose sections lose items in `DROP_ORDER` until they fit
 * their share, then the references (files and identifiers, ranked by `rank`, then previous summaries'
 * order) are added best-first while the text fits. The goal line is clipped to the prose share.
 */
export function fitToLength(
  s: Sections,
  max: number,
  rank: ReadonlyMap<string, number>,
  names: NameIndex,
): string {
  // Each reference's rank looked up once, not at each comparison (same comparisons, same order).
  const refs = [
    ...s.files.map((r, i) => ({ r, i, file: true, at: rank.get(r) ?? Infinity })),
    ...s.identifiers.map((r, i) => ({ r, i, file: false, at: rank.get(r) ?? Infinity })),
  ];
  refs.sort((a, b) => a.at - b.at || a.i - b.i || Number(b.file) - Number(a.file));
  const prose: Sections = { ...s, files: [], identifiers: [] };
  const refChars = refs.reduce((n, x) => n + x.r.length + 3, 0);
  const proseMax = Math.max(Math.floor(max * PROSE_SHARE), max - refChars);
  // The goal line is clipped to the prose share too, so a long first request cannot crowd out the rest;
  // under `MIN_GOAL_CHARS` of prose it is left out (a fragment of the request says less than references).
  const goalMax = Math.max(40, proseMax - 20);
  prose.goal = proseMax < MIN_GOAL_CHARS ? [] : prose.goal.map((g) => clip(g, goalMax));
  // The prose's rendered length kept per block as items are dropped, the text rendered once: a long
  // prose loses dozens of items one at a time.
  const block = new Map<Key, number>();
  for (const k of ORDER) block.set(k, blockLength(prose, k));
  const proseLength = () => {
    const { chars, blocks } = sumBlocks(block.values());
    return blocks === 0 ? 0 : chars + 2 * (blocks - 1);
  };
  while (proseLength() > proseMax) {
    const worst = DROP_ORDER.find((k) => prose[k].length > 0);
    if (!worst) break;
    // The last step in progress goes first (the first is the last request); elsewhere the oldest.
    prose[worst] = worst === 'inProgress' ? prose[worst].slice(0, -1) : prose[worst].slice(1);
    block.set(worst, blockLength(prose, worst));
  }
  const text = render(prose);
  // A reference the prose already spells out, or inside a better-ranked one, costs tokens and adds nothing.
  const distinct = new Set(
    distinctReferences(
      refs.map((x) => x.r),
      text,
      names,
    ),
  );
  const candidates = refs.filter((x) => distinct.has(x.r));
  const isFile = new Map(candidates.map((x) => [x.r, x.file]));
  const split = (top: string[]) => ({
    files: top.filter((r) => isFile.get(r)),
    identifiers: top.filter((r) => !isFile.get(r)),
  });
  // The search measures the rendering of a dozen prefixes: the prose blocks' lengths are fixed, and
  // the references' sections are measured, not built.
  const { chars: proseChars, blocks: proseBlocks } = sumBlocks(block.values());
  const fileAt = candidates.map((x) => isFile.get(x.r) === true);
  const listed = candidates.map((x) => x.r);
  const length = (picked: readonly number[]) => {
    const files: string[] = [];
    const identifiers: string[] = [];
    for (const i of picked) (fileAt[i] ? files : identifiers).push(listed[i]!);
    let chars = proseChars;
    let blocks = proseBlocks;
    for (const [k, list] of [
      ['files', files],
      ['identifiers', identifiers],
    ] as const)
      if (list.length > 0) {
        chars += `## ${TITLES[k]}\n`.length + referenceLinesLength(list);
        blocks++;
      }
    return blocks === 0 ? 0 : chars + 2 * (blocks - 1);
  };
  const fitted = fitReferences(listed, max, (top) => render({ ...prose, ...split(top) }), names, length);
  return fitted.length > max ? fitted.slice(0, max) : fitted;
}
