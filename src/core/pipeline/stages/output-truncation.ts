/**
 * Tool-output truncation at arrival (SEED-RULES §4.1, §5.2, §1.5): one arriving tool result is cut by
 * lines / bytes / chars, after its full text was spilled to a `BlobStore`, with a notice saying where
 * it went and how to read it back. `truncate()` handles one result; as a `Stage` it handles the
 * results that arrived since the last assistant message (or all results, `scope: 'all'`). A message
 * it changed carries `meta.truncatedAtArrival`, so a second run leaves it alone.
 */
import * as z from 'zod/mini';
import { hashText } from '../../messages/digest.ts';
import { outputText } from '../../messages/text.ts';
import type { JsonValue, Message, ToolResultPart } from '../../messages/types.ts';
import type { BlobInfo, BlobStore, Clock, IdGenerator } from '../../ports.ts';
import { rereadHint } from '../../recall/ref.ts';
import { pyJsonDumps } from '../../tokens/py-json.ts';
import { LIMITS } from '../limits.ts';
import { truncateCowagent } from '../presets/cowagent/output-truncation.ts';
import { truncateKosmokrator } from '../presets/kosmokrator/output-truncation.ts';
import { truncateTiancai } from '../presets/tiancai/output-truncation.ts';
import type { JournalEntry, Stage, StageContext, StageResult } from '../types.ts';
import { truncateDefault } from './output-truncation-modes.ts';
import { recallRef } from './recall-hints.ts';
import {
  applied,
  indexToolCalls,
  isUntouchable,
  noop,
  parseOptions,
  replaceParts,
  SESSION_LOG_LOCATION,
  sessionLogRecover,
} from './stage-kit.ts';
import type { ModeInput, ModeOutput, SpillOutcome } from './truncation-mode.ts';

export type OutputTruncationMode = 'default' | 'kosmokrator' | 'tiancai' | 'cowagent';

export const outputTruncationOptionsSchema = z.strictObject({
  /** Which system to reproduce. @default 'default' */
  mode: z.optional(z.enum(['default', 'kosmokrator', 'tiancai', 'cowagent'])),
  /** Line limit (`0` disables it in `tiancai`). @default 2000 */
  maxLines: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.lines))),
  /** Byte limit. @default 51200 (`kosmokrator`: 50000) */
  maxBytes: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.chars))),
  /** Character (code point) limit. @default 204800 (`cowagent`: 50000; unused by `kosmokrator`, `default`) */
  maxChars: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.chars))),
  /** `tiancai`: runes above which the whole output is spilled and replaced by a pointer; 0 disables. @default 204800 */
  spillThreshold: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.chars))),
  /** `tiancai` line cut. @default 'head_tail' */
  truncateMode: z.optional(z.enum(['head_tail', 'head'])),
  /** `cowagent` per-tool line/byte cut. @default { bash: 'tail', read: 'head', grep: 'head' } */
  perTool: z.optional(z.record(z.string(), z.enum(['head', 'tail']))),
  /**
   * Which results the stage looks at: those after the last assistant message, all, or those not sent
   * yet (after the prefix the provider holds cached, `ctx.cache.frozen`; all when nothing is). @default 'latest'
   */
  scope: z.optional(z.enum(['latest', 'all', 'unsent'])),
  /** Prefix of spilled blob ids (`default` mode). @default '' */
  blobPrefix: z.optional(z.string()),
});

export type OutputTruncationOptions = z.input<typeof outputTruncationOptionsSchema>;

export interface ResolvedOutputTruncation {
  mode: OutputTruncationMode;
  maxLines: number;
  maxBytes: number;
  maxChars: number;
  spillThreshold: number;
  truncateMode: 'head_tail' | 'head';
  perTool: Readonly<Record<string, 'head' | 'tail'>>;
  scope: 'latest' | 'all' | 'unsent';
  blobPrefix: string;
}

export const OUTPUT_TRUNCATION_DEFAULTS = {
  maxLines: 2000,
  maxBytes: 51200,
  kosmokratorMaxBytes: 50000,
  maxChars: 204800,
  cowagentMaxChars: 50000,
  spillThreshold: 204800,
  perTool: { bash: 'tail', read: 'head', grep: 'head' },
} as const;

