/**
 * Deduplication of superseded tool results (002 §4.2). Three tiers, first match wins, scanning
 * oldest → newest against indexes built newest → oldest:
 * 1. exact: a read tool (file_read, grep, glob) whose tool + sorted args + result recurs later →
 *    `[Superseded — identical result returned by later call]`;
 * 2. stale read: a file_read of a path re-read later with a write (file_edit, file_write) to that path
 *    strictly between → `[Superseded — file was re-read after modification]`;
 * 3. grep subsumed: a grep on a file path that a later message file_reads →
 *    `[Superseded — content included in later file_read of {basename}]`.
 * Results already starting with `[Superseded` or `[Old ` are skipped everywhere. Tool names map to
 * roles so Claude Code's `Read`/`Grep`/`Glob`/`Edit`/`Write`/`MultiEdit` work too (default mode).
 * With recall on, a marker ends with the call that reads the superseded message back whole
 * (`[Superseded — …; whole: reread('m…')]`): the same history gives the same marker.
 *
 * Paths are normalised by string only (core has no file system): `.`/`..` segments and repeated
 * slashes are resolved lexically; no `realpath`, so symlinks and relative-vs-absolute spellings of
 * one file are not unified. Pass `normalizePath` / `isDirectory` to plug in a real file system.
 */
import * as z from 'zod/mini';
import { hashText } from '../../messages/digest.ts';
import { outputText } from '../../messages/text.ts';
import type { JsonValue, Message, ToolCallPart, ToolResultPart } from '../../messages/types.ts';
import type { PrefixWatch } from '../engine/incremental.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import { closeWithRef, recallRef } from './recall-hints.ts';
import {
  applied,
  indexToolCalls,
  isUntouchable,
  noop,
  parseOptions,
  replaceParts,
  resultArgs,
  resultToolName,
  SESSION_LOG_LOCATION,
  type SyncStage,
  sessionLogRecover,
} from './stage-kit.ts';

export const SUPERSEDED_IDENTICAL = '[Superseded — identical result returned by later call]';
export const SUPERSEDED_STALE = '[Superseded — file was re-read after modification]';
export function supersededByRead(basename: string): string {
  return `[Superseded — content included in later file_read of ${basename}]`;
}

export type DedupRole = 'read' | 'grep' | 'glob' | 'write';
export interface DedupTool {
  role: DedupRole;
  /** Argument holding the path. */
  pathArg: string;
}

/** 002's tool names. */
export const KOSMOKRATOR_DEDUP_TOOLS: Readonly<Record<string, DedupTool>> = {
  file_read: { role: 'read', pathArg: 'path' },
  grep: { role: 'grep', pathArg: 'path' },
  glob: { role: 'glob', pathArg: 'path' },
  file_edit: { role: 'write', pathArg: 'path' },
  file_write: { role: 'write', pathArg: 'path' },
};

/** 002's names plus Claude Code's. */
export const DEFAULT_DEDUP_TOOLS: Readonly<Record<string, DedupTool>> = {
  ...KOSMOKRATOR_DEDUP_TOOLS,
  Read: { role: 'read', pathArg: 'file_path' },
  Grep: { role: 'grep', pathArg: 'path' },
  Glob: { role: 'glob', pathArg: 'path' },
  Edit: { role: 'write', pathArg: 'file_path' },
  Write: { role: 'write', pathArg: 'file_path' },
  MultiEdit: { role: 'write', pathArg: 'file_path' },
};

const fn = <T>() => z.custom<T>((v) => typeof v === 'function', { message: 'expected a function' });

export const dedupOptionsSchema = z.strictObject({
  /** `kosmokrator` knows only 002's tool names; `default` also Claude Code's. @default 'default' */
  mode: z.optional(z.enum(['default', 'kosmokrator'])),
  /** Tool name → role and path argument; replaces the mode's table. */
  tools: z.optional(
    z.record(
      z.string(),
      z.strictObject({
        role: z.enum(['read', 'grep', 'glob', 'write']),
        pathArg: z.string().check(z.minLength(1)),
      }),
    ),
  ),
  /** Path normalisation. @default lexical (see file comment) */
  normalizePath: z.optional(fn<(path: string) => string>()),
  /** Whether a grep path is a directory (tier 3 skips directories). @default ends with `/`, or `.`/`/` */
  isDirectory: z.optional(fn<(path: string) => boolean>()),
});

export type DedupOptions = z.input<typeof dedupOptionsSchema>;

/** Resolves `.`, `..` and repeated slashes without touching a file system. */
export function normalizePathLexically(path: string): string {
  if (path === '') return '';
  const absolute = path.startsWith('/');
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (segments.length > 0 && segments.at(-1) !== '..') segments.pop();
      else if (!absolute) segments.push('..');
    } else segments.push(s);
  }
  const out = (absolute ? '/' : '') + segments.join('/');
  return out === '' ? (absolute ? '/' : '.') : out;
}

/** PHP `basename`: the last path segment, trailing slashes ignored. */
export function pathBasename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function defaultIsDirectory(raw: string, normalized: string): boolean {
  return raw.endsWith('/') || normalized === '.' || normalized === '/';
}

function sortedJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(value[k]!)}`).join(',')}}`;
}

/** Already replaced by dedup or pruning. */
export function isClearedResult(text: string): boolean {
  return text.startsWith('[Superseded') || text.startsWith('[Old ');
}

/**
 * Output text and its hash key (`hashText`; equality is confirmed on the text itself before
 * superseding) per result part; parts are never mutated, so a pre-flight re-hashes only new ones.
 */
const digests = new WeakMap<ToolResultPart, { text: string; key: string }>();
function digest(part: ToolResultPart): { text: string; key: string } {
  let d = digests.get(part);
  if (!d) {
    const text = outputText(part.output);
    d = { text, key: hashText(text) };
    digests.set(part, d);
  }
  return d;
}

const argKeys = new WeakMap<ToolCallPart, string>();
function argKey(call: ToolCallPart | undefined, args: Readonly<Record<string, JsonValue>>): string {
  if (!call) return sortedJson(args as JsonValue);
  let k = argKeys.get(call);
  if (k === undefined) {
    k = sortedJson(args as JsonValue);
    argKeys.set(call, k);
  }
  return k;
}

/** What never changes for a result part (given its call). */
interface Fixed {
  tool: string;
  spec: DedupTool;
  path: string;
  rawPath: string;
  signature: string;
  text: string;
}

interface Entry {
  fixed: Fixed;
  msg: number;
  part: number;
  touchable: boolean;
}

export interface DedupStage extends SyncStage {
  /**
   * A watch for `prefixStable`: from the new messages alone it tells whether a result among them may
   * supersede an earlier one (same signature; a re-read after a write; a read after a grep of the path).
   */
  watch(): PrefixWatch;
}

