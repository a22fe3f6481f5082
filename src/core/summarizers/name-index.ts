/**
 * Which reference names hold which, for the lists a compaction writes (`distinctReferences`,
 * `fitReferences`): one trigram index of names for every list its owner (a summarizer, a compaction
 * stage) asks about. A compaction lists the same names twice (which to list, then how many fit) and
 * the next compaction lists most of them again (the previous summary is folded with them): each name
 * is numbered and its trigrams posted once, on the first list that holds it, so a list costs a lookup
 * per name, not an index of its own.
 *
 * The index only picks candidates — the names sharing a trigram — and each is checked with a real
 * substring test, so what else it holds never changes an answer. Bounded: past `MAX_NAMES` names or
 * `MAX_CHARS` characters it starts over.
 */

const MAX_NAMES = 25_000;
const MAX_CHARS = 500_000;

/**
 * A small-integer key for the three characters of `s` at `p`: exact below U+0400, a mix above. Two
 * trigrams sharing a key cost a useless check, never a wrong answer.
 */
export function trigram(s: string, p: number): number {
  return ((((s.charCodeAt(p) << 10) ^ s.charCodeAt(p + 1)) << 10) ^ s.charCodeAt(p + 2)) & 0x3fffffff;
}

/** Stride over a name's trigrams when looking for its rarest: about five looks, whatever its length. */
export function trigramStep(s: string): number {
  return Math.max(1, Math.floor((s.length - 2) / 5));
}

/**
 * Which references hold which: `first(i)` is the index of the first reference containing `refs[i]`
 * (itself, or an earlier equal one, included), `firstLonger(i)` that of the first longer one, or
 * `refs.length`.
 */
export interface Containment {
  first(i: number): number;
  firstLonger(i: number): number;
  /** `first(i) < i`: a reference before `refs[i]` holds it (candidates from `i` on are not checked). */
  heldBefore(i: number): boolean;
}

export interface NameIndex {
  /**
   * The containment of `refs`. The candidates are the names sharing the rarest trigram of `refs[i]`
   * (sampled as `trigramStep` says); references under three characters are compared with every other.
   */
  containment(refs: readonly string[]): Containment;
}

/**
 * Which names hold each trigram, on typed arrays: an open-addressing table of trigram keys, each with
 * a count and a chain of entries (name number, next entry), newest first. A compaction posts a few
 * thousand names of twenty-odd trigrams each; a map of arrays made an array per trigram and cost
 * ~120 ns per posting.
 */
class Postings {
  private bits = 12;
  private keys = new Int32Array(1 << this.bits).fill(-1);
  /** Per slot: the newest entry + 1 (0: none), and the number of entries. */
  head = new Int32Array(1 << this.bits);
  count = new Int32Array(1 << this.bits);
  private used = 0;
  /** Per entry: the name's number and the next (older) entry + 1. */
  name = new Int32Array(4096);
  next = new Int32Array(4096);
  private entries = 0;

  /** The slot of `key`, or -1 when it has no entry. */
  find(key: number): number {
    const mask = (1 << this.bits) - 1;
    for (let s = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits); ; s = (s + 1) & mask) {
      const k = this.keys[s]!;
      if (k === key) return s;
      if (k === -1) return -1;
    }
  }

  /** Posts name `id` under `key`, unless its newest entry there is `id` already. */
  add(key: number, id: number): void {
    let s = this.find(key);
    if (s < 0) {
      if ((this.used + 1) * 2 > this.keys.length) this.grow();
      const mask = (1 << this.bits) - 1;
      s = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
      while (this.keys[s] !== -1) s = (s + 1) & mask;
      this.keys[s] = key;
      this.used++;
    } else if (this.name[this.head[s]! - 1] === id) return;
    if (this.entries === this.name.length) {
      this.name = copyGrown(this.name);
      this.next = copyGrown(this.next);
    }
    this.name[this.entries] = id;
    this.next[this.entries] = this.head[s]!;
    this.head[s] = ++this.entries;
    this.count[s]!++;
  }

  private grow(): void {
    const old = { keys: this.keys, head: this.head, count: this.count };
    this.bits++;
    const size = 1 << this.bits;
    this.keys = new Int32Array(size).fill(-1);
    this.head = new Int32Array(size);
    this.count = new Int32Array(size);
    const mask = size - 1;
    for (let o = 0; o < old.keys.length; o++) {
      const key = old.keys[o]!;
      if (key === -1) continue;
      let s = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
      while (this.keys[s] !== -1) s = (s + 1) & mask;
      this.keys[s] = key;
      this.head[s] = old.head[o]!;
      this.count[s] = old.count[o]!;
    }
  }
}

