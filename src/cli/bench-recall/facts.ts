/**
 * Ten concrete facts of a session's early history, read off the data by one rule: the first 75
 * messages' tool outputs are searched for each kind below (its pattern); a kind whose pattern finds
 * exactly one distinct value there is a fact (its captured text, which a model continuing the session
 * might need word for word); one that finds several is ambiguous (a model asking for "the session id"
 * could not say which) and left out. Kinds are tried in the table's order and the first ten kept; the table
 * holds what a coding agent's tools print (a session id, a token count, a commit id, a created file,
 * a test result…), not anything of one file. Each kind carries the query a model that knows only
 * what it is looking for would send to `recall` (never the fact itself).
 */
import { type Message, outputText } from '../../core/index.ts';

export interface FactRule {
  kind: string;
  /** Matched against each tool output; group 1 is the fact. */
  pattern: RegExp;
  /** What a model asks `recall` for to find this kind of fact. */
  query: string;
}

export const FACT_RULES: readonly FactRule[] = [
  { kind: 'session id', pattern: /"sessionId":"([0-9a-f-]{36})"/, query: 'sessionId' },
  {
    kind: 'token count',
    pattern: /\((\d[\d,]*) tokens\) exceeds/,
    query: 'file content tokens exceeds maximum',
  },
  { kind: 'commit id', pattern: /^\[[^\]\s]+ ([0-9a-f]{7,40})\]/m, query: 'git commit files changed' },
  {
    kind: 'created file',
    pattern: /File created successfully at: \S*?([^/\s]+)(?=\s|$)/,
    query: 'File created successfully',
  },
  { kind: 'test result', pattern: /(\d+ tests?, \d+ failures?)/, query: 'test run tests failures' },
  {
    kind: 'background task',
    pattern: /running in background with ID: (\w+)/,
    query: 'command running in background ID',
  },
  { kind: 'issue owner', pattern: /Owner: ([^\n·]+?) ·/, query: 'issue Owner' },
  {
    kind: 'diff stat',
    pattern: /(\d+ files? changed, \d+ insertions?\(\+\), \d+ deletions?\(-\))/,
    query: 'files changed insertions deletions',
  },
  { kind: 'lint checks', pattern: /(\d+ checks on \d+ files?)/, query: 'credo analysis checks' },
  {
    kind: 'match count',
    pattern: /(Found \d+ total occurrences across \d+ files)/,
    query: 'grep total occurrences across files',
  },
  { kind: 'tool version', pattern: /"version":"(\d+\.\d+\.\d+)"/, query: 'Claude Code version' },
  { kind: 'git branch', pattern: /On branch ([\w./-]+)/, query: 'git status On branch' },
  { kind: 'lint result', pattern: /(\d+ mods\/funs, found [^.\n]+)/, query: 'credo mods/funs found issues' },
  {
    kind: 'work queue',
    pattern: /(\d+ issues with no blockers)/,
    query: 'ready work issues with no blockers',
  },
];

/** The early history the facts come from. */
export const EARLY_MESSAGES = 75;
export const FACT_COUNT = 10;

export interface Fact {
  kind: string;
  value: string;
  query: string;
  /** Index of the message it was found in. */
  at: number;
}

function toolOutputs(m: Message): string {
  return m.parts
    .map((p) => (p.type === 'tool-result' ? outputText(p.output) : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** The facts of `messages`' first 75 messages by the rule above (fewer when fewer kinds are found). */
export function earlyFacts(messages: readonly Message[], count = FACT_COUNT): Fact[] {
  const early = messages.slice(0, EARLY_MESSAGES).map(toolOutputs);
  const out: Fact[] = [];
  for (const rule of FACT_RULES) {
    if (out.length === count) break;
    const all = new RegExp(rule.pattern.source, `${rule.pattern.flags.replace('g', '')}g`);
    const values = new Map<string, number>();
    for (const [at, text] of early.entries())
      for (const m of text.matchAll(all)) {
        const value = m[1]?.trim();
        if (value && !values.has(value)) values.set(value, at);
      }
    if (values.size !== 1) continue;
    const [value, at] = [...values][0]!;
    out.push({ kind: rule.kind, value, query: rule.query, at });
  }
  return out;
}

/** Whether `text` holds the fact (its exact words). */
export function holdsFact(text: string, fact: Fact): boolean {
  return text.includes(fact.value);
}
