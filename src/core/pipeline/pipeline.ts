import { cacheRulesFor, parseCacheRules } from '../cache/cost-model.ts';
import { CtxError } from '../errors.ts';
import { withdrawAnsweredPlaceholders } from '../invariants/repair.ts';
import { messageSchema, parseWith, quickValidMessage } from '../messages/schema.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { randomIds, systemClock } from '../ports.ts';
import { checkRecall } from '../recall/check.ts';
import { withRecallDefinitions } from '../recall/with-definitions.ts';
import { createDeterministicSummarizer } from '../summarizers/deterministic-summarizer.ts';
import { conservativeCounter } from '../tokens/conservative.ts';
import { toolsJson } from '../tokens/context.ts';
import { memoizeCounter } from '../tokens/estimators.ts';
import { captureCompactionInput, createAheadRunner } from './engine/ahead.ts';
import { checkModel, isCacheState } from './engine/cache-state.ts';
import { createEstimator } from './engine/estimate.ts';
import { FLOWS } from './engine/flows.ts';
import { runOverflow } from './engine/overflow-flow.ts';
import { createRepairMemo } from './engine/repair-memo.ts';
import { createRecorder, type PipelineRun, type Recorder } from './engine/runner.ts';
import { isSentRecord, recordSent } from './engine/sent.ts';
import { CALL_KEYS, checkDialect, checkKeys, PIPELINE_KEYS } from './option-keys.ts';
import type { Pipeline, PipelineOptions, PrepareInput } from './pipeline-types.ts';
import { resolvePreset } from './presets/presets.ts';
import { type AheadSlot, aheadAware } from './stages/compaction-ahead.ts';
import { INITIAL_STATE, type JournalEntry, type StageContext } from './types.ts';

export type {
  CompactInput,
  OverflowInput,
  Pipeline,
  PipelineEstimate,
  PipelineOptions,
  PrepareInput,
} from './pipeline-types.ts';

/** The keys of `PrepareInput`. */
const PREPARE_KEYS = ['messages', 'state', ...CALL_KEYS];

