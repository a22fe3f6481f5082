/**
 * Levers tried for multi-hop recall on the LoCoMo open half, beside the default ranking (the
 * shipped weights), with USE-lite from the embedding cache: `npx tsx bench/memory-levers.ts`
 * (env BENCH_LOCOMO, default ../shared/data/locomo/locomo-open.json; BENCH_CACHE, default
 * .ctxkit-cache). Every question's search features are computed once; each lever re-ranks them
 * (a diversity rule over the top 40–100, a second query whose features are mixed in), and the run
 * prints R@10 over categories 1–4 and per category. None is shipped: docs/memory.md says what each
 * did. Cold cache: the aspect queries are embedded with USE-lite (~1,000 texts).
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { cachingEmbedder } from '../src/cli/memory/embedding-cache.ts';
import { askedAt, loadLocomo } from '../src/cli/memory/locomo.ts';
import { indexLocomo } from '../src/cli/memory/locomo-bench.ts';
import { evidencePositions } from '../src/cli/memory/locomo-selection.ts';
import { lazyUseLiteEmbedder } from '../src/cli/memory/use-lite-embedder.ts';
import {
  fuseFeatures,
  fusionWeights,
  namedSpeakers,
  queryTokens,
  type SearchFeatures,
  STOPWORDS,
  searchFeatures,
  unitIndexOf,
} from '../src/core/index.ts';
import { createSqliteMemoryStore, openSqlite } from '../src/db/sqlite/index.ts';

interface Question {
  category: number;
  evidence: number[];
  /** Features of the question as asked. */
  f: SearchFeatures;
  /** Features of the aspect query: the question without the speakers it names. */
  aspect: SearchFeatures;
  /** Keyword scores of the question expanded with the 10 best terms of its top 10 turns. */
  prfKey: Float64Array;
}

const path = resolve(process.env.BENCH_LOCOMO ?? '../shared/data/locomo/locomo-open.json');
const embedder = cachingEmbedder(lazyUseLiteEmbedder(), resolve(process.env.BENCH_CACHE ?? '.ctxkit-cache'));
const weights = fusionWeights({});
const NO_DECAY = () => 1;

const withoutNames = (text: string, names: ReadonlySet<string>) => {
  let out = text;
  for (const n of names) out = out.replace(new RegExp(`\\b${n}('s)?\\b`, 'giu'), '');
  return out.replace(/\s+/g, ' ').trim();
};

async function collect(): Promise<Question[]> {
  const out: Question[] = [];
  for (const conv of await loadLocomo(path)) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      await indexLocomo(store, conv, conv.id, embedder);
      const index = await store.chunkIndex(conv.id, embedder.modelId);
      const units = unitIndexOf(index);
      // Document frequencies of the turns' words, for the expansion terms (tf·idf over the top turns).
      const words = index.chunks.map((c, i) =>
        units.kind[i] === 1
          ? queryTokens(c.text)
              .map((t) => t.toLowerCase())
              .filter((t) => !STOPWORDS.has(t) && t.length > 2 && !/^\d+$/.test(t))
          : [],
      );
      const df = new Map<string, number>();
      let docs = 0;
      for (const w of words)
        if (w.length > 0) {
          docs++;
          for (const t of new Set(w)) df.set(t, (df.get(t) ?? 0) + 1);
        }
      const evidenceOf = evidencePositions(index);
      for (const q of conv.questions) {
        if (q.category === 5) continue;
        const evidence = evidenceOf(q.evidence);
        if (evidence.length === 0) continue;
        const options = { embedder, now: askedAt(conv) };
        const f = await searchFeatures(store, conv.id, q.question, options, true);
        const names = namedSpeakers(q.question, units.speakers.keys());
        const aspectText = names.size > 0 ? withoutNames(q.question, names) : q.question;
        const aspect =
          aspectText === q.question ? f : await searchFeatures(store, conv.id, aspectText, options, true);
        const asked = new Set(queryTokens(q.question).map((t) => t.toLowerCase()));
        const gain = new Map<string, number>();
        for (const h of fuseFeatures(f, weights, 10, 0, NO_DECAY))
          for (const t of words[index.byId.get(h.chunk.id)!]!)
            if (!asked.has(t)) gain.set(t, (gain.get(t) ?? 0) + Math.log(docs / (df.get(t) ?? 1)));
        const terms = [...gain.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
        const expanded = `${q.question} ${terms.map(([t]) => t).join(' ')}`;
        const prfKey = (await searchFeatures(store, conv.id, expanded, { now: options.now }, false)).key;
        out.push({ category: q.category, evidence, f, aspect, prfKey });
      }
    } finally {
      handle.close();
    }
  }
  return out;
}

type Ranker = (q: Question) => number[];

