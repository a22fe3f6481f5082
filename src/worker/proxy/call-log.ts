/**
 * What each call of a session did — the proxy's calls (appended messages, stage reports, the journal,
 * the upstream's status and usage, overflow recovery) and the `prepare`, `compact` and `overflow`
 * routes' runs — kept in the session object's storage for the last `MAX_CALLS` calls, with the
 * messages each call started from and sent as log seqs (`MessageRefs`, bounded) and the texts no log
 * row holds by digest (`call-texts.ts`), and read back through `GET /v1/proxy/sessions/:session/calls/
 * :call` and the context view; the timeline keeps the summaries of the last `MAX_SUMMARIES`.
 * Nothing of the request's credentials is ever part of a record.
 */
import {
  type JournalEntry,
  type Message,
  type RunEstimate,
  type SessionState,
  type StageReport,
  type StoredMessage,
  sameMessage,
  type Usage,
} from '../../core/index.ts';
import type { TimelineCall } from '../../view/render-session.ts';
import { type CallTexts, createTextStore, digestsOf } from './call-texts.ts';
import type { ProviderId } from './protocol.ts';
import type { RoundUsage } from './round-usage.ts';

/** Calls per session kept with their details (journal, lists, texts). @default 100 */
export const MAX_CALLS = 100;

/** Calls per session kept in the timeline (their summaries; the oldest beyond `MAX_CALLS` without details). @default 1000 */
export const MAX_SUMMARIES = 1000;

/** Entries kept per list of `MessageRefs` (a run of unchanged log rows is one entry). */
export const MAX_REFS = 2000;

/**
 * Bytes (as JSON) of the journal entries one record keeps, its overflow retry's included: a compaction
 * journals every message it folds (~260 bytes each), and a record must fit one Durable Object value
 * (2 MB; past it the write fails with SQLITE_TOOBIG). @default 512 KiB, some 2,000 entries
 */
export const MAX_JOURNAL_BYTES = 512 * 1024;

/**
 * One message of a call's list: `[a, b]` the log rows a..b as the log holds them; `{ seq }` log row
 * `seq` rewritten (truncated, repaired…; same id, other content); `{ id }` a message ctxkit made
 * (a summary, a digest) that is in no log row.
 */
export type MessageRef = [number, number] | { seq: number } | { id: string };

/** What a call started from and what it sent, message by message, in order. */
export interface MessageRefs {
  /** The proxy: the client's history (log rows). The routes: the working context the run started from. */
  input: MessageRef[];
  /** What went out (upstream, or back to the caller of `prepare`/`compact`). */
  output: MessageRef[];
  /** A list was longer than `MAX_REFS` entries and was cut there. */
  cut?: true;
}

/** What kind of call a record is (absent in records written before the routes were recorded: `proxy`). */
export type CallKind = 'proxy' | 'prepare' | 'compact' | 'overflow';

/** Appends seq `seq` (unchanged) to `refs`, extending the last range when it is contiguous. */
function pushSeq(refs: MessageRef[], seq: number): void {
  const last = refs[refs.length - 1];
  if (Array.isArray(last) && last[1] === seq - 1) last[1] = seq;
  else refs.push([seq, seq]);
}

/** Log seqs as refs (contiguous runs as ranges). */
export function seqRefs(seqs: Iterable<number>): MessageRef[] {
  const refs: MessageRef[] = [];
  for (const seq of seqs) pushSeq(refs, seq);
  return refs;
}

/** Messages as refs against the log rows they may come from (by id; unchanged or rewritten). */
export function messageRefs(messages: readonly Message[], rows: readonly StoredMessage[]): MessageRef[] {
  const byId = new Map<string, StoredMessage>();
  for (const r of rows) byId.set(r.message.id, r);
  const refs: MessageRef[] = [];
  for (const m of messages) {
    const row = byId.get(m.id);
    if (!row) refs.push({ id: m.id });
    else if (sameMessage(row.message, m)) pushSeq(refs, row.seq);
    else refs.push({ seq: row.seq });
  }
  return refs;
}

/** The two lists, each cut at `MAX_REFS` entries (and `cut` set) so a record stays bounded. */
export function boundedRefs(input: MessageRef[], output: MessageRef[], max = MAX_REFS): MessageRefs {
  const cut = input.length > max || output.length > max;
  return { input: input.slice(0, max), output: output.slice(0, max), ...(cut ? { cut: true as const } : {}) };
}

/** One message of an expanded list: a log row (as logged, or rewritten) or a message ctxkit made. */
export type RefItem = { seq: number; changed: boolean } | { id: string };

/** A list message by message (each range expanded). */
export function expandRefs(refs: readonly MessageRef[]): RefItem[] {
  const out: RefItem[] = [];
  for (const r of refs) {
    if (Array.isArray(r)) for (let seq = r[0]; seq <= r[1]; seq++) out.push({ seq, changed: false });
    else if ('seq' in r) out.push({ seq: r.seq, changed: true });
    else out.push({ id: r.id });
  }
  return out;
}

/** The memory block a call added to the system prompt, as the answer and the call record show it. */
export interface AddedMemory {
  tokens: number;
  memoryIds: string[];
  recall: number;
}

