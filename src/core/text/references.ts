/**
 * Salient references in agent text: file paths, file names with an extension, and code identifiers
 * (snake_case or camelCase, 6+ characters). Compactions are measured by how many of the references an
 * agent uses after a cut survive in the compacted context, and the summarizers list them for that reason.
 */

const EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|mdx|py|pyi|go|rs|rb|ex|exs|eex|heex|erl|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|ps1|sql|yml|yaml|toml|ini|cfg|conf|env|lock|txt|csv|tsv|xml|html|htm|css|scss|sass|less|vue|svelte|proto|graphql|gql|tf|lua|dart|r|jl|pl|pm|zig|nim|ml|mli|hs|elm|clj|cljs|edn|gradle|properties|dockerfile|mk|cmake|ipynb|pdf|png|jpg|svg|wasm|log|patch|diff';

/**
 * Paths with at least one slash: `src/core/index.ts`, `/home/u/x.py`, `lib/spotter/`. A match starts
 * only where a run of path characters starts, so a long run without a slash (base64, hashes) costs one
 * pass, not one attempt per character.
 */
const PATH_RE = /(?<![A-Za-z0-9_@.+~-])(?:~|\.{1,2})?\/?(?:[A-Za-z0-9_@.+-]+\/)+[A-Za-z0-9_@.+-]*/g;
/** File names with a known extension: `mix.exs`, `README.md` (from the start of a run, as paths). */
const FILE_RE = new RegExp(`(?<![A-Za-z0-9_.+-])[A-Za-z0-9_][A-Za-z0-9_.+-]*\\.(?:${EXTENSIONS})\\b`, 'gi');
/**
 * snake_case (an inner underscore between alphanumerics) or camelCase/PascalCase (a lower→upper step):
 * a whole word of 6+ word characters that does not start with a digit and holds such a step. The step
 * is looked for by the expression itself (a look-ahead within the word), so that a plain word is never
 * made a string; a word of digits and underscores (`_1_234`) is left out after.
 */
const IDENT_RE = /\b(?=[A-Za-z_])(?=\w*?(?:[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]))\w{6,}\b/g;

export type ReferenceKind = 'path' | 'file' | 'identifier';

/** `/^(https?|ftp):?$/`: a URL's scheme, not a folder. */
const SCHEMES: ReadonlySet<string> = new Set(['http', 'http:', 'https', 'https:', 'ftp', 'ftp:']);

function cleanPath(p: string): string | undefined {
  // Trailing `.,:;` off (`/[.,:;]+$/`).
  let end = p.length;
  for (let c = p.charCodeAt(end - 1); c === 46 || c === 44 || c === 58 || c === 59; )
    c = p.charCodeAt(--end - 1);
  const trimmed = end === p.length ? p : p.slice(0, end);
  if (!trimmed.includes('/')) return undefined;
  // The non-empty segments between slashes: the first, and whether all are `[0-9.]+`.
  let first: string | undefined;
  let numeric = true;
  for (let k = 0; k < trimmed.length; ) {
    let e = trimmed.indexOf('/', k);
    if (e < 0) e = trimmed.length;
    if (e > k) {
      first ??= trimmed.slice(k, e);
      for (let q = k; numeric && q < e; q++) {
        const c = trimmed.charCodeAt(q);
        numeric = c === 46 || (c >= 48 && c <= 57);
      }
    }
    k = e + 1;
  }
  if (first === undefined) return undefined;
  // URLs' hosts and bare slashes are not paths an agent works with.
  if (SCHEMES.has(first)) return undefined;
  if (numeric) return undefined; // dates, versions, fractions
  return trimmed.length >= 3 ? trimmed : undefined;
}

/**
 * Every reference in `text`, by kind, in order of first appearance (deduplicated). Regular expressions
 * rather than loops over characters: they run as native code from the first call, which is when a
 * compaction needs them most (a process's first compactions run before the JIT has warmed up).
 */
