/**
 * `createRecall(options)`: the recall tools and the archive they read, made once and handed to the
 * `recall` option of `createPipeline` / `createContext` / every framework entry (which archive what each
 * run leaves out into it), and to the framework's ready-made tool set (which answers from it). Options
 * are validated once; a bad value throws `CtxError('invalid_config')` naming the field.
 */
import { CtxError } from '../errors.ts';
import type { Message } from '../messages/types.ts';
import type { JournalEntry } from '../pipeline/types.ts';
import { type Clock, type IdGenerator, randomIds, systemClock, type TokenCounter } from '../ports.ts';
import { MEMORY_VISIBILITIES } from '../store/memory-store.ts';
import { createCalibratedCounter } from '../tokens/calibrated/calibrated-counter.ts';
import { memoizeCounter } from '../tokens/estimators.ts';
import { createMemoryRecallArchive, type RecallArchive } from './archive.ts';
import type { RecallToolDefinition } from './definitions.ts';
import { archivedMessages } from './record.ts';
import { createRecallTools, type RecallMemory, type RecallTools } from './tools.ts';

export interface RecallOptions {
  /** Where what leaves the context is kept. @default an in-memory archive */
  archive?: RecallArchive;
  /** The memory store `recall` also searches and `remember` writes to. @default none (no `remember`) */
  memory?: RecallMemory;
  /** Tokens one tool answer may take (50–100,000). @default 2000 */
  maxTokens?: number;
  /** Counts the answers. @default calibrated o200k (the default preset's counter) */
  counter?: TokenCounter;
  /** @default the system clock */
  clock?: Clock;
  /** Ids of remembered memories. @default random ids */
  ids?: IdGenerator;
}

export const RECALL_DEFAULTS = { maxTokens: 2000 } as const;

/** What the `recall` option takes: the tools, their definitions, and the step that archives a run. */
export interface Recall {
  readonly tools: RecallTools;
  readonly archive: RecallArchive;
  readonly definitions: readonly RecallToolDefinition[];
  /** Archives what `journal` says left `input` (the pipeline calls it after each run). */
  record(input: readonly Message[], journal: readonly JournalEntry[]): Promise<void>;
}

function fail(path: string, message: string): never {
  throw new CtxError('invalid_config', message, { path });
}

function isPort(v: unknown, methods: readonly string[]): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function')
  );
}

function checkMemory(m: unknown): RecallMemory {
  if (typeof m !== 'object' || m === null) fail('recall.memory', 'expected { store, tenant, … }');
  const o = m as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!['store', 'tenant', 'project', 'userId', 'sessionId', 'scope'].includes(k))
      fail(`recall.memory.${k}`, 'unknown option');
  if (!isPort(o.store, ['put', 'keywordRanks', 'chunkIndex']))
    fail('recall.memory.store', 'expected a MemoryStore');
  if (typeof o.tenant !== 'string' || o.tenant === '')
    fail('recall.memory.tenant', 'expected a non-empty string');
  for (const k of ['project', 'userId', 'sessionId'])
    if (o[k] !== undefined && typeof o[k] !== 'string') fail(`recall.memory.${k}`, 'expected a string');
  if (o.scope !== undefined && !MEMORY_VISIBILITIES.includes(o.scope as never))
    fail('recall.memory.scope', `expected one of ${MEMORY_VISIBILITIES.join(', ')}`);
  return o as unknown as RecallMemory;
}

const KEYS = ['archive', 'memory', 'maxTokens', 'counter', 'clock', 'ids'];

export function createRecall(options: RecallOptions = {}): Recall {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    fail('recall', 'expected { archive, memory, maxTokens, … }');
  const o = options as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.includes(k)) fail(`recall.${k}`, 'unknown option');
  if (o.archive !== undefined && !isPort(o.archive, ['put', 'get', 'search']))
    fail('recall.archive', 'expected a RecallArchive (put, get, search)');
  const max = o.maxTokens;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 50 && (max as number) <= 100_000))
    fail('recall.maxTokens', 'expected an integer from 50 to 100000');
  if (o.memory !== undefined) checkMemory(o.memory);
  if (o.counter !== undefined && !isPort(o.counter, ['countText']))
    fail('recall.counter', 'expected a TokenCounter');
  const archive = options.archive ?? createMemoryRecallArchive();
  const clock = options.clock ?? systemClock;
  const tools = createRecallTools({
    archive,
    ...(options.memory !== undefined ? { memory: options.memory } : {}),
    counter: options.counter ?? memoizeCounter(createCalibratedCounter({ preset: 'o200k' })),
    clock,
    ids: options.ids ?? randomIds,
    maxTokens: options.maxTokens ?? RECALL_DEFAULTS.maxTokens,
  });
  return {
    tools,
    archive,
    definitions: tools.definitions,
    async record(input, journal) {
      const items = archivedMessages(input, journal, clock.now());
      if (items.length > 0) await archive.put(items);
    },
  };
}
