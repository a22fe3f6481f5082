/**
 * Tool-result archiving behind a digest (003 §5.3). While more than `cutoff` tool results are visible
 * to the agent, the oldest is archived — kept in the history with `agentVisible: false`,
 * `kind: 'tool_result_archived'` (userVisible unchanged) — and a summary message is appended
 * (`agentVisible: true`, `userVisible: false`, `kind: 'tool_summary'`):
 * - `sync` (the documented rule): one `[Tool output summary]` message per archived result;
 * - `batch` (what 003's loop runs): batches of ≤ 4, at most 2 per run, one `[Tool outputs summary]` each.
 * Summaries come from `ctx.summarizer` (`llm`, purpose `tool-result` / `tool-batch`, any error or empty
 * answer → heuristic), from the heuristic, or not at all (`off`). `toModelView()` replaces an archived
 * result whose call is still visible by a stub, so pairing survives.
 * 003 §5.6's `compactToolResultsInRecent` digest, used by compaction, is in recent-digest.ts.
 */
import * as z from 'zod/mini';
import { messageDigest } from '../../messages/digest.ts';
import type { Message } from '../../messages/types.ts';
import { toModelView } from '../../messages/visibility.ts';
import type { SummarizeRequest } from '../../ports.ts';
import { trimRunes, trimTextWithTail } from '../../text/trim.ts';
import { callerRecover } from '../engine/journal.ts';
import { LIMITS } from '../limits.ts';
import type { JournalEntry, Stage, StageContext, StageResult } from '../types.ts';
import { recallRef, rereadNote } from './recall-hints.ts';
import { applied, indexToolCalls, noop, parseOptions, SESSION_LOG_LOCATION } from './stage-kit.ts';
import { archivable, itemOf, status, summaryMessage, type ToolItem, visibleTool } from './tool-items.ts';

export const toolArchivingOptionsSchema = z.strictObject({
  /** Visible tool results allowed before archiving starts; `0` disables. @default 10 */
  cutoff: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.count))),
  /** `llm` (through `ctx.summarizer`, heuristic on error), `heuristic`, or `off`. @default 'llm' */
  strategy: z.optional(z.enum(['llm', 'heuristic', 'off'])),
  /** `sync`: one summary per result (documented); `batch`: ≤ 4 per summary (what 003 runs). @default 'sync' */
  variant: z.optional(z.enum(['sync', 'batch'])),
  /** `batch`: results per summary. @default 4 */
  batchSize: z.optional(z.int().check(z.positive(), z.lte(LIMITS.small))),
  /** `batch`: batches per run (003 keeps 2 in flight). @default 2 */
  maxBatches: z.optional(z.int().check(z.positive(), z.lte(LIMITS.small))),
  /**
   * Where summaries go: `end` appends them (003), `in-place` puts each right after the block of tool
   * messages holding the (last) archived result, keeping chronology and the user's prompt last. @default 'end'
   */
  placement: z.optional(z.enum(['end', 'in-place'])),
  /** Summarizer time limit in ms. @default 30000 */
  timeoutMs: z.optional(z.int().check(z.positive(), z.lte(LIMITS.ms))),
});

export type ToolArchivingOptions = z.input<typeof toolArchivingOptionsSchema>;

export type ToolSummaryStrategy = 'llm' | 'heuristic' | 'off';

/**
 * The default preset leaves a tool message with nothing in it alone (its stub and summary would be
 * longer than it is); 003's rule archives it as specified.
 */
const skipEmpty = (m: Message, ctx: Pick<StageContext, 'preset'>) =>
  ctx.preset === 'default' && m.parts.every((p) => p.type === 'tool-result' && !p.output && !p.content);

/**
 * 003's `normalizeToolSummaryStrategy` (§5.3): trimmed and case-insensitive; empty or unknown → `llm`.
 * `warning` says when a non-empty name was not recognised. The `tiancai` preset reads its
 * `archiving.strategy` through this; the stage's own option (and the `default` preset) stays strict.
 */
export function normalizeToolSummaryStrategy(name: string): {
  strategy: ToolSummaryStrategy;
  warning?: string;
} {
  const key = name.trim().toLowerCase();
  if (key === 'llm' || key === 'heuristic' || key === 'off') return { strategy: key };
  if (key === '') return { strategy: 'llm' };
  return {
    strategy: 'llm',
    warning: `unknown tool summary strategy ${JSON.stringify(name)}; using llm (003 default)`,
  };
}

export const TOOL_ARCHIVING_DEFAULTS = {
  cutoff: 10,
  batchSize: 4,
  maxBatches: 2,
  timeoutMs: 30000,
  llmInputRunes: 12000,
  llmOutputRunes: 1200,
  heuristicRunes: 800,
  batchItemRunes: 4000,
  batchOutputRunes: 2200,
  batchLineRunes: 220,
  digestLineRunes: 200,
} as const;