function copyGrown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** A name index that keeps every name it is given (up to its bound), for the lists to come. */
export function createNameIndex(): NameIndex {
  let numbers = new Map<string, number>();
  let names: string[] = [];
  let postings = new Postings();
  let chars = 0;
  // Per name number: the list being asked about (`listOf === list`) and its first position there.
  let listOf = new Float64Array(1024);
  let firstAt = new Int32Array(1024);
  // Numbers the lists asked about; never reset, so a stale list cannot match a new one.
  let list = 0;
  // Per name number: the key of its rarest trigram when first asked about (-1: not yet). Its entries
  // only grow, and every name holding the name holds that trigram, so they stay a valid list of
  // candidates.
  let rarest = new Int32Array(1024).fill(-1);

  const clear = () => {
    numbers = new Map();
    names = [];
    postings = new Postings();
    chars = 0;
    listOf = new Float64Array(1024);
    firstAt = new Int32Array(1024);
    rarest = new Int32Array(1024).fill(-1);
  };

  const numberOf = (name: string): number => {
    const known = numbers.get(name);
    if (known !== undefined) return known;
    const id = names.length;
    names.push(name);
    numbers.set(name, id);
    chars += name.length;
    for (let p = 0; p + 3 <= name.length; p++) postings.add(trigram(name, p), id);
    if (id >= listOf.length) {
      const a = new Float64Array(listOf.length * 2);
      a.set(listOf);
      listOf = a;
      firstAt = copyGrown(firstAt);
      const r = new Int32Array(rarest.length * 2).fill(-1);
      r.set(rarest);
      rarest = r;
    }
    return id;
  };

  return {
    containment(refs) {
      const n = refs.length;
      let mine = -1;
      let idAt = new Int32Array(0);
      // Numbered on the first question (a list whose names the text spells out needs none), and
      // again if another list was asked about since.
      const prepare = () => {
        if (mine === list) return;
        let extra = 0;
        for (const r of refs) extra += r.length;
        if (names.length + n > MAX_NAMES || chars + extra > MAX_CHARS) clear();
        mine = ++list;
        idAt = new Int32Array(n);
        for (let j = 0; j < n; j++) {
          const id = numberOf(refs[j]!);
          idAt[j] = id;
          if (listOf[id] !== mine) {
            listOf[id] = mine;
            firstAt[id] = j;
          }
        }
      };
      // The smallest position below `bound` of a name holding x (a longer one when `longer`), or `bound`.
      const scan = (i: number, longer: boolean, bound = n): number => {
        const x = refs[i]!;
        const min = longer ? x.length + 1 : 0;
        if (x.length < 3) {
          for (let j = 0; j < bound; j++) {
            const y = refs[j]!;
            if (y.length >= min && y.includes(x)) return j;
          }
          return bound;
        }
        prepare();
        const self = idAt[i]!;
        // Slots move when the table grows: the rarest trigram is kept as its key.
        let best = rarest[self]! < 0 ? -1 : postings.find(rarest[self]!);
        if (best < 0) {
          for (let p = 0, step = trigramStep(x); p + 3 <= x.length; p += step) {
            const key = trigram(x, p);
            const slot = postings.find(key); // x itself is posted
            if (best < 0 || postings.count[slot]! < postings.count[best]!) {
              best = slot;
              rarest[self] = key;
            }
          }
        }
        let at = bound;
        for (let e = postings.head[best]!; e !== 0; e = postings.next[e - 1]!) {
          const id = postings.name[e - 1]!;
          if (listOf[id] !== mine) continue;
          const j = firstAt[id]!;
          if (j >= at) continue;
          const y = names[id]!;
          if (y.length >= min && y.includes(x)) at = j;
        }
        return at;
      };
      return {
        first: (i) => scan(i, false),
        firstLonger: (i) => scan(i, true),
        heldBefore: (i) => scan(i, false, i) < i,
      };
    },
  };
}

let shared: NameIndex | undefined;

/**
 * The process's name index, which the compaction stage and the deterministic summarizer share: a
 * compaction lists the summary's references, then the index's under it, mostly the same names, and
 * each is posted once instead of once per owner. Bounded as every index (it starts over past its
 * bound); what it holds never changes an answer.
 */
export function sharedNameIndex(): NameIndex {
  shared ??= createNameIndex();
  return shared;
}

/**
 * Where each trigram of `text` starts, on typed arrays (a long summary's index is built at every
 * compaction): `find(key)` gives the key's number `d`, whose positions are `positions[start[d]]` up to
 * `positions[start[d + 1]]` in increasing order, or -1 when the text has none.
 */
export interface TextPositions {
  readonly positions: Int32Array;
  readonly start: Int32Array;
  find(key: number): number;
}

export function textPositions(text: string): TextPositions {
  const total = Math.max(0, text.length - 2);
  let bits = 4;
  while (1 << bits < total * 2) bits++;
  const mask = (1 << bits) - 1;
  const shift = 32 - bits;
  // Open addressing over the keys: `table` holds 1 + a dense key number; `keys`, `count` are by number.
  const table = new Int32Array(mask + 1);
  const keys = new Int32Array(total);
  const count = new Int32Array(total + 1);
  const dense = new Int32Array(total);
  let used = 0;
  const slot = (key: number): number => {
    let s = Math.imul(key, 0x9e3779b1) >>> shift;
    for (;;) {
      const d = table[s]!;
      if (d === 0 || keys[d - 1] === key) return s;
      s = (s + 1) & mask;
    }
  };
  for (let p = 0; p < total; p++) {
    const key = trigram(text, p);
    const s = slot(key);
    if (table[s] === 0) {
      keys[used] = key;
      table[s] = ++used;
    }
    const d = table[s]! - 1;
    dense[p] = d;
    count[d]!++;
  }
  const start = new Int32Array(used + 1);
  for (let d = 0; d < used; d++) start[d + 1] = start[d]! + count[d]!;
  const positions = new Int32Array(total);
  const fill = start.slice(0, used);
  for (let p = 0; p < total; p++) positions[fill[dense[p]!]!++] = p;
  return { positions, start, find: (key) => table[slot(key)]! - 1 };
}
