/**
 * The `recall` option of `createPipeline` / `createContext` (and every framework entry, which pass
 * it through): `true` for the recall tools over an in-memory archive, or an object naming the archive,
 * the memory store `remember` writes to and the token budget of one answer. Validated once; a bad
 * value throws `CtxError('invalid_config')` naming the field.
 */
import { CtxError } from '../errors.ts';
import type { Message } from '../messages/types.ts';
import type { JournalEntry } from '../pipeline/types.ts';
import { type Clock, type IdGenerator, randomIds, systemClock, type TokenCounter } from '../ports.ts';
import { MEMORY_VISIBILITIES } from '../store/memory-store.ts';
import { createCalibratedCounter } from '../tokens/calibrated/calibrated-counter.ts';
import { memoizeCounter } from '../tokens/estimators.ts';
import { createMemoryRecallArchive, type RecallArchive } from './archive.ts';
import { withRecallDefinitions } from './definitions.ts';
import { archivedMessages } from './record.ts';
import { createRecallTools, type RecallMemory, type RecallTools } from './tools.ts';

export interface RecallOptions {
  /** Where what leaves the context is kept. @default an in-memory archive */
  archive?: RecallArchive;
  /** The memory store `recall` also searches and `remember` writes to. @default none (no `remember`) */
  memory?: RecallMemory;
  /** Tokens one tool answer may take (50–100,000). @default 2000 */
  maxTokens?: number;
}

export const RECALL_DEFAULTS = { maxTokens: 2000 } as const;

/** Recall as a pipeline runs it: the tools, and the step that archives what a run left out. */
export interface PipelineRecall {
  readonly tools: RecallTools;
  /** Archives what `journal` says left `input`. */
  record(input: readonly Message[], journal: readonly JournalEntry[]): Promise<void>;
  /** The tools to count: the caller's and the recall definitions not among them. */
  withDefinitions<T>(tools: readonly T[] | undefined): T[];
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

/** The option validated (`undefined` when recall is off). */
export function checkRecallOptions(option: unknown): RecallOptions | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return {};
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    fail('recall', 'expected true, false or { archive, memory, maxTokens }');
  const o = option as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'archive' && k !== 'memory' && k !== 'maxTokens') fail(`recall.${k}`, 'unknown option');
  if (o.archive !== undefined && !isPort(o.archive, ['put', 'get', 'search']))
    fail('recall.archive', 'expected a RecallArchive (put, get, search)');
  const max = o.maxTokens;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 50 && (max as number) <= 100_000))
    fail('recall.maxTokens', 'expected an integer from 50 to 100000');
  if (o.memory !== undefined) checkMemory(o.memory);
  return o as RecallOptions;
}

export function createPipelineRecall(
  option: unknown,
  deps: { counter: TokenCounter; clock: Clock; ids: IdGenerator },
): PipelineRecall | undefined {
  const options = checkRecallOptions(option);
  if (options === undefined) return undefined;
  const archive = options.archive ?? createMemoryRecallArchive();
  const tools = createRecallTools({
    archive,
    ...(options.memory !== undefined ? { memory: options.memory } : {}),
    counter: deps.counter,
    clock: deps.clock,
    ids: deps.ids,
    maxTokens: options.maxTokens ?? RECALL_DEFAULTS.maxTokens,
  });
  return {
    tools,
    async record(input, journal) {
      const items = archivedMessages(input, journal, deps.clock.now());
      if (items.length > 0) await archive.put(items);
    },
    withDefinitions: <T>(given: readonly T[] | undefined) =>
      withRecallDefinitions(given, tools.definitions) as T[],
  };
}

/**
 * The recall tools over the archive given to an entry's `recall` option, for a framework's ready-made
 * tool set: `recall: { archive }` on the entry and the same `{ archive }` here. Without an archive the
 * tools would read one nothing writes to, so it is required. Answers are counted with the default
 * preset's counter (calibrated o200k) unless `counter` is given.
 */
export function recallToolsFor(
  entry: string,
  options: RecallOptions & { counter?: TokenCounter; clock?: Clock; ids?: IdGenerator },
): RecallTools {
  const { counter, clock, ids, ...rest } = (options ?? {}) as RecallOptions & {
    counter?: TokenCounter;
    clock?: Clock;
    ids?: IdGenerator;
  };
  const checked = checkRecallOptions(rest);
  if (checked?.archive === undefined)
    throw new CtxError(
      'invalid_config',
      `${entry}: expected { archive }, the archive also given to the entry's recall option`,
      { path: 'recall.archive' },
    );
  return createRecallTools({
    archive: checked.archive,
    ...(checked.memory !== undefined ? { memory: checked.memory } : {}),
    counter: counter ?? memoizeCounter(createCalibratedCounter({ preset: 'o200k' })),
    clock: clock ?? systemClock,
    ids: ids ?? randomIds,
    maxTokens: checked.maxTokens ?? RECALL_DEFAULTS.maxTokens,
  });
}
