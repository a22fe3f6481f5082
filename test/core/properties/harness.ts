/**
 * Property-based proof of the pipeline: random histories (parallel calls, reused ids, huge outputs,
 * CJK, images, pinned messages) × every preset × every dialect. After every stage the model view
 * keeps tool pairing, order and pinned messages, and the stage's journal accounts for every message
 * it removed or hid; after the run what is sent passes the dialect's invariants, the budget is met or
 * `block` is reported, and the input is never mutated (it is deep-frozen).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { createMemoryBlobStore } from '../../../src/core/blobs/memory-blob-store.ts';
import { checkInvariants, type Violation } from '../../../src/core/invariants/check.ts';
import type { Dialect, Message, Part } from '../../../src/core/messages/types.ts';
import { toModelView } from '../../../src/core/messages/visibility.ts';
import { unaccountedRemovals } from '../../../src/core/pipeline/engine/journal.ts';
import type { StageObservation } from '../../../src/core/pipeline/engine/runner.ts';
import { createPipeline, type PipelineOptions } from '../../../src/core/pipeline/pipeline.ts';
import type { PresetConfig, PresetName } from '../../../src/core/pipeline/presets/presets.ts';
import { fixedClock, type Summarizer, sequentialIds } from '../../../src/core/ports.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';
import { deepFreeze, historyArb, partContent } from '../../support/arbitraries.ts';

/**
 * Histories per preset × dialect: 25 combinations × 100 = 2,500 in `npm test`, × 400 = 10,000 in
 * `npm run test:slow` (which sets CTXKIT_PROPERTY_RUNS=400).
 */
const RUNS = Number(process.env.CTXKIT_PROPERTY_RUNS ?? 100);
const SEED = 20260101;
/** `neutral`: no dialect (what the pipeline sends when the caller converts itself). */
const DIALECTS: Array<Dialect | 'neutral'> = ['neutral', 'openai', 'anthropic', 'responses', 'gemini'];

/** Small limits so that every stage fires on small histories. */
const TIGHT: Record<PresetName, PresetConfig> = {
  default: { archiving: { cutoff: 4 }, outputTruncation: { maxLines: 100, maxBytes: 8_000 } },
  cowagent: { cowagentTrim: { maxContextTurns: 4 }, outputTruncation: { maxChars: 8_000 } },
  'co-cli': { slidingWindow: { maxMessages: 10 }, historicalTruncation: { maxChars: 500 } },
  kosmokrator: {
    pruning: { protectTokens: 200, minSavings: 100 },
    compaction: { keepRecentTurns: 2 },
    outputTruncation: { maxLines: 100, maxBytes: 8_000 },
  },
  tiancai: { archiving: { cutoff: 3 }, outputTruncation: { maxLines: 100, spillThreshold: 20_000 } },
};

function budgetFor(window: number) {
  return {
    contextWindow: window,
    reserveOutput: Math.round(window * 0.08),
    warningBuffer: Math.round(window * 0.3),
    autoCompactBuffer: Math.round(window * 0.15),
    blockingBuffer: Math.round(window * 0.03),
  };
}

function summarizer(kind: 'ok' | 'fail' | 'empty'): Summarizer {
  if (kind === 'fail') return createScriptedSummarizer({ fallback: { error: 'provider down' } });
  return createScriptedSummarizer({
    fallback: { summary: kind === 'ok' ? '## Goal\nFix src/a.ts.\n## Progress\nTests pass.' : '' },
  });
}

/** Violations of a stage's output, kept for the next stage's input (same array). */
const seen = new WeakMap<readonly Message[], Violation[]>();
function violationsOf(messages: readonly Message[]): Violation[] {
  let v = seen.get(messages);
  if (!v) {
    v = checkInvariants(toModelView(messages));
    seen.set(messages, v);
  }
  return v;
}

function stageViolations(o: StageObservation): string[] {
  const out: string[] = [];
  const view = toModelView(o.after);
  const last = view.at(-1)?.id;
  const key = (v: { rule: string; messageId: string }) => `${v.rule}@${v.messageId}`;
  const already = new Set(violationsOf(o.before).map(key));
  const after = checkInvariants(view, { before: o.before });
  if (o.after !== o.before) seen.set(o.after, after);
  for (const v of after) {
    if (already.has(key(v))) continue; // not introduced by this stage
    // 002 §4.9 never removes the last message, so a final result can lose its call; the run's repair
    // drops it (and journals that). Everything else is a stage bug.
    if (o.stage === 'emergency-trim' && v.rule === 'result-without-call' && v.messageId === last) continue;
    out.push(`${o.stage}: ${v.rule} at ${v.messageId} (${v.detail})`);
  }
  for (const id of unaccountedRemovals(o.before, o.after, o.journal))
    out.push(`${o.stage}: removed ${id} without a journal entry`);
  out.push(...extraLost(o));
  return out;
}