/** `block` as what was added (`null` when it holds nothing). */
export function addedMemory(block: SessionState['memoryBlock'] | undefined): AddedMemory | null {
  if (!block || block.text.trim() === '') return null;
  return { tokens: block.tokens, memoryIds: [...block.memoryIds], recall: block.recallCount };
}

export interface CallRecord extends CallTexts {
  /** Absent: `proxy`. */
  kind?: CallKind;
  id: string;
  /** Ms since epoch. */
  at: number;
  /** The proxy's provider; for a route's run, the dialect it answered in (`neutral`, `anthropic`…). */
  provider: ProviderId | (string & {});
  /** The proxy's model; `''` for a route's run. */
  model: string;
  stream: boolean;
  /** Messages of the client's history that were new to the log. */
  appended: number;
  /** The client's history left the log's path (an edited or regenerated turn). */
  diverged: boolean;
  estimate: RunEstimate;
  reports: StageReport[];
  journal: JournalEntry[];
  overflow?: {
    error: string;
    retry: boolean;
    /** The window the provider's error stated, when the session adopted it. */
    window?: number | undefined;
    estimate: RunEstimate;
    journal: JournalEntry[];
    /** What the retry sent (absent in older records). */
    output?: MessageRef[];
  };
  /**
   * `toolRounds`: rounds of recall-tool calls the proxy answered before the final answer (tool-loop.ts);
   * `rounds`: each such round's usage (one more than `toolRounds` when the loop was cut); `usage`: what
   * every upstream call of this call reported, rounds and final answer summed (round-usage.ts).
   */
  upstream?: { status: number; usage?: Usage; logged: boolean; toolRounds?: number; rounds?: RoundUsage[] };
  /** The messages the call started from and sent (absent in records written before they were kept). */
  messages?: MessageRefs;
  /** What ctxkit added to the client's system prompt (absent: nothing, or a record older than it). */
  added?: { memory: AddedMemory };
  /**
   * Journal entries left out of `journal` and `overflow.journal` (the last ones) to keep the record
   * within `MAX_JOURNAL_BYTES`, and their actions counted; the run's own answer had them all. Absent:
   * none left out.
   */
  journalCut?: { entries: number; changes: Record<string, number> };
}

/** `record` with its journals cut (the first entries kept) to `maxBytes` of JSON together. */
export function boundedJournal(record: CallRecord, maxBytes = MAX_JOURNAL_BYTES): CallRecord {
  let room = maxBytes;
  const cut = { entries: record.journalCut?.entries ?? 0, changes: { ...record.journalCut?.changes } };
  let cutting = false;
  const keep = (entries: JournalEntry[]) => {
    const kept: JournalEntry[] = [];
    for (const e of entries) {
      const size = JSON.stringify(e).length + 1;
      cutting ||= size > room;
      if (!cutting) {
        kept.push(e);
        room -= size;
        continue;
      }
      cut.entries++;
      cut.changes[e.action] = (cut.changes[e.action] ?? 0) + 1;
    }
    return kept;
  };
  const journal = keep(record.journal);
  const overflow = record.overflow && { ...record.overflow, journal: keep(record.overflow.journal) };
  if (!cutting) return record;
  return { ...record, journal, ...(overflow ? { overflow } : {}), journalCut: cut };
}

/** The part of Durable Object storage the log uses. */
export interface CallStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

const INDEX = 'proxy:calls';
const callKey = (id: string) => `proxy:call:${id}`;
/** A record's summary for the timeline, kept beside it so the timeline never reads the journals. */
const summaryKey = (id: string) => `proxy:summary:${id}`;

/** A record as the timeline shows it: without the journal, its actions counted. */
export function summarize(r: CallRecord): TimelineCall {
  // The entries a bounded record left out count too (`boundedJournal`).
  const changes: Record<string, number> = { ...r.journalCut?.changes };
  for (const j of [...r.journal, ...(r.overflow?.journal ?? [])])
    changes[j.action] = (changes[j.action] ?? 0) + 1;
  return {
    kind: r.kind ?? 'proxy',
    id: r.id,
    at: r.at,
    provider: r.provider,
    model: r.model,
    stream: r.stream,
    appended: r.appended,
    diverged: r.diverged,
    estimate: r.estimate,
    reports: r.reports,
    changes,
    compacted: r.journal.some((j) => j.action === 'summarized') || r.reports.some(isCompaction),
    overflow: r.overflow !== undefined,
    ...(r.upstream ? { upstream: r.upstream } : {}),
  };
}

function isCompaction(s: StageReport): boolean {
  return s.status === 'applied' && /compact|summar/i.test(s.stage);
}

/** One page of the timeline, newest first, with how many calls there were and how many are kept. */
export interface TimelinePage {
  /** The page's calls, oldest first. */
  calls: TimelineCall[];
  /** Calls this session recorded since its first (kept or not). */
  total: number;
  /** Calls the timeline holds (`MAX_SUMMARIES` at most). */
  kept: number;
  /** Calls whose details (journal, lists, texts) are kept: the newest `MAX_CALLS`. */
  detailed: number;
  /** Newest-first position of the page's first call. */
  offset: number;
}