export function createPipeline(options: PipelineOptions = {}): Pipeline {
  checkKeys(options, PIPELINE_KEYS, 'invalid_config');
  const preset = options.preset ?? 'default';
  const resolved = resolvePreset(preset, options.config, options.budget, options.counter);
  const counter = memoizeCounter(
    options.conservative ? conservativeCounter(resolved.counter) : resolved.counter,
  );
  if (options.excludeTools !== undefined && !Array.isArray(options.excludeTools))
    throw new CtxError('invalid_config', 'expected an array of tool names', { path: 'excludeTools' });
  const base: Omit<StageContext, 'state' | 'system' | 'tools' | 'signal'> = {
    counter,
    budget: resolved.budget,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIds,
    summarizer: options.summarizer ?? createDeterministicSummarizer(),
    excludeTools: new Set(options.excludeTools ?? []),
    preset,
  };
  if (options.blobs) (base as StageContext).blobs = options.blobs;
  const recall = checkRecall(options.recall);
  if (recall) (base as StageContext).recall = true;
  // With recall on, the budget counts its definitions and each run archives what it left out.
  const withRecall = <I extends { tools?: readonly ToolDefinition[] }>(input: I): I =>
    recall
      ? { ...input, tools: withRecallDefinitions(input.tools, recall.definitions) as ToolDefinition[] }
      : input;
  const archived = async <R extends { journal: JournalEntry[] }>(run: R, from: readonly Message[]) => {
    await recall?.record(from, run.journal);
    return run;
  };
  const cacheOverrides = parseCacheRules(options.cache);
  // A conservative counter counts upper bounds already: no margin on top.
  const guards = options.conservative ? { ...resolved.guards, countMargin: 1 } : resolved.guards;
  const aheadMode = options.ahead ?? 'off';
  if (aheadMode !== 'off' && aheadMode !== 'auto')
    throw new CtxError('invalid_config', "expected 'off' or 'auto'", { path: 'ahead' });
  const local =
    options.summarizer === undefined ||
    options.summarizer.local === true ||
    options.summarizer.name === 'deterministic';
  const given = options.aheadLimit;
  if (given !== undefined && !(Number.isInteger(given) && given >= 1 && given <= 1000))
    throw new CtxError('invalid_config', 'expected an integer from 1 to 1000', { path: 'aheadLimit' });
  const aheadLimit = given ?? (local ? Number.POSITIVE_INFINITY : 3);
  const slot: AheadSlot = {
    active: aheadMode === 'auto',
    auto: aheadMode === 'auto',
    started: 0,
    limit: aheadLimit,
  };
  // Only the default flow gates compaction by level with a warning band to prepare in.
  const compactionStage = preset === 'default' ? resolved.stages.preflight.compaction : undefined;
  const preflight = compactionStage
    ? { ...resolved.stages.preflight, compaction: aheadAware(compactionStage, slot) }
    : resolved.stages.preflight;
  const runner = compactionStage?.prepare ? createAheadRunner(slot, compactionStage) : undefined;
  const validated = new WeakSet<Message>();
  /** The last history checked (a copy of its references) and its ids, by position. */
  let checked: Message[] | undefined;
  const ids = new Map<string, number>();
  const repair = createRepairMemo();

  const checkInput = (input: Pick<PrepareInput, 'messages' | 'state' | 'model' | 'dialect'>) => {
    checkModel(input.model, 'invalid_input');
    checkDialect(input.dialect, 'invalid_input');
    if (!Array.isArray(input.messages))
      throw new CtxError('invalid_input', 'expected an array of messages', { path: 'messages' });
    const messages = input.messages;
    // A history that begins with the objects of the last one checked is checked in its new messages
    // (`checked` is cleared while a check runs, so that one that throws leaves nothing half-done).
    const last = checked ?? [];
    checked = undefined;
    let from = 0;
    while (from < last.length && last[from] === messages[from]) from++;
    if (from < last.length || from === 0) {
      from = 0;
      ids.clear();
    }
    for (let i = from; i < messages.length; i++) {
      const m = messages[i]!;
      if (!validated.has(m)) {
        if (!quickValidMessage(m)) parseWith(messageSchema, m, ['messages', i]);
        validated.add(m);
      }
      const first = ids.get(m.id);
      if (first !== undefined)
        throw new CtxError(
          'invalid_input',
          `duplicate message id "${m.id}" at messages[${first}] and messages[${i}] (ids must be unique in a history; adapters take a start: fromOpenAI(batch, { start }))`,
          { path: `messages[${i}].id` },
        );
      ids.set(m.id, i);
    }
    checked = messages.slice();
    const s = input.state;
    if (
      s !== undefined &&
      (typeof s !== 'object' ||
        !Array.isArray(s.pendingInjections) ||
        typeof s.compactionFailures !== 'number')
    )
      throw new CtxError('invalid_input', 'expected a PipelineState', { path: 'state' });
    if (s?.cache !== undefined && !isCacheState(s.cache))
      throw new CtxError('invalid_input', 'expected a cache record (time, digests, growth)', {
        path: 'state.cache',
      });
    if (s?.sent !== undefined && !isSentRecord(s.sent))
      throw new CtxError('invalid_input', 'expected a sent record (counts and digests)', {
        path: 'state.sent',
      });
    if (
      s?.flushed !== undefined &&
      !(Array.isArray(s.flushed) && s.flushed.every((k) => typeof k === 'string'))
    )
      throw new CtxError('invalid_input', 'expected an array of flushed-text keys', {
        path: 'state.flushed',
      });
  };

  /** The run with what it sent recorded in its state, so that the usage answering it can anchor the next. */
  const remember = <R extends PipelineRun>(run: R, input: PrepareInput): R => {
    let tokens = input.system ? counter.countText(input.system) : 0;
    if (input.tools && input.tools.length > 0) tokens += counter.countText(toolsJson(input.tools));
    for (const m of run.send) tokens += counter.countMessage(m);
    run.state = { ...run.state, sent: recordSent(run.messages, run.send, input.system, input.tools, tokens) };
    return run;
  };

  /** The preset's estimate of `input`, anchored to the usage that answered its last send. */
  const estimatorFor = (input: Parameters<Pipeline['estimate']>[0]) =>
    createEstimator({
      counter,
      budget: resolved.budget,
      system: input.system,
      tools: input.tools,
      input: input.messages,
      anchor: resolved.anchor,
      sent: input.state?.sent,
    });

  const start = (given: PrepareInput): Recorder => {
    checkInput(given);
    // Placeholders a repair put in for calls unanswered then, whose real results have now arrived.
    const messages = withdrawAnsweredPlaceholders(given.messages);
    const input = messages === given.messages ? given : { ...given, messages };
    const context: Omit<StageContext, 'state'> = { ...base };
    if (input.system !== undefined) context.system = input.system;
    if (input.tools !== undefined) context.tools = input.tools;
    if (input.signal !== undefined) context.signal = input.signal;
    const estimator = estimatorFor(input);
    if (estimator.anchor) context.anchor = { id: estimator.anchor.id };
    return createRecorder({
      messages: input.messages,
      context,
      // Missing fields (a state stored by an older version) take their initial values.
      state: input.state ? { ...INITIAL_STATE, ...input.state } : INITIAL_STATE,
      estimator,
      observe: options.observe,
      repair,
      cacheRules: cacheRulesFor(input.dialect, cacheOverrides, input.model),
    });
  };

  const api: Pipeline = {
    preset,
    budget: resolved.budget,
    counter,
    ...(recall ? { recall: recall.tools } : {}),
    async prepare(given) {
      checkKeys(given, PREPARE_KEYS, 'invalid_input');
      const input = withRecall(given);
      const r = start(input);
      // A pre-flight comes after a successful call (or a new user message): overflow attempts restart (002 §4.10).
      if (r.state.overflowAttempts !== 0) r.setState({ ...r.state, overflowAttempts: 0 });
      await FLOWS[preset](r, preflight, guards);
      const run = await archived(remember(r.finish(input.dialect), input), input.messages);
      // The scheduler: the next compaction is prepared between steps, while the model generates.
      if (slot.auto && runner && (run.estimate.level !== 'ok' || slot.promised === true))
        setTimeout(() => {
          const { signal: _signal, ...call } = input;
          api.ahead({ ...call, messages: run.messages, state: run.state }).catch(() => undefined);
        }, 0);
      return run;
    },
    async ahead(given) {
      checkKeys(given, PREPARE_KEYS, 'invalid_input');
      const input = withRecall(given);
      if (!runner) return { status: 'skipped', detail: `preset ${preset} prepares no compaction ahead` };
      const r = start(input);
      // At any level: the outputs that the next user message makes historical are cut now.
      preflight.historicalTruncation?.ahead?.(r.messages, r.context);
      const captured = await captureCompactionInput(r, FLOWS[preset], preflight, guards, slot.promised);
      if (typeof captured === 'string') return { status: 'skipped', detail: captured };
      slot.promised = false;
      // From the first preparation on, compaction reports say which summary they used, and the
      // messages a compaction will read are read here, in the idle time, not in the steps.
      slot.active = true;
      compactionStage!.ahead?.(captured.messages, captured.ctx);
      preflight.archiving?.ahead?.(captured.messages, captured.ctx);
      return runner.prepare(captured.messages, captured.ctx);
    },
    async admitToolResult(message, given = {}) {
      const input = withRecall(given);
      checkInput({ messages: [message] });
      const stage = resolved.stages.outputTruncation;
      const tokens = counter.countMessage(message);
      if (!stage || message.role !== 'tool') {
        const detail = stage ? 'not a tool message' : `preset ${preset} truncates no output at arrival`;
        return {
          message,
          report: {
            stage: 'output-truncation',
            status: 'skipped',
            tokensBefore: tokens,
            tokensAfter: tokens,
            detail,
          },
          journal: [],
        };
      }
      const r = start({ ...input, messages: [message] });
      const report = await r.run(stage);
      // No finish(): a lone result has no call beside it, and repair would drop it.
      return archived({ message: r.messages[0] ?? message, report, journal: [...r.journal] }, [message]);
    },
    async recoverOverflow(given) {
      const input = withRecall(given);
      const r = start(input);
      const attempt = input.attempt ?? r.state.overflowAttempts + 1;
      if (!Number.isInteger(attempt) || attempt < 1)
        throw new CtxError('invalid_input', 'must be an integer ≥ 1', { path: 'attempt' });
      const outcome = await runOverflow(r, preset, attempt, input.error);
      r.setState({ ...r.state, overflowAttempts: attempt });
      const run = await archived(remember(r.finish(input.dialect), input), input.messages);
      return outcome.cleared
        ? { ...run, retry: outcome.retry, cleared: true }
        : { ...run, retry: outcome.retry };
    },
    async compact(given) {
      const input = withRecall(given);
      const r = start(input);
      await r.run(resolved.stages.manual(input.instructions));
      return archived(remember(r.finish(input.dialect), input), input.messages);
    },
    estimate(given) {
      const input = withRecall(given);
      checkInput(input);
      const e = estimatorFor(input);
      const m = e.measure(input.messages);
      const b = resolved.budget;
      return {
        tokens: m.tokens,
        level: m.level,
        anchored: m.anchored,
        percentLeft: b.percentLeft(m.tokens),
        usable: b.usable,
      };
    },
  };
  return api;
}
