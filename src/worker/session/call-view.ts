/**
 * What a call's page draws (`/v1/ui/sessions/:session/calls/:call`), gathered in the session object:
 * the call's record, the log rows its lists name with their tokens (the session's own counter) and full
 * texts, the texts its record names by digest (system prompt, injected block, tool schemas, the messages
 * ctxkit made), and what the previous call sent, for the difference.
 */
import type { StoredMessage } from '../../core/index.ts';
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
import { load, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

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

export async function callView(
  deps: SessionDeps,
  key: SessionKey,
  calls: CallLog,
  id: string,
): Promise<CallView | undefined> {
  const record = await calls.get(id);
  if (!record) return undefined;
  const [loaded, previous] = await Promise.all([load(deps, key), calls.previous(id)]);
  const lists = listsOf(record);
  const before = previous && listsOf(previous);
  const { counter } = deps.pipeline;
  let rows: StoredMessage[] = loaded.rows;
  if (lists) {
    const named = new Set<number>();
    for (const m of [...lists.input, ...lists.output]) if ('seq' in m) named.add(m.seq);
    rows = loaded.rows.filter((r) => named.has(r.seq));
  } else {
    // A record older than the lists: the log as the call found it, then the rows it appended.
    const k = loaded.rows.findIndex((r) => r.createdAt >= record.at);
    rows = loaded.rows.slice(0, (k < 0 ? loaded.rows.length : k) + record.appended);
  }
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
    rows: logRows,
    logIds: loaded.rows.map((r) => r.message.id),
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
