/**
 * The recall archive port: what left a session's context, kept whole under the ref its stub or summary
 * carries. The pipeline writes to it after each run (`archiveRun`); the recall tools read it. The core
 * ships an in-memory archive; the service implements the same port over D1/R2, and may rank its own
 * candidates with `rankArchived` so both answer a query alike.
 */

import type { Message } from '../messages/types.ts';
import type { JournalAction } from '../pipeline/types.ts';
import { stemmedTokens } from '../store/bm25.ts';

/** One message that left the context (removed, replaced by a stub, cut, archived, summarised, spilled). */
export interface ArchivedMessage {
  /** The message's own ref (`contentRef`): `reread(ref)` returns it alone. */
  ref: string;
  /** The ref of the summary that folded it (`spanRef`), when one did: `reread(span)` returns them all. */
  span?: string;
  /** Its position in the history the run received: a span is returned in this order. */
  seq: number;
  messageId: string;
  role: Message['role'];
  /** What happened to it, and the stage that did it. */
  action: JournalAction;
  stage: string;
  /** When it left the context (ms since epoch): recall answers newest first. */
  at: number;
  /** The whole original as text (`renderMessage`), never compressed. */
  text: string;
  /** Where else it is kept (`blob:<id>` for a spilled output), when somewhere. */
  location?: string;
}

export interface RecallArchive {
  /** Stores messages; one already held under the same ref (and span) is kept as it is. */
  put(items: readonly ArchivedMessage[]): Promise<void>;
  /** The message of a message ref, or the messages of a span ref in span order; `[]` when unknown. */
  get(ref: string): Promise<ArchivedMessage[]>;
  /** Messages matching the query (see `rankArchived`), best first, at most `limit`. */
  search(query: string, options: { limit: number }): Promise<ArchivedMessage[]>;
}

/** An archived message's words (stemmed) and lower-cased text, read once per item object. */
const read = new WeakMap<ArchivedMessage, { lower: string; words: Set<string> }>();
function wordsOf(item: ArchivedMessage): { lower: string; words: Set<string> } {
  let r = read.get(item);
  if (r === undefined) {
    r = { lower: item.text.toLowerCase(), words: new Set(stemmedTokens(item.text)) };
    read.set(item, r);
  }
  return r;
}

/**
 * Ranks archived messages for a query: the share of the query's terms (stemmed, as the memory
 * search does) each one holds, then the newest first; messages holding none are left out. A term
 * that is an identifier (a commit id, a file name) also matches as a substring of the raw text.
 */
export function rankArchived(
  items: readonly ArchivedMessage[],
  query: string,
  limit: number,
): ArchivedMessage[] {
  const terms = [...new Set(stemmedTokens(query))];
  // Whole words or ids only: `fact-3` does not match `fact-36`.
  const raw = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_./:-]{3,}/gu) ?? [])].map(
    (r) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u'),
  );
  if (terms.length === 0 && raw.length === 0) return [];
  const scored: { item: ArchivedMessage; score: number }[] = [];
  for (const item of items) {
    const { lower, words } = wordsOf(item);
    let hit = 0;
    for (const t of terms) if (words.has(t)) hit++;
    let exact = 0;
    for (const r of raw) if (r.test(lower)) exact++;
    const score = (terms.length ? hit / terms.length : 0) + (raw.length ? exact / raw.length : 0);
    if (score > 0) scored.push({ item, score });
  }
  scored.sort((a, b) => b.score - a.score || b.item.at - a.item.at || b.item.seq - a.item.seq);
  // One hit per message: a message archived twice (cut by one stage, then archived by another) is
  // shown by its best-scoring, then fullest, version.
  const best = new Map<string, { item: ArchivedMessage; score: number }>();
  for (const s of scored) {
    const had = best.get(s.item.messageId);
    if (!had || (had.score === s.score && s.item.text.length > had.item.text.length))
      best.set(s.item.messageId, s);
  }
  return scored
    .filter((s) => best.get(s.item.messageId) === s)
    .slice(0, limit)
    .map((s) => s.item);
}

/** An archive in memory (tests, a single process, the CLI). */
export function createMemoryRecallArchive(): RecallArchive & { size(): number } {
  const byRef = new Map<string, ArchivedMessage>();
  const spans = new Map<string, ArchivedMessage[]>();
  const all: ArchivedMessage[] = [];
  return {
    async put(items) {
      for (const item of items) {
        if (!byRef.has(item.ref)) {
          byRef.set(item.ref, item);
          all.push(item);
        }
        if (item.span === undefined) continue;
        const list = spans.get(item.span) ?? [];
        if (list.some((m) => m.ref === item.ref)) continue;
        list.push(item);
        list.sort((a, b) => a.seq - b.seq);
        spans.set(item.span, list);
      }
    },
    async get(ref) {
      const one = byRef.get(ref);
      if (one) return [one];
      return spans.get(ref)?.slice() ?? [];
    },
    async search(query, { limit }) {
      return rankArchived(all, query, limit);
    },
    size: () => all.length,
  };
}
