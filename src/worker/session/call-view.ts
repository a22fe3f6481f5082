/**
 * What a call's page draws (`/v1/ui/sessions/:session/calls/:call`), gathered in the session object:
 * the call's record, the log rows its lists name with their tokens (the session's own counter) and full
 * texts, the texts its record names by digest (system prompt, injected block, tool schemas, the messages
 * ctxkit made), and what the previous call sent, for the difference. Only the rows the call names are
 * read, and the log's ids, never the whole log (a record older than the lists: the log's first page).
 */
import type { StoredMessage } from '../../core/index.ts';
import type { SessionReads } from '../../db/sql/sql-session-reads.ts';
import type {
  CallLogRow,
  CallMessage,
  CallPageInput,
  MadeMessage,
  PromptText,
} from '../../view/call-model.ts';
import { flatPreview, messageContent, rowText } from '../../view/context-model.ts';
import { type CallLog, type CallRecord, expandRefs, summarize } from '../proxy/call-log.ts';
import type { TextRef } from '../proxy/call-texts.ts';
import { LOG_PAGE_BYTES } from '../service-bounds.ts';
import type { SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

/** Rows a call recorded before its lists were kept may show (the start of the log). */
export const LEGACY_CALL_ROWS = 2000;

/** The reads of the session log a call page makes. */
export type CallViewLog = Pick<SessionReads, 'rowsIn' | 'page' | 'messageIds'>;

/** Sorted seqs as inclusive ranges of consecutive ones. */
export function seqRanges(seqs: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const seq of seqs.sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && last[1] === seq - 1) last[1] = seq;
    else out.push([seq, seq]);
  }
  return out;
}

/** The call page's data: everything `renderCallPage` takes but the session id. */
export type CallView = Omit<CallPageInput, 'sessionId' | 'logIds'> & { logIds: string[] };

/** The lists of a record, expanded (the retry's output when the call was retried after an overflow). */
function listsOf(
  record: CallRecord,
): { input: CallMessage[]; output: CallMessage[]; retried: boolean } | undefined {
  const lists = record.messages;
  if (!lists) return undefined;
  const retried = record.overflow?.retry === true && record.overflow.output !== undefined;
  return {
    input: expandRefs(lists.input),
    output: expandRefs(retried ? record.overflow!.output! : lists.output),
    retried,
  };
}

/** The log rows a record's page shows: those its lists name, or for an older record the log as it found it. */
async function rowsOf(
  log: CallViewLog,
  key: SessionKey,
  record: CallRecord,
  lists: ReturnType<typeof listsOf>,
): Promise<StoredMessage[]> {
  if (lists) {
    const named = new Set<number>();
    for (const m of [...lists.input, ...lists.output]) if ('seq' in m) named.add(m.seq);
    return log.rowsIn(key.tenant, key.session, seqRanges([...named]));
  }
  // A record older than the lists: the log as the call found it, then the rows it appended (from the
  // log's first page, bounded in rows and bytes).
  const first = await log.page(key.tenant, key.session, {
    limit: LEGACY_CALL_ROWS,
    maxBytes: LOG_PAGE_BYTES,
  });
  const k = first.rows.findIndex((r) => r.createdAt >= record.at);
  return first.rows.slice(0, (k < 0 ? first.rows.length : k) + record.appended);
}

export async function callView(
  deps: SessionDeps,
  log: CallViewLog,
  key: SessionKey,
  calls: CallLog,
  id: string,
): Promise<CallView | undefined> {
  const record = await calls.get(id);
  if (!record) return undefined;
  const lists = listsOf(record);
  const [rows, logIds, previous] = await Promise.all([
    rowsOf(log, key, record, lists),
    log.messageIds(key.tenant, key.session),
    calls.previous(id),
  ]);
  const before = previous && listsOf(previous);
  const { counter } = deps.pipeline;
  const text = async (ref: TextRef): Promise<PromptText> => {
    const t = await calls.text(ref.digest);
    return { tokens: ref.tokens, chars: ref.chars, ...(t !== undefined ? { text: rowText(t) } : {}) };
  };
  const p = record.prompt;
  const prompt: NonNullable<CallPageInput['prompt']> = {};
  if (p?.system) prompt.system = await text(p.system);
  if (p?.injected) prompt.injected = await text(p.injected);
  if (p?.tools)
    prompt.tools = await Promise.all(p.tools.map(async (t) => ({ name: t.name, ...(await text(t)) })));
  // Messages ctxkit made: this call's, and the previous call's (what this one may have started from).
  const made: MadeMessage[] = [];
  const seen = new Set<string>();
  for (const m of [...(record.made ?? []), ...(previous?.made ?? [])]) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    made.push({ id: m.id, role: m.role, ...(m.kind ? { kind: m.kind } : {}), ...(await text(m)) });
  }
  const logRows: CallLogRow[] = rows.map((r) => {
    const content = messageContent(r.message);
    return {
      seq: r.seq,
      id: r.message.id,
      role: r.message.role,
      characters: content.length,
      preview: flatPreview(content),
      compacted: r.compacted,
      tokens: counter.countMessage(r.message),
      text: rowText(content),
      ...(r.message.meta?.truncatedAtArrival !== undefined ? { arrival: true } : {}),
    };
  });
  return {
    call: summarize(record),
    journal: [...record.journal, ...(record.overflow?.journal ?? [])],
    ...(record.journalCut ? { journalCut: record.journalCut } : {}),
    rows: logRows,
    logIds,
    ...(lists
      ? {
          messages: {
            input: lists.input,
            output: lists.output,
            ...(record.messages?.cut ? { cut: true } : {}),
            retried: lists.retried,
          },
        }
      : {}),
    ...(Object.keys(prompt).length > 0 ? { prompt } : {}),
    ...(made.length > 0 ? { made } : {}),
    ...(record.added ? { added: record.added } : {}),
    ...(previous
      ? {
          previous: {
            id: previous.id,
            kind: previous.kind ?? 'proxy',
            at: previous.at,
            ...(before ? { output: before.output } : {}),
          },
        }
      : {}),
  };
}