export function createDedup(options: DedupOptions = {}): DedupStage {
  const o = parseOptions(dedupOptionsSchema, options, 'dedup');
  const tools = o.tools ?? (o.mode === 'kosmokrator' ? KOSMOKRATOR_DEDUP_TOOLS : DEFAULT_DEDUP_TOOLS);
  const normalize = o.normalizePath ?? normalizePathLexically;
  const isDirectory = (raw: string, normalized: string) =>
    o.isDirectory ? o.isDirectory(normalized) : defaultIsDirectory(raw, normalized);
  const name = 'dedup';

  /** Cached per result part, so a pre-flight only describes new parts. */
  const infos = new WeakMap<ToolResultPart, { call: ToolCallPart | undefined; fixed: Fixed | null }>();
  function describe(
    p: ToolResultPart,
    call: ToolCallPart | undefined,
    calls: ReadonlyMap<string, ToolCallPart>,
  ): { call: ToolCallPart | undefined; fixed: Fixed | null } {
    const tool = resultToolName(p, calls);
    const spec = tool !== undefined ? tools[tool] : undefined;
    if (!tool || !spec) return { call, fixed: null };
    const { text, key } = digest(p);
    if (isClearedResult(text)) return { call, fixed: null };
    const args = resultArgs(p, calls);
    const rawArg = args[spec.pathArg];
    const rawPath = typeof rawArg === 'string' ? rawArg : '';
    return {
      call,
      fixed: {
        tool,
        spec,
        rawPath,
        path: rawPath === '' ? '' : normalize(rawPath),
        signature: `${tool}:${argKey(call, args)}:${key}`,
        text,
      },
    };
  }

  /** What dedup reads from a result part, given the calls it may answer. */
  function fixedOf(p: ToolResultPart, calls: ReadonlyMap<string, ToolCallPart>): Fixed | null {
    const call = calls.get(p.callId);
    let info = infos.get(p);
    if (info === undefined || info.call !== call) {
      info = describe(p, call, calls);
      infos.set(p, info);
    }
    return info.fixed;
  }

  /**
   * The index of a watch: enough to tell whether a new result supersedes an earlier one. Untouchable
   * results are indexed too (it only errs towards running the stage).
   */
  function watch(): PrefixWatch {
    let calls = new Map<string, ToolCallPart>();
    let answered = new Set<string>();
    let signatures = new Set<string>();
    let read = new Set<string>();
    let grepped = new Set<string>();
    /** Paths written after a read of them: a new read makes that read stale. */
    let writtenAfterRead = new Set<string>();
    /**
     * The last `learn` stopped at a message it flagged (a reused call id, or a result that would
     * supersede an untouchable one): the stage runs every time until a full run learns a clean input.
     */
    let blind = false;

    /** Takes in `m`; true when it may give dedup something to do. */
    const take = (m: Message): boolean => {
      for (const p of m.parts)
        if (p.type === 'tool-call') {
          // An id that earlier results answer (reused, or the result came first) changes what they read.
          if (answered.has(p.id)) return true;
          calls.set(p.id, p);
        }
      if (m.meta?.agentVisible === false) return false;
      for (const p of m.parts) {
        if (p.type !== 'tool-result') continue;
        answered.add(p.callId);
        const f = fixedOf(p, calls);
        if (f === null) continue;
        const role = f.spec.role;
        if (role !== 'write') {
          if (signatures.has(f.signature)) return true;
          signatures.add(f.signature);
        }
        if (f.path === '') continue;
        if (role === 'read') {
          if (writtenAfterRead.has(f.path) || grepped.has(f.path)) return true;
          read.add(f.path);
        } else if (role === 'write') {
          if (read.has(f.path)) writtenAfterRead.add(f.path);
        } else if (role === 'grep' && !isDirectory(f.rawPath, f.path)) grepped.add(f.path);
      }
      return false;
    };

    return {
      affects(input, from) {
        if (blind) return true;
        for (let i = from; i < input.length; i++) if (take(input[i]!)) return true;
        return false;
      },
      learn(input) {
        calls = new Map();
        answered = new Set();
        signatures = new Set();
        read = new Set();
        grepped = new Set();
        writtenAfterRead = new Set();
        blind = false;
        // A full run changed nothing: what `take` flags here is untouchable or a reused call id, and
        // the index stops at it (blind until the next full run).
        for (const m of input)
          if (take(m)) {
            blind = true;
            return;
          }
      },
    };
  }

  return {
    name,
    watch,
    run(messages: readonly Message[], ctx: StageContext): StageResult {
      if (messages.length < 2) return noop(name, messages, ctx, 'fewer than 2 messages');
      const calls = indexToolCalls(messages);
      const entries: Entry[] = [];
      for (let mi = 0; mi < messages.length; mi++) {
        const m = messages[mi]!;
        if (m.meta?.agentVisible === false) continue; // archived: the agent no longer sees it
        for (let pi = 0; pi < m.parts.length; pi++) {
          const p = m.parts[pi]!;
          if (p.type !== 'tool-result') continue;
          const fixed = fixedOf(p, calls);
          if (fixed === null) continue;
          entries.push({ fixed, msg: mi, part: pi, touchable: !isUntouchable(m, p, calls, ctx) });
        }
      }
      // Index pass, newest → oldest (last result of a message first).
      const latestBySig = new Map<string, Entry>();
      const latestRead = new Map<string, Entry>();
      const writes = new Map<string, number[]>();
      for (let k = entries.length - 1; k >= 0; k--) {
        const e = entries[k]!;
        const f = e.fixed;
        if (f.spec.role !== 'write' && !latestBySig.has(f.signature)) latestBySig.set(f.signature, e);
        if (f.spec.role === 'read' && f.path !== '' && !latestRead.has(f.path)) latestRead.set(f.path, e);
        if (f.spec.role === 'write' && f.path !== '') {
          const list = writes.get(f.path);
          if (list) list.push(e.msg);
          else writes.set(f.path, [e.msg]);
        }
      }
      // Replace pass, oldest → newest.
      const replacements = new Map<number, Map<number, string>>();
      for (const e of entries) {
        const f = e.fixed;
        if (!e.touchable || f.spec.role === 'write') continue;
        let marker: string | undefined;
        const same = latestBySig.get(f.signature);
        if (same !== undefined && same !== e && same.fixed.text === f.text) marker = SUPERSEDED_IDENTICAL;
        else if (f.spec.role === 'read' && f.path !== '') {
          const latest = latestRead.get(f.path);
          if (latest && latest !== e && (writes.get(f.path) ?? []).some((w) => w > e.msg && w < latest.msg))
            marker = SUPERSEDED_STALE;
        }
        if (!marker && f.spec.role === 'grep' && f.path !== '' && !isDirectory(f.rawPath, f.path)) {
          const latest = latestRead.get(f.path);
          if (latest && latest.msg > e.msg) marker = supersededByRead(pathBasename(f.path));
        }
        if (!marker) continue;
        const perMessage = replacements.get(e.msg) ?? new Map<number, string>();
        perMessage.set(e.part, marker);
        replacements.set(e.msg, perMessage);
      }
      if (replacements.size === 0) return noop(name, messages, ctx, 'nothing superseded');
      const output = messages.slice();
      const journal: JournalEntry[] = [];
      let count = 0;
      for (const [mi, parts] of replacements) {
        const m = messages[mi]!;
        // With recall on, the marker ends with the call that reads the superseded message back whole.
        const ref = recallRef(ctx, [m]);
        const next = replaceParts(
          m,
          new Map(
            [...parts].map(([pi, text]) => [
              pi,
              { ...(m.parts[pi] as ToolResultPart), output: closeWithRef(text, ref) },
            ]),
          ),
        );
        output[mi] = next;
        count += parts.size;
        journal.push({
          stage: name,
          action: 'replaced',
          messageId: m.id,
          tokensBefore: ctx.counter.countMessage(m),
          tokensAfter: ctx.counter.countMessage(next),
          location: SESSION_LOG_LOCATION,
          recover: sessionLogRecover(m.id),
          ...(ref !== undefined ? { ref } : {}),
        });
      }
      return applied(name, messages, output, ctx, journal, `${count} superseded result(s)`);
    },
  };
}