export function resolveOutputTruncation(options: OutputTruncationOptions = {}): ResolvedOutputTruncation {
  const o = parseOptions(outputTruncationOptionsSchema, options, 'outputTruncation');
  const mode = o.mode ?? 'default';
  const d = OUTPUT_TRUNCATION_DEFAULTS;
  return {
    mode,
    maxLines: o.maxLines ?? d.maxLines,
    maxBytes: o.maxBytes ?? (mode === 'kosmokrator' ? d.kosmokratorMaxBytes : d.maxBytes),
    maxChars: o.maxChars ?? (mode === 'cowagent' ? d.cowagentMaxChars : d.maxChars),
    spillThreshold:
      o.spillThreshold === undefined || o.spillThreshold < 0 ? d.spillThreshold : o.spillThreshold,
    truncateMode: o.truncateMode ?? 'head_tail',
    perTool: o.perTool ?? d.perTool,
    scope: o.scope ?? 'latest',
    blobPrefix: o.blobPrefix ?? '',
  };
}

/** What `truncate()` needs from the outside world. */
export interface ArrivalEnv {
  blobs?: BlobStore | undefined;
  clock: Clock;
  ids: IdGenerator;
}

export interface ArrivalOutcome {
  /** The input part itself when nothing changed. */
  part: ToolResultPart;
  changed: boolean;
  /** The spilled full output, when it was written. */
  blob?: BlobInfo;
  /** Why the spill failed, when it did. */
  spillError?: string;
  detail?: string;
}

export interface OutputTruncationStage extends Stage {
  readonly options: ResolvedOutputTruncation;
  /** Truncates one arriving tool result. `toolName` defaults to `part.name`; `args` are the call's arguments. */
  truncate(
    part: ToolResultPart,
    env: ArrivalEnv,
    toolName?: string,
    args?: JsonValue,
  ): Promise<ArrivalOutcome>;
}

/**
 * The blob id of a spilled output. `default`: the call id and a digest of the output, so that the same
 * history spills to the same blob and its notice reads the same bytes on every run (the prompt cache).
 */
function blobIdFor(o: ResolvedOutputTruncation, part: ToolResultPart, env: ArrivalEnv, text: string): string {
  if (o.mode === 'kosmokrator') return part.callId !== '' ? part.callId : env.ids.next('anon');
  if (o.mode === 'tiancai')
    return `tool_output_${env.clock.now()}000000${part.callId !== '' ? `_${part.callId}` : ''}`;
  const base = part.callId !== '' ? part.callId : 'anon';
  if (o.mode === 'default') return `${o.blobPrefix}${base}_${hashText(text).slice(0, 8)}`;
  return `${o.blobPrefix}${base}_${env.ids.next('out')}`;
}

