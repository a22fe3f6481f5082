/**
 * The incremental context: what a framework hook (or any loop that resends its whole history) calls
 * instead of `pipeline.prepare`. The caller passes the history it has, every call; the context finds
 * what it has already taken in — by object identity, else by the core's content digest (the one the
 * proxy matches its session log with) — feeds only the new suffix to the pipeline on top of the
 * working context it keeps, and hands back the caller's own objects for every message no stage changed.
 *
 * How a history relates to the last one (`run.match`):
 * - `new`: the first call (or a context restored for another conversation).
 * - `continued`: the history extends the last one; the new suffix is fed.
 * - `unchanged`: nothing new and the same system, tools and dialect; the last run is returned as is.
 * - `from-send`: the history starts with what the context last returned (a framework that persisted
 *   the reduced view, `run.send` or `run.messages`); what follows it is fed.
 * - `rebased`: an edit or a rewind; the context goes back to the latest earlier call whose history is
 *   still a prefix of this one and feeds everything after it again.
 * - `restarted`: the history shares nothing usable with any earlier call; it is taken in from scratch.
 * No message is fed twice and none is skipped: the working context plus what is fed always stands for
 * exactly the caller's history.
 */
import { CtxError } from '../../errors.ts';
import { messageDigest, sameContent } from '../../messages/digest.ts';
import { messageSchema, parseWith } from '../../messages/schema.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { CALL_KEYS, CONTEXT_KEYS, checkDialect, checkKeys } from '../option-keys.ts';
import { createPipeline, type PrepareInput } from '../pipeline.ts';
import { INITIAL_STATE, type PipelineState } from '../types.ts';
import { checkModel } from './cache-state.ts';
import type {
  ContextCall,
  ContextOptions,
  ContextState,
  HistoryMatch,
  IncrementalContext,
} from './context-types.ts';
import type { PipelineRun } from './runner.ts';

export type {
  ContextCall,
  ContextOptions,
  ContextRun,
  ContextState,
  HistoryMatch,
  IncrementalContext,
} from './context-types.ts';

/** One call's outcome: what the pipeline kept, and the history length it stands for. */
interface Checkpoint {
  length: number;
  working: Message[];
  state: PipelineState;
  /** The last run, internal objects (undefined for a restored or initial point). */
  run?: PipelineRun;
  call?: ContextCall;
}

const sameTools = (a: readonly ToolDefinition[] | undefined, b: readonly ToolDefinition[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));

function sameCall(a: ContextCall | undefined, b: ContextCall): boolean {
  return (
    a !== undefined &&
    a.system === b.system &&
    a.dialect === b.dialect &&
    a.model === b.model &&
    sameTools(a.tools, b.tools)
  );
}

function checkState(s: unknown): ContextState {
  const fail = (what: string, path: string): never => {
    throw new CtxError('invalid_input', `expected ${what}`, { path: `state.${path}` });
  };
  if (typeof s !== 'object' || s === null) return fail('a context state from toJSON()', 'version');
  const c = s as Partial<ContextState>;
  if (c.version !== 1) fail('version 1', 'version');
  if (!Array.isArray(c.seen) || !c.seen.every((d) => typeof d === 'string'))
    fail('an array of digests', 'seen');
  if (!Array.isArray(c.working)) fail('an array of messages', 'working');
  for (const [i, m] of c.working!.entries()) parseWith(messageSchema, m, ['state', 'working', i]);
  const n = c.seen!.length;
  if (
    !Array.isArray(c.origin) ||
    c.origin.length !== c.working!.length ||
    !c.origin.every((o) => Number.isInteger(o) && o >= -1 && o < n)
  )
    fail(`one history position (-1 to ${n - 1}) per working message`, 'origin');
  if (typeof c.pipeline !== 'object' || c.pipeline === null) fail('a PipelineState', 'pipeline');
  return c as ContextState;
}

