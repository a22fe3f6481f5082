/**
 * How a conversation lives in the memory index: one chunk per turn (`speaker: text`, in the
 * session's source, line = the turn's position, date = the session's), and retrieval units over
 * the turns, each in a source of its own beside the session's and covering a line range of it:
 * `window` (a turn with its neighbours), `session` (a span of up to `sessionSpan` turns of the
 * session), `keys` (one deterministic fact key per turn, see `statementKey`) and `facts` (facts a
 * model extracted, each citing its turns). The line range is the provenance: every unit maps back
 * to the turns it covers. Plain memories and Markdown chunks are none of these and search as before.
 */

export interface ConversationTurn {
  /** Unique within its session (`[A-Za-z0-9_.:-]`, ≤ 128 characters). */
  id: string;
  speaker: string;
  text: string;
}

export interface ConversationSession {
  /** `[A-Za-z0-9_.:-]`, ≤ 128 characters. */
  id: string;
  /** `YYYY-MM-DD` (or a longer ISO text): resolves the turns' relative dates; null when unknown. */
  date?: string | null;
  turns: readonly ConversationTurn[];
}

export interface Conversation {
  /** `[A-Za-z0-9_.:-]`, ≤ 128 characters. */
  id: string;
  sessions: readonly ConversationSession[];
}

export type UnitKind = 'window' | 'session' | 'keys' | 'facts';
export const UNIT_KINDS: readonly UnitKind[] = ['window', 'session', 'keys', 'facts'];

const PREFIX = 'conversation:';
const UNIT_SUFFIX = /@(window|session|keys|facts)$/;
/** Conversation, session and turn ids: what a source or chunk id can carry unambiguously. */
export const CONVERSATION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The source of a session's turn chunks: `conversation:{conversation}/{session}`. */
export function conversationSource(conversation: string, session: string): string {
  return `${PREFIX}${conversation}/${session}`;
}

/** The source of one kind of unit over a session's turns: `{turn source}@{kind}`. */
export function unitSource(turnSource: string, kind: UnitKind): string {
  return `${turnSource}@${kind}`;
}

/** The id of a turn's chunk: `{turn source}#{turn id}`. */
export function turnChunkId(turnSource: string, turnId: string): string {
  return `${turnSource}#${turnId}`;
}

/** What a chunk's source says about it: a conversation turn, a unit over turns, or neither. */
export type SourceRole =
  | { role: 'turn'; conversation: string; session: string }
  | { role: 'unit'; kind: UnitKind; turnSource: string }
  | { role: 'plain' };

export function sourceRole(source: string): SourceRole {
  if (!source.startsWith(PREFIX)) return { role: 'plain' };
  const unit = UNIT_SUFFIX.exec(source);
  if (unit) return { role: 'unit', kind: unit[1] as UnitKind, turnSource: source.slice(0, unit.index) };
  const rest = source.slice(PREFIX.length);
  const slash = rest.lastIndexOf('/');
  if (slash <= 0) return { role: 'plain' };
  return { role: 'turn', conversation: rest.slice(0, slash), session: rest.slice(slash + 1) };
}

/** The turn id of a turn chunk (`conversation:c/s#D1:3` → `D1:3`), or null for any other chunk. */
export function turnIdOf(chunk: { id: string; source: string }): string | null {
  if (sourceRole(chunk.source).role !== 'turn') return null;
  return chunk.id.startsWith(`${chunk.source}#`) ? chunk.id.slice(chunk.source.length + 1) : null;
}

/** The speaker of a turn chunk's text (`speaker: text`), or null. */
export function speakerOf(text: string): string | null {
  const colon = text.indexOf(': ');
  return colon > 0 && colon <= 80 ? text.slice(0, colon) : null;
}
