/**
 * The facts behind a call's page, before any HTML: each message of the call's lists with its state
 * (sent as logged, sent as an earlier call rewrote it, made by this call, changed by this call, not sent,
 * left out by an earlier call), what this call changed (grouped: 210 messages folded into one summary are
 * one line), and what it sends that the previous call did not and the reverse.
 */
import type { JournalEntry } from '../core/pipeline/types.ts';
import type { CallAdditions } from './render-added.ts';
import type { TimelineCall } from './render-session.ts';

export interface CallLogRow {
  seq: number;
  id: string;
  role: string;
  characters: number;
  preview: string;
  compacted: boolean;
  /** The log holds it cut by output truncation on arrival (not as the client sent it). */
  arrival?: boolean;
  /** Its tokens, counted as the session counts (absent in older callers). */
  tokens?: number;
  /** Its full text (bounded), when the page shows it. */
  text?: string;
}

/** One message of a call's list: a log row (as logged, or rewritten) or a message ctxkit made. */
export type CallMessage = { seq: number; changed: boolean } | { id: string };

/** A text of the prompt no log row holds (the system prompt, an injected block, a tool schema). */
export interface PromptText {
  tokens: number;
  chars: number;
  text?: string;
}

/** A message ctxkit made and sent (a summary, a digest, the standing instructions). */
export interface MadeMessage extends PromptText {
  id: string;
  role: string;
  kind?: string;
}

/** A transcript file as the keeper of the originals (`inspect --html`): links go to its rows on the page. */
export interface FileSource {
  name: string;
  /** The page anchor of a message's row in the transcript's view, by id. */
  anchor(messageId: string): string | undefined;
  /** A message's position in the file (0-based), by id. */
  position(messageId: string): number | undefined;
}

/** Who keeps the originals: the service's session (links to its routes) or a file (links on the page). */
export interface CallSource {
  sessionId: string;
  file?: FileSource;
}

export interface CallPageInput extends CallSource {
  call: TimelineCall;
  journal: readonly JournalEntry[];
  /** The log rows the lists name (or, for a record without lists, the log as the call saw it). */
  rows: readonly CallLogRow[];
  /** Ids of every message of the session log (default: those of `rows`). */
  logIds?: ReadonlySet<string>;
  /** What the call started from and what went out; absent in records older than the lists. */
  messages?: {
    input: readonly CallMessage[];
    output: readonly CallMessage[];
    /** A list was cut at its bound. */
    cut?: boolean;
    /** `output` is what the retry after an overflow recovery sent. */
    retried?: boolean;
  };
  /** The prompt's parts no log row holds (absent in records older than them). */
  prompt?: {
    system?: PromptText;
    injected?: PromptText;
    tools?: ReadonlyArray<PromptText & { name: string }>;
  };
  made?: readonly MadeMessage[];
  /** What ctxkit added to the system prompt (the memory block), with its tokens and memories. */
  added?: CallAdditions;
  /** The call before this one, with what it sent, for the difference. */
  previous?: { id: string; kind: string; at: number; output?: readonly CallMessage[] };
}

export type EntryState =
  /** Went out as the log holds it. */
  | 'sent'
  /** Went out as an earlier call rewrote it (cut, placeholder…). */
  | 'rewritten-earlier'
  /** Made by this call and sent (a summary, a digest). */
  | 'inserted'
  /** Made by an earlier call; the context this call started from held it. */
  | 'made-earlier'
  /** This call changed it (its journal entries say how). */
  | 'changed'
  /** In what this call started from, not sent. */
  | 'unsent'
  /** The client sent it, but an earlier call had left it out of the context this call started from. */
  | 'left-out'
  /** No longer in the session log (cleared). */
  | 'missing';

export interface Entry {
  /** `s:<seq>` for a log row, `i:<id>` for a message ctxkit made. */
  key: string;
  seq?: number;
  id: string;
  role: string;
  state: EntryState;
  sent: boolean;
  tokens?: number;
  chars?: number;
  preview: string;
  text?: string;
  journal: JournalEntry[];
  row?: CallLogRow;
}

const keyOf = (m: CallMessage) => ('seq' in m ? `s:${m.seq}` : `i:${m.id}`);

