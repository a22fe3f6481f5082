/**
 * Extra per-question features for the memory-levers harness (see ../memory-levers.ts): sentence
 * units, vectors centred on the conversation's mean with its top principal components removed, a
 * keyword side over WordNet expansions of the turns, and vectors of the turns without stopwords.
 */
import {
  type ChunkIndex,
  type ChunkRecord,
  type Conversation,
  chunkOf,
  conversationSource,
  createBm25Index,
  type Embedder,
  embedAll,
  type MemoryStore,
  queryTokens,
  ROLE,
  STOPWORDS,
  toFtsQuery,
  turnText,
  type UnitIndex,
  unitSource,
} from '../../src/core/index.ts';
import type { WordNet } from './wordnet.ts';

/** Sentences of a turn (and bracketed parts such as a shared photo's caption), two words or more. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+(?=\S)|\s+(?=\[)|(?<=\])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 2);
}

/**
 * Writes one `facts` unit per sentence of every turn with two sentences or more (`Speaker:
 * sentence`, embedded, covering its turn): sentence units in the slot of fact keys and model facts.
 */
export async function writeSentenceUnits(
  store: MemoryStore,
  conversation: Conversation,
  embedder: Embedder,
): Promise<number> {
  let written = 0;
  for (const session of conversation.sessions) {
    const pieces: { line: number; text: string }[] = [];
    for (const [i, t] of session.turns.entries()) {
      const sentences = sentencesOf(t.text);
      if (sentences.length >= 2)
        for (const s of sentences)
          pieces.push({ line: i + 1, text: turnText({ speaker: t.speaker, text: s }) });
    }
    const vectors = await embedAll(
      embedder,
      pieces.map((p) => p.text),
    );
    const src = unitSource(conversationSource(conversation.id, session.id), 'facts');
    const date = session.date ?? null;
    await store.replaceChunks(
      conversation.id,
      src,
      pieces.map((p, k) =>
        chunkOf(
          { tenant: conversation.id },
          { id: `${src}#s${k + 1}`, source: src, startLine: p.line, endLine: p.line, text: p.text, date },
          { embedding: vectors[k], model: embedder.modelId },
        ),
      ),
    );
    written += pieces.length;
  }
  return written;
}

const groupOf = (kind: number) => (kind <= ROLE.turn ? 0 : kind - 1);
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const unit = (v: Float64Array) => {
  const n = Math.sqrt(dot(v, v));
  return n > 0 ? v.map((x) => x / n) : v;
};

/**
 * The query's cosine with each chunk that has a vector in `docs`, min-max normalised within its
 * group as search does (a single value scores 1); other chunks keep `base`.
 */
function cosinesPerGroup(
  units: UnitIndex,
  docs: readonly (Float64Array | null)[],
  query: Float64Array,
  base: Float64Array,
): Float64Array {
  const sim = docs.map((v) => (v ? dot(query, v) : 0));
  const lo = new Float64Array(6).fill(Number.POSITIVE_INFINITY);
  const hi = new Float64Array(6).fill(Number.NEGATIVE_INFINITY);
  for (const [i, v] of docs.entries())
    if (v) {
      const g = groupOf(units.kind[i]!);
      lo[g] = Math.min(lo[g]!, sim[i]!);
      hi[g] = Math.max(hi[g]!, sim[i]!);
    }
  return Float64Array.from(base, (x, i) => {
    const g = groupOf(units.kind[i]!);
    return docs[i] ? (hi[g]! > lo[g]! ? (sim[i]! - lo[g]!) / (hi[g]! - lo[g]!) : 1) : x;
  });
}

/**
 * Vector scores with the conversation's turn vectors centred on their mean and their top `d`
 * principal components removed (Mu & Viswanath's "all-but-the-top"), normalised per group as search
 * does. Windows take the sum of their turns' projected vectors.
 */