const contentKeys = new WeakMap<Part, string>();
function contentKey(p: Part): string {
  let k = contentKeys.get(p);
  if (k === undefined) {
    k = JSON.stringify(partContent(p));
    contentKeys.set(p, k);
  }
  return k;
}

/**
 * The opaque metadata slot survives every stage that leaves its part alone: a part sent after a stage
 * that says what a part before it said carries the same `extra`, and so does a message it kept.
 */
function extraLost(o: StageObservation): string[] {
  const out: string[] = [];
  const before = new Map(o.before.map((m) => [m.id, m]));
  for (const m of o.after) {
    const old = before.get(m.id);
    if (!old || old === m) continue;
    if (old.extra !== undefined && JSON.stringify(m.extra) !== JSON.stringify(old.extra))
      out.push(`${o.stage}: message ${m.id} lost its extra`);
    const said = new Map<string, string>(); // what a part of the same message said → its extra
    for (const p of old.parts) if (p.extra !== undefined) said.set(contentKey(p), JSON.stringify(p.extra));
    for (const p of m.parts) {
      const extra = said.get(contentKey(p));
      if (extra !== undefined && JSON.stringify(p.extra) !== extra)
        out.push(`${o.stage}: a ${p.type} part of ${m.id} lost its extra`);
    }
  }
  return out;
}

/** Like `fc.assert`, but the failure names the history by shape instead of dumping huge outputs. */
async function assertProperty<T extends unknown[]>(property: fc.IAsyncPropertyWithHooks<T>): Promise<void> {
  const details = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
  if (!details.failed) return;
  const [history, ...rest] = details.counterexample ?? [];
  const shape = (history as { messages: Message[] } | undefined)?.messages
    .map(
      (m) =>
        `${m.id}:${m.role}${m.parts.map((p) => (p.type === 'tool-call' ? `[call ${p.id} ${p.name}]` : p.type === 'tool-result' ? `[result ${p.callId}]` : '')).join('')}${m.meta?.pinned ? '(pinned)' : ''}`,
    )
    .join(' ');
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `property failed (seed ${details.seed}, path ${details.counterexamplePath}) on ${shape} with ${JSON.stringify(rest)}\n${cause.slice(0, 2000)}`,
  );
}

/** What was sent, with ids ctxkit generated replaced (they differ between two pipelines). */
function project(send: readonly Message[]): string {
  return JSON.stringify(
    send.map((m) => [/_\d+$/.test(m.id) ? 'new' : m.id, m.role, m.parts.map((p) => p.type)]),
  );
}

/** Ids of `memory_get` results (the excluded tool) whose output is not sent verbatim (ids may be renamed). */
function excludedLost(input: readonly Message[], send: readonly Message[]): string[] {
  const sent = new Set<string>();
  for (const m of send)
    for (const p of m.parts) if (p.type === 'tool-result') sent.add(JSON.stringify(p.output));
  const out: string[] = [];
  for (const m of input)
    for (const p of m.parts)
      if (p.type === 'tool-result' && p.name === 'memory_get' && !sent.has(JSON.stringify(p.output)))
        out.push(m.id);
  return out;
}

function pinnedIds(messages: readonly Message[]): string[] {
  return messages.filter((m) => m.meta?.pinned === true).map((m) => m.id);
}

