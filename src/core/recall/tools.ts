/**
 * The recall tools' handlers over a session's own archive and its memory store: `recall(query)`
 * searches what left the context (and the memories), `reread(ref)` returns one item whole,
 * `remember(text)` saves a memory with its provenance. Each answers with text for the model, held to
 * a token budget; a bad argument throws `CtxError('invalid_input')` naming it.
 */
import { CtxError } from '../errors.ts';
import type { Clock, IdGenerator, TokenCounter } from '../ports.ts';
import { searchMemory } from '../store/hybrid-search.ts';
import {
  type MemoryRecord,
  type MemoryStore,
  type MemoryVisibility,
  passesProvenance,
} from '../store/memory-store.ts';
import type { ArchivedMessage, RecallArchive } from './archive.ts';
import {
  RECALL_TOOL_DEFINITIONS,
  RECALL_TOOL_NAMES,
  type RecallToolDefinition,
  type RecallToolName,
} from './definitions.ts';
import { rereadHint } from './ref.ts';
import { fitText, snippet } from './snippet.ts';

/** Where `remember` writes and `recall` also searches. */
export interface RecallMemory {
  store: MemoryStore;
  tenant: string;
  /** @default '' (global) */
  project?: string;
  /** @default '' (shared by every user) */
  userId?: string;
  /** The session remembered facts come from (provenance). @default '' */
  sessionId?: string;
  /** Who may see what `remember` writes. @default 'session' when a sessionId is given, else 'shared' */
  scope?: MemoryVisibility;
}

export interface RecallToolsConfig {
  archive: RecallArchive;
  memory?: RecallMemory;
  counter: TokenCounter;
  clock: Clock;
  ids: IdGenerator;
  /** Tokens one answer may take. */
  maxTokens: number;
}

export interface RecallTools {
  /** The definitions to hand the model (`remember` only when a memory store is configured). */
  readonly definitions: readonly RecallToolDefinition[];
  readonly archive: RecallArchive;
  /** Runs the named tool on raw arguments (validated). */
  call(name: string, args: unknown): Promise<string>;
  recall(args: { query: string; limit?: number }): Promise<string>;
  reread(args: { ref: string; offset?: number }): Promise<string>;
  remember(args: { text: string }): Promise<string>;
}

/** Longest text `remember` stores, and longest query or ref taken. */
export const RECALL_LIMITS = { rememberChars: 4000, queryChars: 1000, maxHits: 50 } as const;

function bad(path: string, message: string): never {
  throw new CtxError('invalid_input', message, { path });
}

function argsObject(args: unknown, tool: string): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      bad(tool, 'expected JSON arguments');
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) bad(tool, 'expected an object');
  return args as Record<string, unknown>;
}

function text(o: Record<string, unknown>, key: string, tool: string, max: number): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') bad(`${tool}.${key}`, 'expected a non-empty string');
  if (v.length > max) bad(`${tool}.${key}`, `expected at most ${max} characters`);
  return v.trim();
}

function integer(o: Record<string, unknown>, key: string, tool: string, min: number, max: number) {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Number.isInteger(v) || (v as number) < min || (v as number) > max)
    bad(`${tool}.${key}`, `expected an integer from ${min} to ${max}`);
  return v as number;
}

function label(m: ArchivedMessage): string {
  return `${m.role} message ${m.messageId}, ${m.action} by ${m.stage}`;
}