// A result is archived by many pre-flights: the default preset's growth refusal throws an archiving
// away and the next step runs it again, and a preparation between steps (`pipeline.ahead`) runs it on
// the context the step will extend. Messages are immutable once handed over, so the archived copy is
// made once per message and the heuristic summary once per message and tool name: later runs hand out
// the same objects, whose counts and digests are kept.
const archivedCopies = new WeakMap<Message, Message>();
const heuristicParts = new WeakMap<Message, { name: string; parts: Message['parts'] }>();

/** The archived copy: hidden from the agent, userVisible unchanged (one object per message). */
export function archiveToolResult(m: Message): Message {
  let copy = archivedCopies.get(m);
  if (!copy) {
    copy = { ...m, meta: { ...m.meta, agentVisible: false, kind: 'tool_result_archived' } };
    archivedCopies.set(m, copy);
  }
  return copy;
}

/** The heuristic summary of `m` as the parts of its summary message (one array per message and tool name). */
function summaryParts(m: Message, item: ToolItem): Message['parts'] {
  let kept = heuristicParts.get(m);
  if (kept?.name !== item.name) {
    kept = {
      name: item.name,
      parts: [{ type: 'text', text: toolSummaryText(item, heuristicToolSummary(item)) }],
    };
    heuristicParts.set(m, kept);
  }
  return kept.parts;
}

/** 003's fallback: `Tool "{name}" finished with status {ok|error}. Output excerpt:\n{≤800 runes, head+tail}`. */
export function heuristicToolSummary(item: ToolItem): string {
  const text = item.text.trim() || '(empty output)';
  return `Tool ${JSON.stringify(item.name)} finished with status ${status(item)}. Output excerpt:\n${trimTextWithTail(text, TOOL_ARCHIVING_DEFAULTS.heuristicRunes)}`;
}

export function toolSummaryText(item: ToolItem, summary: string): string {
  return `[Tool output summary]\nTool: ${item.name}\nCall ID: ${item.callId}\nStatus: ${status(item)}\n${summary.trim()}`;
}

/** One line per result: `- [{id|n/a}] {name|unknown} ({ok|error}): {text, one line, ≤220 runes}`. */
export function heuristicBatchSummary(items: readonly ToolItem[]): string {
  return items
    .map((it) => {
      const text = trimRunes(
        (it.text.trim() || '(empty output)').replaceAll('\n', ' '),
        TOOL_ARCHIVING_DEFAULTS.batchLineRunes,
      );
      return `- [${it.callId || 'n/a'}] ${it.name || 'unknown'} (${status(it)}): ${text}`;
    })
    .join('\n');
}

export function toolBatchSummaryText(items: readonly ToolItem[], summary: string): string {
  const ids = items.map((it) => it.callId).filter((id) => id !== '');
  const idLine = ids.length > 0 ? `Call IDs: ${ids.join(', ')}\n` : '';
  return `[Tool outputs summary]\nCount: ${items.length}\n${idLine}${summary.trim()}`;
}

