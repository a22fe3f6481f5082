/**
 * Facts of the early history, answered from a summary alone: the second quality figure of the
 * compaction bench, beside reference recall. Reference recall counts names that survive anywhere in
 * the compacted context; it cannot tell a summary that carries the work from one that carries filler
 * ("Expected — I'll use that alias in the next edits.") beside a list of names. These facts are what a
 * model continuing the session needs to know of its first half, read off the history mechanically:
 *
 * - `request`: what the user asked — the first user message (the task) and every later one the user
 *   typed (harness text such as `<task-notification>…`, `[Request interrupted…]` or an observation
 *   `<returncode>…` is not a request); its distinctive terms, half of which must be in the summary;
 * - `change`: each file the agent changed (a write/edit tool's path argument, or `sed -i` / a shell
 *   redirect into a file in a bash block of its text); its file name must be in the summary;
 * - `error`: each failed tool call (`isError`) whose error names something (an identifier, path or
 *   code); one of those names must be in the summary;
 * - `outcome`: work the agent recorded as done — a `git commit` (half the subject's distinctive terms)
 *   and a closed issue or task (`bd close`, `gh issue close`, `gh pr merge`: one of its ids).
 *
 * A fact is answered when one statement of the summary (a line, under its heading) holds its names
 * and says what happened to them (`PREDICATES`): naming a file in a list of references does not say
 * that it was changed. The early history is the first half of the prefix: every strategy that sheds
 * half of it has folded that part into its summary. Matching is case-insensitive containment.
 */
import { isModelSummary, isRequest, type Message, messageText, outputText } from '../../core/index.ts';
import {
  filePaths,
  identifiers,
  isWriteTool,
  pathArgs,
  shellWrites,
} from '../../core/summarizers/extract.ts';

export type FactKind = 'request' | 'change' | 'error' | 'outcome';
export const FACT_KINDS: readonly FactKind[] = ['request', 'change', 'error', 'outcome'];

export interface Fact {
  kind: FactKind;
  /** Index of the message it comes from. */
  at: number;
  /** The terms the summary must hold (lower case). */
  keys: string[];
  /** How many of `keys` must be found. */
  need: number;
}

/** Characters of a request its terms are taken from. */
const REQUEST_HEAD = 500;

/** Most distinctive terms kept per fact. */
const MAX_KEYS = 6;

const STOP = new Set(
  'about above after again against because before being below between could doing during further having into itself might other should their there these those through under until which while would your yours with from that this what when where will than then them they were been have does also just only very some such each more most make sure need want like using used please start first'.split(
    ' ',
  ),
);