/** The journal by message id. */
export function journalByMessage(journal: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  const out = new Map<string, JournalEntry[]>();
  for (const j of journal) out.set(j.messageId, [...(out.get(j.messageId) ?? []), j]);
  return out;
}

/** Every message of the call's lists in order: the input's, with the made ones before the next shared one. */
export function callEntries(p: CallPageInput): Entry[] {
  const lists = p.messages;
  const byMessage = journalByMessage(p.journal);
  const made = new Map((p.made ?? []).map((m) => [m.id, m]));
  const madeEntry = (id: string, state: EntryState, sent: boolean): Entry => {
    const m = made.get(id);
    const e: Entry = {
      key: `i:${id}`,
      id,
      role: m?.role ?? '',
      state,
      sent,
      preview: m?.text ? m.text.replace(/\s+/g, ' ').trim().slice(0, 120) : '',
      journal: byMessage.get(id) ?? [],
    };
    if (m)
      Object.assign(e, { tokens: m.tokens, chars: m.chars }, m.text !== undefined ? { text: m.text } : {});
    return e;
  };
  if (!lists) {
    // A record without lists: the log as the call saw it.
    return p.rows.map((row) => ({
      key: `s:${row.seq}`,
      seq: row.seq,
      id: row.id,
      role: row.role,
      state: (byMessage.get(row.id)?.length ?? 0) > 0 ? 'changed' : 'sent',
      sent: true,
      preview: row.preview,
      journal: byMessage.get(row.id) ?? [],
      row,
      ...rowSize(row),
    }));
  }
  const bySeq = new Map(p.rows.map((r) => [r.seq, r]));
  const sent = new Map<string, CallMessage>();
  for (const m of lists.output) sent.set(keyOf(m), m);
  const inInput = new Set(lists.input.map(keyOf));
  const before = new Map<string, string[]>();
  let pending: string[] = [];
  for (const m of lists.output) {
    if (inInput.has(keyOf(m))) {
      if (pending.length > 0) before.set(keyOf(m), pending);
      pending = [];
    } else if ('id' in m) pending.push(m.id);
  }
  const route = p.call.kind !== 'proxy';
  const out: Entry[] = [];
  for (const m of lists.input) {
    const k = keyOf(m);
    for (const id of before.get(k) ?? []) out.push(madeEntry(id, 'inserted', true));
    const went = sent.get(k);
    if ('id' in m) {
      const e = madeEntry(m.id, 'made-earlier', went !== undefined);
      if (e.journal.length > 0) e.state = 'changed';
      else if (!went) e.state = 'unsent';
      out.push(e);
      continue;
    }
    const row = bySeq.get(m.seq);
    if (!row) {
      out.push({
        key: k,
        seq: m.seq,
        id: '',
        role: '',
        state: 'missing',
        sent: false,
        preview: '',
        journal: [],
      });
      continue;
    }
    const journal = byMessage.get(row.id) ?? [];
    const state: EntryState =
      journal.length > 0
        ? 'changed'
        : went && !('seq' in went && went.changed)
          ? 'sent'
          : went
            ? 'rewritten-earlier'
            : m.changed || route
              ? 'unsent'
              : 'left-out';
    out.push({
      key: k,
      seq: row.seq,
      id: row.id,
      role: row.role,
      state,
      sent: went !== undefined,
      preview: row.preview,
      journal,
      row,
      ...rowSize(row),
    });
  }
  for (const id of pending) out.push(madeEntry(id, 'inserted', true));
  return out;
}

function rowSize(row: CallLogRow): Pick<Entry, 'tokens' | 'chars' | 'text'> {
  return {
    ...(row.tokens !== undefined ? { tokens: row.tokens } : {}),
    chars: row.characters,
    ...(row.text !== undefined ? { text: row.text } : {}),
  };
}

