/**
 * Claude Code session JSONL → neutral messages. One JSON object per line: `type` is `user`,
 * `assistant`, `system`, `summary`, `progress`, `file-history-snapshot`…; conversation lines carry an
 * Anthropic-style `message: { role, content }`, a `uuid`, `parentUuid`, and flags such as `isMeta`,
 * `isCompactSummary`, `isSidechain`, `toolUseResult`. One assistant reply is often written as several
 * lines sharing `message.id` (one content block each), sometimes with tool results in between: they
 * are merged back into one message. Sidechain lines (sub-agents) and non-conversation lines are skipped;
 * `system` lines with `subtype: 'compact_boundary'` are reported as events.
 */
import {
  CtxError,
  type JsonValue,
  type Message,
  type MessageMeta,
  type Part,
  usageFromRecord,
} from '../../core/index.ts';

export interface ClaudeCodeEvent {
  type: string;
  line: number;
  /** Index of the message the event comes before (the messages read so far). */
  at: number;
  uuid?: string;
  detail?: JsonValue;
}

export interface ClaudeCodeTranscript {
  messages: Message[];
  events: ClaudeCodeEvent[];
  sessionId?: string;
  /** Lines that were not conversation (progress, snapshots, summaries…), by type. */
  skipped: Record<string, number>;
}

type Obj = Record<string, unknown>;
/** Line types that never carry a turn, whatever their payload. */
const NOT_CONVERSATION = new Set(['summary', 'system', 'progress', 'file-history-snapshot']);
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function resultOutput(content: unknown): string | JsonValue {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((b) => isObj(b) && b.type === 'text'))
    return content.map((b) => String((b as Obj).text ?? '')).join('\n');
  return content as JsonValue;
}

function partsOf(content: unknown, role: 'user' | 'assistant'): { parts: Part[]; results: Part[] } {
  const parts: Part[] = [];
  const results: Part[] = [];
  const blocks =
    typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  for (const b of blocks) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string' && (role === 'user' || b.text.trim() !== ''))
          parts.push({ type: 'text', text: b.text });
        break;
      case 'thinking':
        if (typeof b.thinking === 'string') {
          const p: Part = { type: 'reasoning', text: b.thinking };
          if (typeof b.signature === 'string') p.signature = b.signature;
          parts.push(p);
        }
        break;
      case 'redacted_thinking':
        parts.push({ type: 'reasoning', text: '', redacted: true, signature: String(b.data ?? '') });
        break;
      case 'tool_use':
        parts.push({
          type: 'tool-call',
          id: String(b.id),
          name: String(b.name),
          args: (b.input ?? {}) as JsonValue,
        });
        break;
      case 'tool_result': {
        const p: Part = {
          type: 'tool-result',
          callId: String(b.tool_use_id),
          output: resultOutput(b.content),
        };
        if (b.is_error === true) p.isError = true;
        results.push(p);
        break;
      }
      case 'image': {
        const src = isObj(b.source) ? b.source : {};
        if (typeof src.url === 'string') parts.push({ type: 'image', url: src.url });
        else if (typeof src.data === 'string')
          parts.push({ type: 'image', data: src.data, mediaType: String(src.media_type ?? 'image/png') });
        break;
      }
    }
  }
  return { parts, results };
}

/** Parses a Claude Code session JSONL text. Throws `CtxError` naming the line for malformed JSON. */
export function fromClaudeCodeJsonl(text: string): ClaudeCodeTranscript {
  const messages: Message[] = [];
  const events: ClaudeCodeEvent[] = [];
  const skipped: Record<string, number> = {};
  const names = new Map<string, string>();
  const seen = new Set<string>();
  let sessionId: string | undefined;
  let lastAssistant: { message: Message; apiId: string } | undefined;

  text.split('\n').forEach((raw, index) => {
    const lineNo = index + 1;
    if (raw.trim() === '') return;
    let entry: unknown;
    try {
      entry = JSON.parse(raw);
    } catch {
      throw new CtxError('invalid_input', 'not valid JSON', { path: `line ${lineNo}` });
    }
    if (!isObj(entry))
      throw new CtxError('invalid_input', 'expected a JSON object', { path: `line ${lineNo}` });
    const type = String(entry.type ?? 'unknown');
    if (typeof entry.sessionId === 'string') sessionId ??= entry.sessionId;
    if (type === 'system' && entry.subtype === 'compact_boundary') {
      const e: ClaudeCodeEvent = { type: 'compact_boundary', line: lineNo, at: messages.length };
      if (typeof entry.uuid === 'string') e.uuid = entry.uuid;
      if (entry.compactMetadata !== undefined) e.detail = entry.compactMetadata as JsonValue;
      events.push(e);
      return;
    }
    const role = isObj(entry.message) ? entry.message.role : undefined;
    const conversational = (role === 'user' || role === 'assistant') && !NOT_CONVERSATION.has(type);
    if (!conversational || !isObj(entry.message) || entry.isSidechain === true) {
      skipped[type] = (skipped[type] ?? 0) + 1;
      return;
    }
    const uuid = typeof entry.uuid === 'string' ? entry.uuid : `line${lineNo}`;
    if (seen.has(uuid)) {
      skipped.duplicate = (skipped.duplicate ?? 0) + 1;
      return;
    }
    seen.add(uuid);
    const msg = entry.message;
    const meta: MessageMeta = {};
    if (entry.isMeta === true) meta.isMeta = true;
    if (entry.isCompactSummary === true) {
      meta.isCompactSummary = true;
      meta.kind = 'summary';
    }
    if (typeof entry.timestamp === 'string') meta.createdAt = entry.timestamp;

    if (role === 'assistant') {
      const { parts } = partsOf(msg.content, 'assistant');
      for (const p of parts) if (p.type === 'tool-call') names.set(p.id, p.name);
      const apiId = typeof msg.id === 'string' ? msg.id : uuid;
      if (lastAssistant && lastAssistant.apiId === apiId) {
        const m = lastAssistant.message;
        const fresh = parts.filter((p) => !m.parts.some((q) => JSON.stringify(q) === JSON.stringify(p)));
        const merged: Message = { ...m, parts: [...m.parts, ...fresh] };
        messages[messages.indexOf(m)] = merged;
        lastAssistant.message = merged;
        return;
      }
      const message: Message = { id: uuid, role: 'assistant', parts, meta };
      if (typeof msg.model === 'string') message.model = msg.model;
      if (isObj(msg.usage)) {
        const usage = usageFromRecord(msg.usage as Record<string, JsonValue>);
        if (usage) message.usage = usage;
      }
      messages.push(message);
      lastAssistant = { message, apiId };
      return;
    }
    const { parts, results } = partsOf(msg.content, 'user');
    if (results.length > 0) {
      for (const r of results)
        if (r.type === 'tool-result' && !r.name && names.has(r.callId)) r.name = names.get(r.callId)!;
      const tmeta: MessageMeta = { ...meta, kind: 'tool_result' };
      messages.push({ id: uuid, role: 'tool', parts: results, meta: tmeta });
    }
    if (parts.length > 0) {
      messages.push({ id: results.length > 0 ? `${uuid}.text` : uuid, role: 'user', parts, meta });
      lastAssistant = undefined;
    }
  });
  for (const m of messages) if (m.meta && Object.keys(m.meta).length === 0) delete m.meta;
  const out: ClaudeCodeTranscript = { messages, events, skipped };
  if (sessionId) out.sessionId = sessionId;
  return out;
}