/** Hyphenated ids with a number (`spotter-gqc.4`, `PROJ-123`) and `#123` numbers, not `time-zone`. */
const IDS =
  /(?<![\w/.-])(?:[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9-]*\d[A-Za-z0-9]*(?:\.\d+)?|[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9]+\.\d+|#\d{1,6})(?![\w/-])/g;

/** The terms of a text a paraphrase keeps: names, paths, ids, else its longer content words. */
export function distinctiveTerms(text: string, max = MAX_KEYS, words = true): string[] {
  const out: string[] = [];
  const add = (t: string) => {
    const k = t.toLowerCase();
    if (k.length >= 3 && !out.includes(k) && out.length < max) out.push(k);
  };
  for (const m of text.matchAll(IDS)) add(m[0]);
  for (const p of filePaths(text)) add(p.slice(p.lastIndexOf('/') + 1));
  for (const id of identifiers(text)) if (!/\s/.test(id)) add(id);
  if (words && out.length < 2)
    for (const w of text.toLowerCase().match(/[a-z]{6,}/g) ?? []) if (!STOP.has(w)) add(w);
  return out;
}

/** Text a harness wrote in the user's name: tag blocks, an interruption notice, an observation. */
function harnessText(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<') || t.startsWith('[Request interrupted') || t === '';
}

function requestFacts(prefix: readonly Message[], end: number): Fact[] {
  const out: Fact[] = [];
  // A text the user side sends again and again is a harness's template (a format reminder), not a request.
  const times = new Map<string, number>();
  for (const m of prefix)
    if (m.role === 'user') times.set(messageText(m), (times.get(messageText(m)) ?? 0) + 1);
  let first = true;
  for (let i = 0; i < end; i++) {
    const m = prefix[i]!;
    if (!isRequest(m) || m.meta?.isMeta === true) continue;
    const text = messageText(m);
    if (!first && (harnessText(text) || (times.get(text) ?? 0) > 1)) continue;
    first = false;
    // The head of a request states the task; what follows is often the harness's instructions.
    const keys = distinctiveTerms(text.slice(0, REQUEST_HEAD));
    if (keys.length > 0) out.push({ kind: 'request', at: i, keys, need: Math.ceil(keys.length / 2) });
  }
  return out;
}

function changeFacts(prefix: readonly Message[], end: number): Fact[] {
  const seen = new Set<string>();
  const out: Fact[] = [];
  const add = (path: string, at: number) => {
    const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
    if (name.length < 3 || seen.has(name)) return;
    seen.add(name);
    out.push({ kind: 'change', at, keys: [name], need: 1 });
  };
  for (let i = 0; i < end; i++) {
    const m = prefix[i]!;
    if (m.role !== 'assistant') continue;
    for (const p of m.parts) {
      if (p.type === 'tool-call' && isWriteTool(p.name)) for (const path of pathArgs(p.args)) add(path, i);
      if (p.type === 'text') for (const path of shellWrites(p.text)) add(path, i);
    }
  }
  return out;
}

function errorFacts(prefix: readonly Message[], end: number): Fact[] {
  const args = new Map<string, string>();
  const out: Fact[] = [];
  for (let i = 0; i < end; i++) {
    for (const p of prefix[i]!.parts) {
      if (p.type === 'tool-call') args.set(p.id, JSON.stringify(p.args).toLowerCase());
      if (p.type !== 'tool-result' || p.isError !== true) continue;
      const asked = args.get(p.callId) ?? '';
      // The error's own words: what the call's arguments did not already say.
      const keys = distinctiveTerms(outputText(p.output).slice(0, 400), MAX_KEYS, false).filter(
        (k) => !asked.includes(k),
      );
      if (keys.length > 0) out.push({ kind: 'error', at: i, keys, need: 1 });
    }
  }
  return out;
}

function outcomeFacts(prefix: readonly Message[], end: number): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < end; i++)
    for (const p of prefix[i]!.parts) {
      if (p.type !== 'tool-call') continue;
      const command =
        typeof p.args === 'object' && p.args !== null && !Array.isArray(p.args) ? p.args.command : undefined;
      if (typeof command !== 'string') continue;
      const subject = /git commit\b[^\n]*?-m\s+(?:"\$\(cat <<'?EOF'?\s*)?["']?([^\n"']+)/.exec(command)?.[1];
      if (subject && !seen.has(subject)) {
        seen.add(subject);
        const keys = distinctiveTerms(subject);
        if (keys.length > 0) out.push({ kind: 'outcome', at: i, keys, need: Math.ceil(keys.length / 2) });
      }
      const closed = /\b(?:bd close|gh issue close|gh pr merge)\s+((?:[\w.#-]+\s*)+)/.exec(command)?.[1];
      if (closed) {
        const ids = closed
          .split(/\s+/)
          .filter((x) => /\d/.test(x) && !x.startsWith('-'))
          .map((x) => x.toLowerCase());
        const fresh = ids.filter((x) => !seen.has(x));
        for (const x of fresh) seen.add(x);
        if (fresh.length > 0) out.push({ kind: 'outcome', at: i, keys: fresh, need: 1 });
      }
    }
  return out;
}

/** The facts of the first half of `prefix`, in the order of the kinds. */
export function earlyFacts(prefix: readonly Message[]): Fact[] {
  const end = Math.floor(prefix.length / 2);
  return [
    ...requestFacts(prefix, end),
    ...changeFacts(prefix, end),
    ...errorFacts(prefix, end),
    ...outcomeFacts(prefix, end),
  ];
}

/**
 * What a statement must say of its names to answer a fact: that a file changed, that something failed,
 * that work was done. A list of names under "Relevant Files" answers none; "Edit (changed): a.ts" or
 * "Modified annotation.ex (added …)" does.
 */
const PREDICATES: Record<FactKind, RegExp | undefined> = {
  request: undefined,
  change:
    /\b(?:chang|modif|edit|wr[io]te|writ|creat|add|updat|fix|renam|delet|remov|refactor|implement|migrat|new|patch|replac)/i,
  error:
    /\b(?:error|fail|exception|crash|broke|bug|fix|wrong|issue|problem|warn|reject|denied|not found|cannot|can't|unable|time[ds]? ?out|missing|invalid)/i,
  outcome: /\b(?:clos|commit|push|merg|done|complet|finish|ship|releas|resolv)/i,
};

/** A heading: a Markdown heading, a numbered or bold line, or a line ending with a colon. */
const HEADING = /^\s*(?:#{1,6}\s|\d+\.\s|\*\*[^*]+\*\*:?\s*$)|:\s*$/;

/**
 * The statements of a summary: each line with the heading it falls under (a list under "## Files
 * changed" says what its heading says).
 */
export function statements(summary: string): string[] {
  const out: string[] = [];
  let heading = '';
  for (const line of summary.toLowerCase().split('\n')) {
    if (line.trim() === '') continue;
    if (HEADING.test(line)) heading = line;
    out.push(heading === line ? line : `${heading}\n${line}`);
  }
  return out;
}

/** Whether one statement of the summary holds the fact's names (and, but for a request, its predicate). */
export function answered(fact: Fact, said: readonly string[]): boolean {
  const predicate = PREDICATES[fact.kind];
  return said.some(
    (s) => fact.keys.filter((k) => s.includes(k)).length >= fact.need && (!predicate || predicate.test(s)),
  );
}

/** The text of a compacted context's summaries (what a model wrote of the history it folded). */
export function summaryText(messages: readonly Message[]): string | undefined {
  const texts = messages.filter(isModelSummary).map(messageText);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Share of `facts` the summary answers (1 when there are none). */
export function factRecall(facts: readonly Fact[], summary: string): number {
  if (facts.length === 0) return 1;
  const said = statements(summary);
  return facts.filter((f) => answered(f, said)).length / facts.length;
}