export function extractReferences(text: string): Map<string, ReferenceKind> {
  const out = new Map<string, ReferenceKind>();
  // `match` with the global flag: the matched strings only, not a match object per match.
  for (const m of (text.includes('/') && text.match(PATH_RE)) || []) {
    const p = cleanPath(m);
    if (p && !out.has(p)) out.set(p, 'path');
  }
  for (const m of text.match(FILE_RE) ?? []) if (!out.has(m)) out.set(m, 'file');
  for (const w of text.match(IDENT_RE) ?? [])
    if ((w.charCodeAt(0) !== 95 || /[A-Za-z]/.test(w)) && !out.has(w)) out.set(w, 'identifier');
  return out;
}

/** The code of a text: fenced blocks and inline backtick spans, joined by newlines. */
export function codeSpans(text: string): string {
  return [...text.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g)]
    .map((m) => m[1] ?? m[2] ?? '')
    .join('\n');
}

/** A text of the conversation, for `scoreReferences`: where it stands and whether the agent wrote it. */
export interface ReferenceSource {
  text: string;
  /** Position in the conversation (message index); later is more recent. */
  at: number;
  /** Written by the agent (its text or tool-call arguments) rather than seen in user text or tool output. */
  agent: boolean;
  /** Named in code in the task (the user's first request): a command or file the user spelled out. @default false */
  task?: boolean;
}

export interface ScoredReference {
  ref: string;
  kind: ReferenceKind;
  count: number;
  score: number;
}

/** How much recency weighs against frequency in `scoreReferences`. */
export const REFERENCE_RECENCY_WEIGHT = 3;
/** Bonus of a reference the agent itself wrote at least once. */
export const REFERENCE_AGENT_BONUS = 1;
/** Bonus of a reference the task (the first request) spells out in code: a command or file the user named. */
export const REFERENCE_TASK_BONUS = 1;

/**
 * References ranked by how likely the agent is to use them again: `ln(1 + occurrences)` (texts that
 * mention it) + `3 × position of the last mention` (0 at the start, 1 at the end) + 1 when the agent
 * itself wrote it + 1 when the task spells it out in code (the test to run, the command that submits).
 * Ties go to the more recent. General rules, no per-session tuning.
 */
export function scoreReferences(
  sources: readonly ReferenceSource[],
  /** How a source's references are read; a memo of `extractReferences` may stand in. */
  extract: (text: string, index: number) => ReadonlyMap<string, ReferenceKind> = extractReferences,
): ScoredReference[] {
  const stats = new Map<
    string,
    { kind: ReferenceKind; count: number; last: number; agent: boolean; task: boolean }
  >();
  let first = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const [i, s] of sources.entries()) {
    first = Math.min(first, s.at);
    end = Math.max(end, s.at);
    const task = s.task === true ? new Set(extractReferences(codeSpans(s.text)).keys()) : undefined;
    // forEach, not for…of: no entry array per reference (a compaction scores thousands of them).
    extract(s.text, i).forEach((kind, ref) => {
      const st = stats.get(ref);
      if (st === undefined) {
        stats.set(ref, { kind, count: 1, last: s.at, agent: s.agent, task: task?.has(ref) === true });
        return;
      }
      st.count++;
      st.last = Math.max(st.last, s.at);
      st.agent ||= s.agent;
      st.task ||= task?.has(ref) === true;
    });
  }
  const span = Math.max(1, end - first);
  return [...stats.entries()]
    .map(([ref, s]) => ({
      ref,
      kind: s.kind,
      count: s.count,
      last: s.last,
      score:
        Math.log(1 + s.count) +
        REFERENCE_RECENCY_WEIGHT * ((s.last - first) / span) +
        (s.agent ? REFERENCE_AGENT_BONUS : 0) +
        (s.task ? REFERENCE_TASK_BONUS : 0),
    }))
    .sort((a, b) => b.score - a.score || b.last - a.last)
    .map(({ ref, kind, count, score }) => ({ ref, kind, count, score }));
}