export function createContext(options: ContextOptions = {}): IncrementalContext {
  checkKeys(options, CONTEXT_KEYS, 'invalid_config');
  const { dialect, model, state: restored, checkpoints: keep = 8, ...pipelineOptions } = options;
  if (!Number.isInteger(keep) || keep < 1 || keep > 64)
    throw new CtxError('invalid_config', 'must be an integer from 1 to 64', { path: 'checkpoints' });
  checkModel(model, 'invalid_config');
  checkDialect(dialect, 'invalid_config');
  const pipeline = createPipeline(pipelineOptions);
  const initial: Checkpoint = { length: 0, working: [], state: INITIAL_STATE };

  /** The caller's history as last seen: its objects (absent after a restore) and their digests. */
  let seen: (Message | undefined)[] = [];
  /**
   * Per position, another object found to have the content of `seen[i]` (what the caller handed over
   * the call before, when it was rebuilt): a caller alternating between two sets of objects (its own
   * and a copy, or ctxkit's view and its raw history) is matched by identity, not compared each call.
   */
  let alt: (Message | undefined)[] = [];
  let seenDigest: (string | undefined)[] = [];
  /** The history position each object fed to the pipeline stands for. */
  const position = new WeakMap<Message, number>();
  /** Oldest first; the last one is the current working context. */
  let points: Checkpoint[] = [initial];

  if (restored !== undefined) {
    const s = checkState(restored);
    seen = new Array<Message | undefined>(s.seen.length);
    seenDigest = [...s.seen];
    s.working.forEach((m, i) => {
      if (s.origin[i]! >= 0) position.set(m, s.origin[i]!);
    });
    points = [initial, { length: s.seen.length, working: s.working, state: s.pipeline }];
  }

  const current = () => points[points.length - 1]!;
  /** A digest, or undefined for what is no message (the pipeline's validation names it when fed). */
  const digestOf = (m: unknown): string | undefined => {
    try {
      return messageDigest(m as Message);
    } catch {
      return undefined;
    }
  };
  /** Same content (what the model reads); what is no message is never the same. */
  const same = (a: unknown, b: Message): boolean => {
    try {
      return sameContent(a as Message, b);
    } catch {
      return false;
    }
  };
  const digestAt = (i: number): string => {
    let d = seenDigest[i];
    if (d === undefined) d = seenDigest[i] = messageDigest(seen[i]!);
    return d;
  };
  /** How many leading messages of `history` are the ones seen last time. */
  function commonPrefix(history: readonly Message[]): number {
    const n = Math.min(history.length, seenDigest.length);
    let k = 0;
    while (k < n) {
      const s = seen[k];
      const h = history[k];
      // A rebuilt object is compared with the one seen (unless it is the one seen before that); after
      // a restore only the digest is known.
      if (s !== undefined) {
        if (h !== s && (h !== alt[k] || h === undefined) && !same(h, s)) break;
      } else if (digestOf(h) !== seenDigest[k]) break;
      k++;
    }
    return k;
  }
  /** `history` becomes the history seen; its first `verified` messages have the content of the last. */
  function see(history: readonly Message[], verified: number): void {
    const next = new Array<Message | undefined>(history.length);
    for (let i = 0; i < verified; i++) next[i] = history[i] === seen[i] ? alt[i] : seen[i];
    alt = next;
    seen = history.slice();
  }
  /** Whether `history` starts with the messages of `list` (the last send or working context). */
  function startsWith(history: readonly Message[], list: readonly Message[]): boolean {
    if (list.length === 0 || list.length > history.length) return false;
    for (let i = 0; i < list.length; i++) if (!same(history[i], list[i]!)) return false;
    return true;
  }

  /**
   * The caller object each internal message was last found to have the same content as. A framework
   * that rebuilds its objects every call has them compared once, in `commonPrefix`: an internal message
   * last shown as `before[i]`, where `history[i]` matched `before[i]`, has `history[i]`'s content too.
   */
  const shown = new WeakMap<Message, Message>();
  /**
   * For an internal message a stage rewrote, the caller object it was last found to differ from: by
   * the same reasoning, it differs from a rebuilt `history[i]` matched against that one (compared once,
   * not on every call).
   */
  const unlike = new WeakMap<Message, Message>();
  /**
   * Per position of the history, the object fed to the pipeline for it (a caller object, or on a
   * re-base on the last send, ctxkit's). After every successful call, each message of the history
   * seen has the content of the one fed at its position: it was fed itself, or matched against the
   * history before, which had that content. So an internal message that is the one fed at its
   * position (no stage rewrote it) is handed back as the caller's object with no lookup or comparison.
   * Empty after a restore (the working context is then compared).
   */
  let fed: (Message | undefined)[] = [];
  /** What `commonPrefix` verified: `history[i]` has the content of `before[i]` for every `i < length`. */
  interface Verified {
    before: readonly (Message | undefined)[];
    length: number;
  }
  /** The caller's object for an internal one: the message of `history` it stands for, if unchanged. */
  function toCaller(
    history: readonly (Message | undefined)[],
    list: readonly Message[],
    verified: Verified | undefined,
  ): Message[] {
    const out = new Array<Message>(list.length);
    for (let j = 0; j < list.length; j++) {
      const m = list[j]!;
      const i = position.get(m);
      const own = i === undefined ? undefined : history[i];
      if (own === undefined || own === m || m === fed[i!]) {
        out[j] = own ?? m;
        continue;
      }
      const before = verified !== undefined && i! < verified.length ? verified.before[i!] : undefined;
      const last = shown.get(m);
      // `m` itself was the one seen at its position, or the caller object it was shown as.
      if (before === m || (last !== undefined && (last === own || last === before))) {
        if (last !== own) shown.set(m, own);
        out[j] = own;
        continue;
      }
      const differs = unlike.get(m);
      if (differs !== undefined && (differs === own || differs === before)) {
        if (differs !== own) unlike.set(m, own);
        out[j] = m;
      } else if (same(own, m)) {
        shown.set(m, own);
        out[j] = own;
      } else {
        unlike.set(m, own);
        out[j] = m;
      }
    }
    return out;
  }
  function view(
    run: PipelineRun,
    history: readonly (Message | undefined)[],
    match: HistoryMatch,
    fed: number,
    verified?: Verified,
  ) {
    return {
      ...run,
      messages: toCaller(history, run.messages, verified),
      send: toCaller(history, run.send, verified),
      match,
      fed,
    };
  }

  /** The pipeline input for one call (absent options stay absent). */
  function input(call: ContextCall, messages: Message[], state: PipelineState): PrepareInput {
    const d = call.dialect ?? dialect;
    const m = call.model ?? model;
    return {
      messages,
      state,
      ...(d !== undefined ? { dialect: d } : {}),
      ...(m !== undefined ? { model: m } : {}),
      ...(call.system !== undefined ? { system: call.system } : {}),
      ...(call.tools !== undefined ? { tools: call.tools } : {}),
      ...(call.signal !== undefined ? { signal: call.signal } : {}),
    };
  }

  function validate(history: readonly Message[]): void {
    if (!Array.isArray(history))
      throw new CtxError('invalid_input', 'expected an array of messages', { path: 'history' });
  }

  /** Where to start from for `history`, what of it to feed, and how long a prefix matched what was seen. */
  function plan(history: readonly Message[]): {
    from: Checkpoint;
    start: number;
    match: HistoryMatch;
    k: number;
    /** For `from-send`: the list the history starts with. */
    list?: readonly Message[];
  } {
    const last = current();
    const k = commonPrefix(history);
    if (seenDigest.length === 0 && last === initial) return { from: initial, start: 0, match: 'new', k };
    // The caller kept what the context returned instead of its raw history (when that is longer than
    // the raw history, repair added to it: the added messages are ctxkit's, not the caller's).
    const extended = k === seenDigest.length;
    for (const list of last.run ? [last.run.send, last.run.messages] : [last.working])
      if ((!extended || list.length > k) && startsWith(history, list)) {
        for (const [i, m] of list.entries()) position.set(m, i);
        points = [initial, { ...last, length: list.length }];
        return { from: points[1]!, start: list.length, match: 'from-send', k, list };
      }
    if (extended) return { from: last, start: k, match: 'continued', k };
    for (let i = points.length - 1; i >= 0; i--) {
      const p = points[i]!;
      if (p.length <= k) {
        points = points.slice(0, i + 1);
        return { from: p, start: p.length, match: p === initial ? 'restarted' : 'rebased', k };
      }
    }
    points = [initial];
    return { from: initial, start: 0, match: 'restarted', k };
  }

  function record(history: readonly Message[], k: number, run: PipelineRun, call: ContextCall) {
    const length = history.length;
    see(history, k);
    seenDigest.length = length;
    points.push({ length, working: run.messages, state: run.state, run, call });
    // Too many points: drop the one whose neighbours are closest, so the points stay spread over the
    // whole history (an edit far back still finds one) rather than bunched at its end.
    while (points.length > keep + 1) {
      let drop = 1;
      for (let i = 2; i < points.length - 1; i++)
        if (
          points[i + 1]!.length - points[i - 1]!.length <
          points[drop + 1]!.length - points[drop - 1]!.length
        )
          drop = i;
      points.splice(drop, 1);
    }
  }

  return {
    pipeline,
    async prepare(history, call = {}) {
      checkKeys(call, CALL_KEYS, 'invalid_input');
      validate(history);
      const last = current();
      const before = seen;
      if (
        last.run !== undefined &&
        history.length === seenDigest.length &&
        sameCall(last.call, call) &&
        commonPrefix(history) === history.length
      ) {
        see(history, history.length);
        return view(last.run, history, 'unchanged', 0, { before, length: history.length });
      }
      const { from, start, match, k, list } = plan(history);
      // Digests of the positions that are re-fed no longer describe what the context has seen.
      seenDigest.length = match === 'from-send' ? 0 : Math.min(seenDigest.length, start);
      const fresh = history.slice(start);
      fresh.forEach((m, i) => {
        if (typeof m !== 'object' || m === null)
          throw new CtxError('invalid_input', 'expected a message object', { path: `history[${start + i}]` });
        position.set(m, start + i);
      });
      const run = await pipeline.prepare(input(call, from.working.concat(fresh), from.state));
      record(history, k, run, call);
      // What each position was fed from now on: positions before `start` keep theirs (or, on a
      // re-base on the last send, that list's), the fed ones are the fed objects.
      if (list !== undefined) fed = list.slice();
      fed.length = start;
      for (let i = 0; i < fresh.length; i++) fed[start + i] = fresh[i];
      // Positions still mean what they meant unless the context re-based on its own last send.
      return view(
        run,
        history,
        match,
        fresh.length,
        match === 'from-send' ? undefined : { before, length: k },
      );
    },
    async recoverOverflow(error, call = {}) {
      const last = current();
      const run = await pipeline.recoverOverflow({ ...input(call, last.working, last.state), error });
      points[points.length - 1] = { ...last, working: run.messages, state: run.state, run, call };
      return { ...view(run, seen, 'continued', 0), retry: run.retry };
    },
    async compact(call = {}) {
      const last = current();
      const run = await pipeline.compact({
        ...input(call, last.working, last.state),
        ...(call.instructions !== undefined ? { instructions: call.instructions } : {}),
      });
      points[points.length - 1] = { ...last, working: run.messages, state: run.state, run, call };
      return view(run, seen, 'continued', 0);
    },
    ahead(call = {}) {
      const last = current();
      return pipeline.ahead(input(call, last.working, last.state));
    },
    state: () => current().state,
    toJSON() {
      const last = current();
      return {
        version: 1,
        seen: Array.from({ length: seenDigest.length }, (_, i) => digestAt(i)),
        working: last.working,
        origin: last.working.map((m) => position.get(m) ?? -1),
        pipeline: last.state,
      };
    },
  };
}