export function centredVectors(
  index: ChunkIndex,
  units: UnitIndex,
  d: number,
): (query: ArrayLike<number>) => Float64Array {
  const n = index.chunks.length;
  const turns = [...index.chunks.keys()].filter((i) => units.kind[i] === ROLE.turn && index.vectors[i]);
  const dim = index.vectors[turns[0]!]!.length;
  const mean = new Float64Array(dim);
  for (const i of turns) for (let k = 0; k < dim; k++) mean[k]! += index.vectors[i]![k]! / turns.length;
  const centred = turns.map((i) => Float64Array.from(index.vectors[i]!, (x, k) => x - mean[k]!));
  const components: Float64Array[] = [];
  for (let c = 0; c < d; c++) {
    let u = unit(Float64Array.from({ length: dim }, (_, k) => Math.sin(k * 7.1 + c)));
    for (let iteration = 0; iteration < 60; iteration++) {
      const next = new Float64Array(dim);
      for (const x of centred) {
        const s = dot(x, u);
        for (let k = 0; k < dim; k++) next[k]! += s * x[k]!;
      }
      for (const p of components) {
        const s = dot(next, p);
        for (let k = 0; k < dim; k++) next[k]! -= s * p[k]!;
      }
      u = unit(next);
    }
    components.push(u);
  }
  const project = (v: ArrayLike<number>) => {
    const w = Float64Array.from(v, (x, k) => x - mean[k]!);
    for (const p of components) {
      const s = dot(w, p);
      for (let k = 0; k < dim; k++) w[k]! -= s * p[k]!;
    }
    return unit(w);
  };
  const docs: (Float64Array | null)[] = index.vectors.map((v) => (v ? project(v) : null));
  for (let i = 0; i < n; i++) {
    if (docs[i] || units.coverFrom[i]! < 0 || units.kind[i]! > ROLE.session) continue;
    const sum = new Float64Array(dim);
    for (let t = units.coverFrom[i]!; t <= units.coverTo[i]!; t++)
      for (let k = 0; k < dim; k++) sum[k]! += docs[t]?.[k] ?? 0;
    docs[i] = unit(sum);
  }
  return (query) => cosinesPerGroup(units, docs, project(query), new Float64Array(n));
}

/**
 * BM25 over each turn's WordNet expansion (synonyms and hypernyms of its lower-case content words,
 * without the words themselves): document expansion at write time. Returns the query's scores over
 * the index, normalised by the best.
 */
export function wordnetKeys(
  index: ChunkIndex,
  units: UnitIndex,
  wordnet: WordNet,
  senses: number,
  depth: number,
): (question: string) => Float64Array {
  const turns = [...index.chunks.keys()].filter((i) => units.kind[i] === ROLE.turn);
  const expanded = turns.map((i): ChunkRecord => {
    const text = index.chunks[i]!.text;
    const words = new Set<string>();
    for (const t of text.slice(text.indexOf(': ') + 2).split(/[^A-Za-z'-]+/))
      if (t.length > 2 && t === t.toLowerCase() && !STOPWORDS.has(t))
        for (const w of wordnet.expand(t, senses, depth)) words.add(w);
    return { ...index.chunks[i]!, text: [...words].join(' ') };
  });
  const bm25 = createBm25Index(expanded);
  return (question) => {
    const out = new Float64Array(index.chunks.length);
    const terms = toFtsQuery(question, { dropStopwords: true })
      .replace(/"/g, '')
      .replace(/\bOR\b/g, ' ');
    const hits = bm25.search(terms, 1000);
    const top = hits.length > 0 ? -hits[0]!.bm25 : 1;
    for (const h of hits) out[index.byId.get(h.chunk.id)!] = -h.bm25 / top;
    return out;
  };
}

/** The words of `text` that are not all stopwords (as keyword search drops them). */
export function contentWords(text: string): string {
  return text
    .split(/\s+/)
    .filter((w) => queryTokens(w).some((t) => !STOPWORDS.has(t)))
    .join(' ');
}

/**
 * Vector scores over "denoised" turns: each turn embedded again as `Speaker: its content words`
 * (stopwords dropped, as compression-based denoising does with a model), windows as the sum of
 * their turns', the query's content words embedded the same way; normalised per group as search
 * does. Other chunks keep `base`.
 */
export async function denoisedVectors(
  index: ChunkIndex,
  units: UnitIndex,
  embedder: Embedder,
): Promise<(query: string, base: Float64Array) => Promise<Float64Array>> {
  const n = index.chunks.length;
  const turns = [...index.chunks.keys()].filter((i) => units.kind[i] === ROLE.turn);
  const texts = turns.map((i) => {
    const text = index.chunks[i]!.text;
    const colon = text.indexOf(': ');
    return `${text.slice(0, colon)}: ${contentWords(text.slice(colon + 2))}`;
  });
  const vectors = await embedAll(embedder, texts);
  const docs: (Float64Array | null)[] = new Array(n).fill(null);
  for (const [k, i] of turns.entries()) docs[i] = unit(Float64Array.from(vectors[k] ?? []));
  for (let i = 0; i < n; i++) {
    if (units.kind[i] !== ROLE.window || units.coverFrom[i]! < 0) continue;
    const sum = new Float64Array(docs[turns[0]!]!.length);
    for (let t = units.coverFrom[i]!; t <= units.coverTo[i]!; t++)
      for (let k = 0; k < sum.length; k++) sum[k]! += docs[t]?.[k] ?? 0;
    docs[i] = unit(sum);
  }
  return async (query, base) => {
    const [raw] = await embedder.embed([contentWords(query) || query]);
    return cosinesPerGroup(units, docs, unit(Float64Array.from(raw!)), base);
  };
}