/** Log seqs as ranges: `1–210, 215, 230–232`. */
export function seqRanges(seqs: readonly number[]): string {
  const sorted = [...seqs].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** What this call did to a run of messages, as one line of its changes (a group shares it). */
export interface ChangeGroup {
  /** `inserted`, or the journal's actions and stages (`summarized by compaction`). */
  what: string;
  entries: Entry[];
  tokensBefore: number;
  tokensAfter: number;
}

/** What finally became of a message in this call: its last journal entry (a cut, then folded: folded). */
function signature(e: Entry): string {
  if (e.state === 'inserted' && e.journal.length === 0) return 'inserted';
  const last = e.journal.at(-1)!;
  return `${last.action} by ${last.stage}`;
}

/**
 * This call's changes: the messages it inserted first (each a text to read), then the rest in order,
 * consecutive messages that ended the same way as one group (a compaction that folded 210 messages is
 * one line, its members listed under it). Journal entries of messages outside the lists come last.
 */
export function changeGroups(entries: readonly Entry[], journal: readonly JournalEntry[]): ChangeGroup[] {
  const inserted: ChangeGroup[] = [];
  const groups: ChangeGroup[] = [];
  const shown = new Set(
    entries.filter((e) => e.state === 'inserted' || e.journal.length > 0).map((e) => e.id),
  );
  // Journal entries of messages outside the lists (a digest inserted, then folded, in the same run).
  const extra = new Map<string, JournalEntry[]>();
  for (const j of journal)
    if (!shown.has(j.messageId)) extra.set(j.messageId, [...(extra.get(j.messageId) ?? []), j]);
  const outside = [...extra].map(
    ([id, js]): Entry => ({
      key: `j:${id}`,
      id,
      role: '',
      state: 'changed',
      sent: false,
      preview: '',
      journal: js,
    }),
  );
  for (const e of [...entries, ...outside]) {
    if (e.state !== 'inserted' && e.journal.length === 0) continue;
    const what = signature(e);
    const made = e.state === 'inserted' && e.journal.length === 0;
    if (made || (e.sent && e.journal.some((j) => j.action === 'inserted'))) {
      const before = e.journal.reduce((n, j) => n + j.tokensBefore, 0);
      const after = made ? (e.tokens ?? 0) : e.journal.reduce((n, j) => n + j.tokensAfter, 0);
      inserted.push({
        what: made ? 'inserted' : what,
        entries: [e],
        tokensBefore: before,
        tokensAfter: after,
      });
      continue;
    }
    // A message's own tokens go once into a group's "before" (its entries may each count them).
    const own = e.tokens ?? Math.max(0, ...e.journal.map((j) => j.tokensBefore));
    const end = e.journal.at(-1)!.tokensAfter;
    const last = groups.at(-1);
    if (last && last.what === what) {
      last.entries.push(e);
      last.tokensBefore += own;
      last.tokensAfter += end;
    } else groups.push({ what, entries: [e], tokensBefore: own, tokensAfter: end });
  }
  return [...inserted, ...groups];
}

/** What this call sends that the previous one did not, and the reverse. */
export interface CallDiff {
  added: Entry[];
  /** Sent by the previous call, not by this one (by key; a log seq or a made id). */
  gone: Array<{ key: string; seq?: number; id?: string }>;
  /** Sent by both, but rewritten in one and not the other. */
  rewritten: Array<{ seq: number; now: boolean }>;
}

export function diffAgainst(
  entries: readonly Entry[],
  output: readonly CallMessage[],
  previous: readonly CallMessage[],
): CallDiff {
  const before = new Map(previous.map((m) => [keyOf(m), m]));
  const now = new Map(output.map((m) => [keyOf(m), m]));
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const added = output
    .filter((m) => !before.has(keyOf(m)))
    .map(
      (m) =>
        byKey.get(keyOf(m)) ?? {
          key: keyOf(m),
          id: 'id' in m ? m.id : '',
          role: '',
          state: 'sent' as const,
          sent: true,
          preview: '',
          journal: [],
          ...('seq' in m ? { seq: m.seq } : {}),
        },
    );
  const gone = previous
    .filter((m) => !now.has(keyOf(m)))
    .map((m) => ('seq' in m ? { key: keyOf(m), seq: m.seq } : { key: keyOf(m), id: m.id }));
  const rewritten: CallDiff['rewritten'] = [];
  for (const m of output) {
    const p = before.get(keyOf(m));
    if (p && 'seq' in m && 'seq' in p && p.changed !== m.changed)
      rewritten.push({ seq: m.seq, now: m.changed });
  }
  return { added, gone, rewritten };
}