export function describePresetProperties(preset: PresetName): void {
  describe(`createPipeline (${preset} preset) on random histories`, () => {
    it.each(DIALECTS)(
      'keeps the invariants, the pinned messages and the journal when sending to %s',
      async (target) => {
        const dialect = target === 'neutral' ? undefined : target;
        await assertProperty(
          fc.asyncProperty(
            historyArb({ maxTurns: 6 }),
            fc.constantFrom(1_500, 6_000, 30_000),
            fc.constantFrom<'ok' | 'fail' | 'empty'>('ok', 'ok', 'fail', 'empty'),
            fc.boolean(),
            fc.boolean(),
            async (history, window, summary, tight, exclude) => {
              const input = deepFreeze(history.messages);
              const stageErrors: string[] = [];
              const options: PipelineOptions = {
                preset,
                blobs: createMemoryBlobStore(),
                budget: budgetFor(window),
                config: tight ? TIGHT[preset] : {},
                summarizer: summarizer(summary),
                // The calibrated counter of `default` costs ~3× chars/4 on huge outputs; counting is not under test here.
                ...(preset === 'default' ? { counter: createChars4Counter({ unit: 'chars' }) } : {}),
                clock: fixedClock('2026-01-01T00:00:00Z'),
                ids: sequentialIds(),
                excludeTools: exclude ? ['memory_get'] : [],
                observe: (o) => stageErrors.push(...stageViolations(o)),
              };
              const pipeline = createPipeline(options);
              const run = await pipeline.prepare({
                messages: input,
                system: 'You are a coding agent.',
                ...(dialect ? { dialect } : {}),
              });
              const problems = [...stageErrors];
              const fail = (label: string, list: unknown[]) => {
                if (list.length > 0) problems.push(`${label}: ${JSON.stringify(list).slice(0, 500)}`);
              };
              fail('send invariants', checkInvariants(run.send, dialect ? { dialect } : {}));
              fail('unjournaled removals', unaccountedRemovals(input, run.messages, run.journal));
              const kept = new Set(run.send.map((m) => m.id));
              fail(
                'pinned lost',
                pinnedIds(input).filter((id) => !kept.has(id)),
              );
              if (exclude) fail('excluded tool output changed or lost', excludedLost(input, run.send));
              // The budget is met, or `block` is reported.
              if (run.estimate.level !== pipeline.budget.level(run.estimate.after))
                problems.push('level does not match tokens');
              // default's last resort: left at `block` only after the emergency trim was tried.
              const trim = run.reports.find((r) => r.stage === 'emergency-trim');
              if (preset === 'default' && run.estimate.level === 'block' && trim?.status === 'skipped')
                problems.push(`left at block without trimming (${trim.detail})`);
              fail(
                'bad report tokens',
                run.reports.filter(
                  (r) => !Number.isFinite(r.tokensBefore) || !Number.isFinite(r.tokensAfter),
                ),
              );

              // A second run carries the state (pending injections, breaker) and a new message; it goes
              // through the early exits (incremental.ts, repair-memo.ts) and must match a fresh pipeline.
              const next = deepFreeze([
                ...run.messages,
                { id: 'next', role: 'user' as const, parts: [{ type: 'text' as const, text: 'continue' }] },
              ]);
              const before = stageErrors.length;
              const again = {
                messages: next,
                state: run.state,
                system: 'You are a coding agent.',
                ...(dialect ? { dialect } : {}),
              };
              const second = await pipeline.prepare(again);
              fail('second run', stageErrors.slice(before));
              fail('second send invariants', checkInvariants(second.send, dialect ? { dialect } : {}));
              const fresh = await createPipeline({ ...options, observe: () => {} }).prepare(again);
              if (project(second.send) !== project(fresh.send))
                problems.push('incremental run differs from a fresh one');

              // The other moments on half of the histories: overflow recovery and a manual compaction.
              if (exclude) {
                const at = stageErrors.length;
                const ov = await pipeline.recoverOverflow({
                  messages: input,
                  error: 'prompt is too long',
                  ...(dialect ? { dialect } : {}),
                });
                const co = await pipeline.compact({ messages: input, ...(dialect ? { dialect } : {}) });
                fail('overflow/compact stages', stageErrors.slice(at));
                for (const [label, r] of [
                  ['overflow', ov],
                  ['compact', co],
                ] as const) {
                  fail(`${label} send invariants`, checkInvariants(r.send, dialect ? { dialect } : {}));
                  fail(`${label} unjournaled removals`, unaccountedRemovals(input, r.messages, r.journal));
                  const sent = new Set(r.send.map((m) => m.id));
                  fail(
                    `${label} pinned lost`,
                    pinnedIds(input).filter((id) => !sent.has(id)),
                  );
                  fail(`${label} excluded output lost`, excludedLost(input, r.send));
                }
              }
              if (problems.length > 0) throw new Error(problems.join('\n'));
            },
          ),
        );
      },
      600_000,
    );
  });
}