export interface CallLog {
  /** Keeps a record (with the texts it names by digest, `call-texts.ts`). */
  put(record: CallRecord, texts?: ReadonlyMap<string, string>): Promise<void>;
  update(id: string, patch: Partial<CallRecord>): Promise<void>;
  get(id: string): Promise<CallRecord | undefined>;
  /** The record kept before `id` (the previous call), if its details are kept. */
  previous(id: string): Promise<CallRecord | undefined>;
  /** A text a record names by digest. */
  text(digest: string): Promise<string | undefined>;
  /** The kept records, oldest first. */
  list(): Promise<CallRecord[]>;
  /** The kept records' summaries, oldest first (no journal is read, but a record's older than them). */
  summaries(): Promise<TimelineCall[]>;
  /** `limit` summaries from the `offset`-th newest, for a page of the timeline. */
  page(offset: number, limit: number): Promise<TimelinePage>;
}

const ABANDONED = 'proxy:abandoned';

/** The proxy's state in a session object's storage: the call log and the seq ranges taken back. */
export function createProxyStorage(storage: CallStorage) {
  // The ranges are read once; this object is their only writer.
  let ranges: Array<[number, number]> | undefined;
  const abandoned = async () => {
    ranges ??= (await storage.get<Array<[number, number]>>(ABANDONED)) ?? [];
    return ranges;
  };
  return {
    calls: createCallLog(storage),
    abandoned,
    async abandon(fromSeq: number, toSeq: number) {
      const next: Array<[number, number]> = [...(await abandoned()), [fromSeq, toSeq]];
      await storage.put(ABANDONED, next);
      ranges = next;
    },
  };
}

const COUNT = 'proxy:count';

export function createCallLog(storage: CallStorage, max = MAX_CALLS, maxSummaries = MAX_SUMMARIES): CallLog {
  const texts = createTextStore(storage);
  const save = async (whole: CallRecord) => {
    const record = boundedJournal(whole);
    await storage.put(callKey(record.id), record);
    await storage.put(summaryKey(record.id), summarize(record));
  };
  const index = async () => (await storage.get<string[]>(INDEX)) ?? [];
  const summaryOf = async (id: string) => {
    const kept = await storage.get<TimelineCall>(summaryKey(id));
    if (kept) return kept;
    // A record written before summaries were kept.
    const record = await storage.get<CallRecord>(callKey(id));
    return record && summarize(record);
  };
  return {
    async put(record, batch) {
      const ids = await index();
      const next = [...ids.filter((id) => id !== record.id), record.id];
      const dropped = next.splice(0, Math.max(0, next.length - maxSummaries));
      // The calls that leave the details window keep their summary; their texts are counted off.
      const undetailed = next.slice(Math.max(0, next.length - max - 1), Math.max(0, next.length - max));
      await texts.add(digestsOf(record), batch ?? new Map());
      await save(record);
      await storage.put(INDEX, next);
      await storage.put(
        COUNT,
        ((await storage.get<number>(COUNT)) ?? ids.length) + (ids.includes(record.id) ? 0 : 1),
      );
      for (const id of [...dropped, ...undetailed]) {
        const old = await storage.get<CallRecord>(callKey(id));
        if (old) {
          await texts.release(digestsOf(old));
          // A record from before summaries were kept leaves one behind while it stays in the timeline.
          if (!dropped.includes(id) && !(await storage.get(summaryKey(id))))
            await storage.put(summaryKey(id), summarize(old));
        }
      }
      const gone = [...dropped.map(callKey), ...dropped.map(summaryKey), ...undetailed.map(callKey)];
      for (let i = 0; i < gone.length; i += 128) await storage.delete(gone.slice(i, i + 128));
    },
    async update(id, patch) {
      const record = await storage.get<CallRecord>(callKey(id));
      if (record) await save({ ...record, ...patch });
    },
    get: (id) => storage.get<CallRecord>(callKey(id)),
    async previous(id) {
      const ids = await index();
      const at = ids.indexOf(id);
      return at > 0 ? storage.get<CallRecord>(callKey(ids[at - 1]!)) : undefined;
    },
    text: (digest) => texts.get(digest),
    async list() {
      const records = await Promise.all((await index()).map((id) => storage.get<CallRecord>(callKey(id))));
      return records.filter((r): r is CallRecord => r !== undefined);
    },
    async summaries() {
      const all = await Promise.all((await index()).map(summaryOf));
      return all.filter((s): s is TimelineCall => s !== undefined);
    },
    async page(offset, limit) {
      const ids = await index();
      const end = Math.max(0, ids.length - offset);
      const slice = ids.slice(Math.max(0, end - limit), end);
      const calls = (await Promise.all(slice.map(summaryOf))).filter(
        (s): s is TimelineCall => s !== undefined,
      );
      const total = Math.max(ids.length, (await storage.get<number>(COUNT)) ?? 0);
      return { calls, total, kept: ids.length, detailed: Math.min(ids.length, max), offset };
    },
  };
}