/** Re-ranks the fused top `pool` greedily: each pick maximises `value(score, index, picked)`. */
function greedy(
  pool: number,
  value: (q: Question, score: number, i: number, picked: number[]) => number,
): Ranker {
  return (q) => {
    const left = fuseFeatures(q.f, weights, pool, 0, NO_DECAY).map((h) => ({
      i: q.f.index.byId.get(h.chunk.id)!,
      s: h.score,
    }));
    const picked: number[] = [];
    while (left.length > 0 && picked.length < 10) {
      let best = 0;
      let bestValue = Number.NEGATIVE_INFINITY;
      for (const [k, c] of left.entries()) {
        const v = value(q, c.s, c.i, picked);
        if (v > bestValue) {
          bestValue = v;
          best = k;
        }
      }
      picked.push(left.splice(best, 1)[0]!.i);
    }
    return picked;
  };
}

const sameSession = (q: Question, i: number, picked: number[]) =>
  picked.filter((p) => q.f.units.sourceId[p] === q.f.units.sourceId[i]).length;

function cosine(a: Float32Array | null | undefined, b: Float32Array | null | undefined): number {
  if (!a || !b) return 0;
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d]! * b[d]!;
  return s;
}

const mixed = (a: Float64Array, b: Float64Array, t: number) => a.map((x, i) => (1 - t) * x + t * b[i]!);
const fused = (f: SearchFeatures, q: Question) =>
  fuseFeatures(f, weights, 10, 0, NO_DECAY).map((h) => q.f.index.byId.get(h.chunk.id)!);

const LEVERS: [string, Ranker][] = [
  ['default (shipped weights)', (q) => fused(q.f, q)],
  [
    'at most 3 turns per session in the top 10',
    greedy(100, (q, s, i, p) => (sameSession(q, i, p) < 3 ? s : s - 2)),
  ],
  [
    'at most 4 turns per session in the top 10',
    greedy(100, (q, s, i, p) => (sameSession(q, i, p) < 4 ? s : s - 2)),
  ],
  [
    'session MMR: score × (1 − 0.05 × picked in its session)',
    greedy(100, (q, s, i, p) => s * (1 - 0.05 * sameSession(q, i, p))),
  ],
  [
    'vector MMR: score − 0.1 × best cosine to a picked turn',
    greedy(
      50,
      (q, s, i, p) =>
        s - 0.1 * Math.max(0, ...p.map((o) => cosine(q.f.index.vectors[i], q.f.index.vectors[o]))),
    ),
  ],
  [
    'adjacent turns: score × 0.8 next to a picked turn',
    greedy(40, (q, s, i, p) =>
      p.includes(q.f.index.prev[i]!) || p.includes(q.f.index.next[i]!) ? 0.8 * s : s,
    ),
  ],
  [
    'aspect query (speakers removed), vector mix 0.25',
    (q) => fused({ ...q.f, vec: mixed(q.f.vec, q.aspect.vec, 0.25) }, q),
  ],
  [
    'aspect query, keyword and vector mix 0.5',
    (q) =>
      fused({ ...q.f, key: mixed(q.f.key, q.aspect.key, 0.5), vec: mixed(q.f.vec, q.aspect.vec, 0.5) }, q),
  ],
  [
    'keyword PRF (10 terms of the top 10), mix 0.25',
    (q) => fused({ ...q.f, key: mixed(q.f.key, q.prfKey, 0.25) }, q),
  ],
  ['keyword PRF, mix 0.5', (q) => fused({ ...q.f, key: mixed(q.f.key, q.prfKey, 0.5) }, q)],
];

const started = performance.now();
const questions = await collect();
console.log(
  `${questions.length} questions (categories 1–4), ${embedder.modelId}; load ${loadavg()[0]!.toFixed(1)}`,
);
const hops = questions.filter((q) => q.category === 1);
const sessions = hops.reduce((n, q) => n + new Set(q.evidence.map((e) => q.f.units.sourceId[e])).size, 0);
const missed = hops.flatMap((q) => {
  const order = fuseFeatures(q.f, weights, 100, 0, NO_DECAY).map((h) => q.f.index.byId.get(h.chunk.id)!);
  return q.evidence.map((e) => order.indexOf(e)).filter((r) => r < 0 || r >= 10);
});
console.log(
  `multi-hop: evidence in ${(sessions / hops.length).toFixed(1)} sessions on average; of ${missed.length} evidence turns missed at 10, ${missed.filter((r) => r >= 10 && r < 50).length} rank 11–50`,
);
console.log(
  '| lever | R@10 1–4 | multi-hop | temporal | open-domain | single-hop |\n|---|---:|---:|---:|---:|---:|',
);
for (const [name, rank] of LEVERS) {
  const sums = new Map<number, [number, number]>();
  let all = 0;
  for (const q of questions) {
    const top = rank(q).slice(0, 10);
    const r = q.evidence.filter((e) => top.includes(e)).length / q.evidence.length;
    const s = sums.get(q.category) ?? [0, 0];
    sums.set(q.category, [s[0] + 1, s[1] + r]);
    all += r;
  }
  const pct = (x: number) => (100 * x).toFixed(1);
  const cell = (c: number) => pct((sums.get(c)?.[1] ?? 0) / (sums.get(c)?.[0] ?? 1));
  console.log(`| ${name} | ${pct(all / questions.length)} | ${[1, 2, 3, 4].map(cell).join(' | ')} |`);
}
console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(0);