/** The message the summarizer sees for one result: its output clipped head+tail. */
function clippedCopy(m: Message, item: ToolItem, runes: number): Message {
  return {
    id: m.id,
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: item.callId,
        name: item.name,
        output: trimTextWithTail(item.text.trim() || '(empty output)', runes),
        ...(item.isError ? { isError: true } : {}),
      },
    ],
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`summarizer timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function createToolArchiving(options: ToolArchivingOptions = {}): Stage {
  const o = parseOptions(toolArchivingOptionsSchema, options, 'toolArchiving');
  const d = TOOL_ARCHIVING_DEFAULTS;
  const cutoff = o.cutoff ?? d.cutoff;
  const strategy = o.strategy ?? 'llm';
  const variant = o.variant ?? 'sync';
  const batchSize = o.batchSize ?? d.batchSize;
  const maxBatches = o.maxBatches ?? d.maxBatches;
  const timeoutMs = o.timeoutMs ?? d.timeoutMs;
  const placement = o.placement ?? 'end';
  const name = 'tool-archiving';

  return {
    name,
    // Between steps (`pipeline.ahead`): what archiving any visible result will hand out — its archived
    // copy, its summary (heuristic, one per result) and the stub sent in its place — made, counted and
    // digested now, so that the step that archives dozens of results at once finds them all kept.
    ahead(messages, ctx) {
      if (cutoff <= 0 || strategy !== 'heuristic' || variant !== 'sync') return;
      const calls = indexToolCalls(messages);
      const view = messages.map((m) => {
        if (!visibleTool(m) || !archivable(m, calls, ctx.excludeTools)) return m;
        const summary = summaryMessage('', summaryParts(m, itemOf(m, calls)));
        const copy = archiveToolResult(m);
        ctx.counter.countMessage(summary);
        ctx.counter.countMessage(copy);
        messageDigest(summary);
        return copy;
      });
      for (const m of toModelView(view)) {
        ctx.counter.countMessage(m);
        messageDigest(m);
      }
    },
    async run(messages: readonly Message[], ctx: StageContext): Promise<StageResult> {
      if (cutoff <= 0 || strategy === 'off') return noop(name, messages, ctx, 'disabled');
      let visible = 0;
      // An empty result the default preset leaves alone is not counted either: it takes no room.
      for (const m of messages) if (visibleTool(m) && !skipEmpty(m, ctx)) visible++;
      if (visible <= cutoff) return noop(name, messages, ctx, `${visible} visible tool results ≤ ${cutoff}`);
      const calls = indexToolCalls(messages);
      const queue: number[] = [];
      messages.forEach((m, i) => {
        if (visibleTool(m) && archivable(m, calls, ctx.excludeTools) && !skipEmpty(m, ctx)) queue.push(i);
      });
      const limit =
        variant === 'sync' ? visible - cutoff : Math.min(visible - cutoff, batchSize * maxBatches);
      const chosen = queue.slice(0, Math.max(0, limit));
      if (chosen.length === 0)
        return noop(name, messages, ctx, 'only pinned or excluded results are visible');
      const usage = { inputTokens: 0, outputTokens: 0 };

      // The request is built only for the LLM strategy (its clipped copies cost a pass over each output).
      const ask = async (
        build: () => Omit<SummarizeRequest, 'preset' | 'signal'>,
      ): Promise<string | undefined> => {
        if (strategy !== 'llm') return undefined;
        try {
          const full: SummarizeRequest = { ...build(), preset: ctx.preset };
          if (ctx.signal) full.signal = ctx.signal;
          const result = await withTimeout(ctx.summarizer.summarize(full), timeoutMs);
          if (result.usage) {
            usage.inputTokens += result.usage.inputTokens;
            usage.outputTokens += result.usage.outputTokens;
          }
          const out = result.summary.trim();
          return out === '' ? undefined : out;
        } catch {
          return undefined;
        }
      };

      const output = messages.slice();
      const journal: JournalEntry[] = [];
      /** Summaries by the index they follow (`in-place`), or at the end. */
      const inserts = new Map<number, Message[]>();
      const groups: number[][] = [];
      if (variant === 'sync') for (const i of chosen) groups.push([i]);
      else for (let k = 0; k < chosen.length; k += batchSize) groups.push(chosen.slice(k, k + batchSize));

      for (const group of groups) {
        const items = group.map((i) => itemOf(messages[i]!, calls));
        let text: string | Message['parts'];
        if (variant === 'sync') {
          const item = items[0]!;
          const llm = await ask(() => ({
            purpose: 'tool-result',
            messages: [clippedCopy(messages[group[0]!]!, item, d.llmInputRunes)],
            maxOutputChars: d.llmOutputRunes,
          }));
          text =
            llm !== undefined
              ? toolSummaryText(item, trimRunes(llm, d.llmOutputRunes))
              : summaryParts(messages[group[0]!]!, item);
        } else {
          const llm = await ask(() => ({
            purpose: 'tool-batch',
            messages: group.map((i, k) => clippedCopy(messages[i]!, items[k]!, d.batchItemRunes)),
            maxOutputChars: d.batchOutputRunes,
          }));
          text = toolBatchSummaryText(
            items,
            llm !== undefined ? trimRunes(llm, d.batchOutputRunes) : heuristicBatchSummary(items),
          );
        }
        // With recall on, the digest names what it stands for as the call that reads it back whole.
        const ref = recallRef(
          ctx,
          group.map((i) => messages[i]!),
        );
        const note = rereadNote(ref, 'whole output');
        if (note !== '')
          text = typeof text === 'string' ? `${text}\n${note}` : [...text, { type: 'text', text: note }];
        const summary = summaryMessage(ctx.ids.next('toolsum'), text);
        let after = messages.length - 1;
        if (placement === 'in-place') {
          after = group.at(-1)!;
          while (after + 1 < messages.length && messages[after + 1]!.role === 'tool') after++;
        }
        inserts.set(after, [...(inserts.get(after) ?? []), summary]);
        for (const i of group) {
          const m = messages[i]!;
          output[i] = archiveToolResult(m);
          journal.push({
            stage: name,
            action: 'archived',
            messageId: m.id,
            replacementId: summary.id,
            tokensBefore: ctx.counter.countMessage(m),
            tokensAfter: 0,
            location: SESSION_LOG_LOCATION,
            recover: `${callerRecover(m.id, true)} (kind tool_result_archived)`,
            ...(ref !== undefined ? { ref } : {}),
          });
        }
        journal.push({
          stage: name,
          action: 'inserted',
          messageId: summary.id,
          tokensBefore: 0,
          tokensAfter: ctx.counter.countMessage(summary),
          location: SESSION_LOG_LOCATION,
          recover: 'a digest ctxkit added; nothing to recover',
        });
      }
      const final: Message[] = [];
      output.forEach((m, i) => {
        final.push(m);
        const extra = inserts.get(i);
        if (extra) final.push(...extra);
      });
      const result = applied(
        name,
        messages,
        final,
        ctx,
        journal,
        `archived ${chosen.length} tool result(s) (${variant}, ${strategy})`,
      );
      if (usage.inputTokens + usage.outputTokens > 0) result.report.summarizerUsage = usage;
      return result;
    },
  };
}