async function truncateOne(
  o: ResolvedOutputTruncation,
  part: ToolResultPart,
  env: ArrivalEnv,
  toolName: string | undefined,
  args?: JsonValue,
): Promise<ArrivalOutcome> {
  const text =
    o.mode === 'cowagent' && typeof part.output !== 'string'
      ? pyJsonDumps(part.output)
      : outputText(part.output);
  let blob: BlobInfo | undefined;
  const spill = async (full: string): Promise<SpillOutcome> => {
    if (!env.blobs) return { ok: false, error: 'no blob store configured' };
    try {
      blob = await env.blobs.put(blobIdFor(o, part, env, full), full, { createdAt: env.clock.now() });
      return { ok: true, id: blob.id, location: blob.location, sha256: blob.sha256, size: blob.size };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
  const path =
    args !== null && typeof args === 'object' && !Array.isArray(args) && typeof args.path === 'string'
      ? args.path
      : undefined;
  const input: ModeInput = { text, isError: part.isError === true, toolName, path, spill };
  let out: ModeOutput;
  if (o.mode === 'kosmokrator') out = await truncateKosmokrator(input, o);
  else if (o.mode === 'tiancai') out = await truncateTiancai(input, { ...o, mode: o.truncateMode });
  else if (o.mode === 'cowagent') out = await truncateCowagent(input, o);
  else out = await truncateDefault(input, o);
  if (!out.changed) return { part, changed: false };
  const outcome: ArrivalOutcome = { part: { ...part, output: out.text }, changed: true };
  if (blob) outcome.blob = blob;
  if (out.spill && !out.spill.ok) outcome.spillError = out.spill.error;
  if (out.detail) outcome.detail = out.detail;
  return outcome;
}

/** Indices of the tool messages the stage looks at. */
function targets(
  messages: readonly Message[],
  scope: ResolvedOutputTruncation['scope'],
  ctx: StageContext,
): number[] {
  let from = scope === 'unsent' ? Math.min(ctx.cache?.frozen ?? 0, messages.length) : 0;
  if (scope === 'latest')
    for (let i = messages.length - 1; i >= 0; i--)
      if (messages[i]!.role === 'assistant') {
        from = i + 1;
        break;
      }
  const out: number[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.parts.some((p) => p.type === 'tool-result') && m.meta?.truncatedAtArrival === undefined)
      out.push(i);
  }
  return out;
}

export function createOutputTruncation(options: OutputTruncationOptions = {}): OutputTruncationStage {
  const o = resolveOutputTruncation(options);
  const name = 'output-truncation';
  return {
    name,
    options: o,
    truncate: (part, env, toolName, args) => truncateOne(o, part, env, toolName ?? part.name, args),
    async run(messages: readonly Message[], ctx: StageContext): Promise<StageResult> {
      const calls = indexToolCalls(messages);
      const env: ArrivalEnv = { blobs: ctx.blobs, clock: ctx.clock, ids: ctx.ids };
      let output: Message[] | undefined;
      const journal: JournalEntry[] = [];
      for (const i of targets(messages, o.scope, ctx)) {
        const m = messages[i]!;
        const replaced = new Map<number, ToolResultPart>();
        for (let pi = 0; pi < m.parts.length; pi++) {
          const p = m.parts[pi]!;
          if (p.type !== 'tool-result' || isUntouchable(m, p, calls, ctx)) continue;
          const call = calls.get(p.callId);
          const outcome = await truncateOne(o, p, env, p.name ?? call?.name, call?.args);
          if (!outcome.changed) continue;
          // With recall on, the cut output ends with the call that reads the whole message back.
          const ref = recallRef(ctx, [m]);
          const part =
            ref !== undefined && typeof outcome.part.output === 'string'
              ? { ...outcome.part, output: `${outcome.part.output}\n[whole: ${rereadHint(ref)}]` }
              : outcome.part;
          replaced.set(pi, part);
          const before = ctx.counter.countMessage(m);
          const entry: JournalEntry = outcome.blob
            ? {
                stage: name,
                action: 'spilled',
                messageId: m.id,
                tokensBefore: before,
                tokensAfter: 0,
                location: `blob:${outcome.blob.id}`,
                recover: `the full output of call ${p.callId} (${outcome.blob.size} bytes, SHA-256 ${outcome.blob.sha256}) is blob ${outcome.blob.id}: read ${outcome.blob.location}, or BlobStore.get / getRange for byte ranges`,
              }
            : {
                stage: name,
                action: 'truncated',
                messageId: m.id,
                tokensBefore: before,
                tokensAfter: 0,
                location: SESSION_LOG_LOCATION,
                recover: sessionLogRecover(m.id),
              };
          if (ref !== undefined) entry.ref = ref;
          journal.push(entry);
        }
        if (replaced.size === 0) continue;
        output ??= messages.slice();
        const next = replaceParts(m, replaced);
        next.meta = { ...m.meta, truncatedAtArrival: o.mode };
        output[i] = next;
        for (const e of journal) if (e.messageId === m.id) e.tokensAfter = ctx.counter.countMessage(next);
      }
      if (!output) return noop(name, messages, ctx, 'no oversized tool output');
      return applied(
        name,
        messages,
        output,
        ctx,
        journal,
        `${journal.length} tool output(s) truncated (${o.mode})`,
      );
    },
  };
}
