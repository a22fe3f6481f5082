/**
 * The counter every pipeline counts with: a count is computed once per content, not once per object.
 *
 * Two layers. Per message object, then per parts array (`WeakMap`s, gone with them): the count with a
 * shallow picture of what it was computed from (role, name, meta and `meta.agentVisible`, the parts
 * array and each part's type, name and content field), checked on every hit, so a message changed in
 * place (a part's text or output replaced, a part added, the message hidden) is counted again.
 * Another message object on the same parts (a stage's copy, a digest a later run hands out again)
 * hits when its role, name and meta entries are the same; an archived copy and its original, which
 * share their parts, keep one entry each per object. Not seen: a value
 * changed inside a tool call's `args` object (ctxkit never edits in place; stages build new
 * messages). Per content (a bounded map keyed by the message's JSON): a message rebuilt with the
 * same content (a stage's copy, a new run's input parsed again) is not counted again; a hidden
 * message (`agentVisible: false`, counted 0 by every built-in counter) is cached per object only. Texts
 * (`countText`: system prompts, tool schemas, summaries) are cached by content the same way.
 *
 * Safe because a counter's count is a function of what the key holds: the role, name, meta and parts
 * of a message (`TokenCounter` asks no more). Memory: the content keys are copies, so each map holds at
 * most `maxChars` characters (oldest first out) and content larger than an eighth of that is not kept.
 */
import type { Message, Part } from '../messages/types.ts';
import type { TokenCounter } from '../ports.ts';

export interface CountCacheOptions {
  /** Characters of content keys each content-keyed map may hold. @default 4_000_000 */
  maxChars?: number;
}

/** The field of a part that holds its content (what a counter reads besides the type). */
function content(p: Part): unknown {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return p.text;
    case 'tool-result':
      return p.output;
    case 'tool-call':
      return p.args;
    case 'opaque':
      return p.value;
    case 'tool-approval':
      return p.approved;
    default:
      return p.data ?? p.url;
  }
}

/** The field holding a part's text, when it has one (a tool output that is text included). */
const contentField = (p: Part) => (p.type === 'tool-result' ? 'output' : 'text');

/**
 * A message's content key: its JSON, except that the longest text it holds (a part's `text` or a
 * tool's `output`), when it has 1,024 characters or more, is left out of the JSON (`null` in its place,
 * its part's index after the parts) and appended after a NUL as it is. Serializing such a string
 * (escaping every line break of a 70 KB output) costs more than joining it; the key still holds the
 * whole content, and a JSON text ends where its brackets close, so no two contents share a key.
 */
function contentKey(m: Message): string {
  let at = -1;
  let longest = '';
  m.parts.forEach((p, i) => {
    const c = (p as unknown as Record<string, unknown>)[contentField(p)];
    if (typeof c === 'string' && c.length > longest.length) {
      longest = c;
      at = i;
    }
  });
  const head = [m.role, m.name ?? null, m.meta ?? null];
  if (longest.length < 1024) return JSON.stringify([...head, m.parts]);
  const parts: unknown[] = m.parts.slice();
  parts[at] = { ...m.parts[at], [contentField(m.parts[at]!)]: null };
  return `${JSON.stringify([...head, parts, at])}\u0000${longest}`;
}

/**
 * What a message's count was computed from, flattened in a fixed order and compared with `===`: the
 * role, name, meta object and its `agentVisible`, the parts array, its length, and per part the part,
 * its type, name and content. Direct reads only, so the check on every hit costs nanoseconds.
 */
function picture(m: Message): unknown[] {
  const out: unknown[] = [m.role, m.name, m.meta, m.meta?.agentVisible, m.parts, m.parts.length];
  for (const p of m.parts) out.push(p, p.type, (p as { name?: string }).name, content(p));
  return out;
}

/** Same keys holding the same values (`===`): two meta objects a counter cannot tell apart. */
function sameMeta(a: Message['meta'], b: Message['meta']): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/**
 * `picture(m)` equals `seen`, without building it; `seen` may be the picture of another message on
 * the same parts array, whose meta is another object with the same entries.
 */
function unchanged(m: Message, seen: readonly unknown[]): boolean {
  const parts = m.parts;
  if (
    seen[0] !== m.role ||
    seen[1] !== m.name ||
    !sameMeta(seen[2] as Message['meta'], m.meta) ||
    seen[3] !== m.meta?.agentVisible ||
    seen[4] !== parts ||
    seen[5] !== parts.length
  )
    return false;
  for (let i = 0, j = 6; i < parts.length; i++, j += 4) {
    const p = parts[i]!;
    if (
      seen[j] !== p ||
      seen[j + 1] !== p.type ||
      seen[j + 2] !== (p as { name?: string }).name ||
      seen[j + 3] !== content(p)
    )
      return false;
  }
  return true;
}

/** A bounded map from content to count: insertion order, the oldest out past `maxChars` of keys. */
function contentMap(maxChars: number) {
  const map = new Map<string, number>();
  let chars = 0;
  return {
    get: (key: string) => map.get(key),
    set(key: string, n: number) {
      if (key.length > maxChars / 8 || map.has(key)) return;
      map.set(key, n);
      chars += key.length;
      for (const k of map.keys()) {
        if (chars <= maxChars) break;
        map.delete(k);
        chars -= k.length;
      }
    },
  };
}

/** Caches `countMessage` and `countText` by content (see the file comment). Idempotent. */
export function memoizeCounter(counter: TokenCounter, options: CountCacheOptions = {}): TokenCounter {
  if ((counter as { memoized?: boolean }).memoized) return counter;
  const maxChars = options.maxChars ?? 4_000_000;
  const byObject = new WeakMap<Message, { count: number; seen: unknown[] }>();
  const byParts = new WeakMap<Message['parts'], { count: number; seen: unknown[] }>();
  const messages = contentMap(maxChars);
  const texts = contentMap(maxChars);
  return {
    name: counter.name,
    memoized: true,
    countText(text) {
      let n = texts.get(text);
      if (n === undefined) {
        n = counter.countText(text);
        texts.set(text, n);
      }
      return n;
    },
    countMessage(message) {
      const hit = byObject.get(message);
      if (hit && unchanged(message, hit.seen)) return hit.count;
      // Another message object on the same parts (a stage's copy, a digest a later run hands out
      // again): the same count when its role, name and meta entries are the same too.
      const shared = byParts.get(message.parts);
      if (shared && unchanged(message, shared.seen)) {
        byObject.set(message, shared);
        return shared.count;
      }
      // A hidden message (an archived result) is not keyed by its content: the counters count it 0
      // at once, and its JSON would cost what counting the visible original did.
      const key = message.meta?.agentVisible !== false && contentKey(message);
      let n = key ? messages.get(key) : undefined;
      if (n === undefined) {
        n = counter.countMessage(message);
        if (key) messages.set(key, n);
      }
      const entry = { count: n, seen: picture(message) };
      byObject.set(message, entry);
      byParts.set(message.parts, entry);
      return n;
    },
  } as TokenCounter;
}