export function createRecallTools(config: RecallToolsConfig): RecallTools {
  const { archive, memory, counter, clock, ids, maxTokens } = config;
  const names = RECALL_TOOL_NAMES.filter((n) => n !== 'remember' || memory !== undefined);
  const definitions = names.map((n) => RECALL_TOOL_DEFINITIONS[n]);

  async function memoryHits(query: string, limit: number): Promise<string[]> {
    if (!memory) return [];
    const hits = await searchMemory(memory.store, memory.tenant, query, {
      maxResults: 2 * limit,
      ...(memory.project !== undefined ? { project: memory.project } : {}),
      ...(memory.userId !== undefined ? { userId: memory.userId } : {}),
    });
    // Another session's session-scoped memories (what its model remembered) never reach this one.
    const visibleTo = memory.sessionId;
    const lines: string[] = [];
    for (const h of hits) {
      if (lines.length >= limit) break;
      const id = h.chunk.source.startsWith('memory:') ? h.chunk.source.slice('memory:'.length) : undefined;
      if (visibleTo && id !== undefined) {
        const record = await memory.store.get(memory.tenant, id);
        if (!record || !passesProvenance(record, { visibleTo })) continue;
      }
      lines.push(`[memory ${h.chunk.source}] ${snippet(h.chunk.text, query)}`);
    }
    return lines;
  }

  const tools: RecallTools = {
    definitions,
    archive,
    async call(name, args) {
      const o = argsObject(args, name);
      switch (name as RecallToolName) {
        case 'recall': {
          const limit = integer(o, 'limit', name, 1, RECALL_LIMITS.maxHits);
          return tools.recall({
            query: text(o, 'query', name, RECALL_LIMITS.queryChars),
            ...(limit !== undefined ? { limit } : {}),
          });
        }
        case 'reread': {
          const offset = integer(o, 'offset', name, 0, Number.MAX_SAFE_INTEGER);
          return tools.reread({
            ref: text(o, 'ref', name, 100),
            ...(offset !== undefined ? { offset } : {}),
          });
        }
        case 'remember':
          if (!memory) return bad(name, 'no memory store is configured (recall.memory)');
          return tools.remember({ text: text(o, 'text', name, RECALL_LIMITS.rememberChars) });
        default:
          return bad('name', `unknown recall tool ${JSON.stringify(name)} (${names.join(', ')})`);
      }
    },
    async recall({ query, limit = 8 }) {
      const found = await archive.search(query, { limit });
      const lines: string[] = [];
      for (const m of found) lines.push(`[${rereadHint(m.ref)}: ${label(m)}] ${snippet(m.text, query)}`);
      lines.push(...(await memoryHits(query, Math.max(1, Math.min(limit, 5)))));
      if (lines.length === 0)
        return `Nothing found for ${JSON.stringify(query)} in what left the context${memory ? ' or in memory' : ''}.`;
      const out: string[] = [];
      let used = 0;
      for (const line of lines) {
        const t = counter.countText(line) + 1;
        if (used + t > maxTokens) {
          out.push(`[${lines.length - out.length} more hit(s) left out; narrow the query]`);
          break;
        }
        out.push(line);
        used += t;
      }
      return out.join('\n');
    },
    async reread({ ref, offset = 0 }) {
      const items = await archive.get(ref);
      if (items.length === 0)
        return `Unknown ref ${JSON.stringify(ref)}: refs are the m…/s… ids that cleared notes and summaries show; recall(query) searches instead.`;
      const whole =
        items.length === 1
          ? `[${label(items[0]!)}]\n${items[0]!.text}`
          : items.map((m) => `[${m.ref}: ${label(m)}]\n${m.text}`).join('\n\n');
      if (offset >= whole.length)
        return `Ref ${ref} has ${whole.length} characters; offset ${offset} is past its end.`;
      const rest = whole.slice(offset);
      const fitted = fitText(rest, counter, maxTokens);
      if (fitted.length === rest.length) return rest;
      const next = offset + fitted.length;
      return `${fitted}\n[truncated at character ${next} of ${whole.length}: call reread('${ref}', {offset: ${next}}) for the rest]`;
    },
    async remember({ text: fact }) {
      if (!memory) return bad('remember', 'no memory store is configured (recall.memory)');
      const now = clock.now();
      const sessionId = memory.sessionId ?? '';
      const record: MemoryRecord = {
        tenant: memory.tenant,
        id: ids.next('mem'),
        project: memory.project ?? '',
        userId: memory.userId ?? '',
        type: 'project',
        class: 'durable',
        title: fact.split('\n')[0]!.slice(0, 80),
        content: fact,
        pinned: false,
        expiresAt: null,
        createdAt: now,
        updatedAt: now,
        lastSurfacedAt: null,
        // Written by the model during an agent loop: what tools returned may have steered it.
        source: 'tool',
        sessionId,
        scope: memory.scope ?? (sessionId !== '' ? 'session' : 'shared'),
      };
      const saved = await memory.store.put(record);
      return `Remembered as memory ${saved.id}.`;
    },
  };
  return tools;
}
