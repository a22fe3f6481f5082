/**
 * Levers tried for multi-hop recall on the LoCoMo open half, beside the default ranking (the
 * shipped weights), with USE-lite from the embedding cache: `npx tsx bench/memory-levers.ts`
 * (env BENCH_LOCOMO, default ../shared/data/locomo/locomo-open.json; BENCH_CACHE, default
 * .ctxkit-cache; WORDNET_DICT, a WordNet 3.1 `dict/` directory, for the WordNet rows, see
 * memory-levers/wordnet.ts). Every question's search features are computed once; each lever
 * re-ranks them (a diversity rule over the top 40–100, a second query or feature mixed in, sentence
 * units in a second store), and the run prints R@10 over categories 1–4 and per category. Levers
 * with a weight are also scored leave-one-conversation-out: the weight is chosen on four
 * conversations (mean R@10 over their questions, the other weights as shipped) and the fifth is
 * scored with it. Shipped: the statement query and the list weights; docs/memory.md says what each
 * did. Cold cache: the extra queries and sentence units are embedded with USE-lite (~12,000 texts).
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { cachingEmbedder } from '../src/cli/memory/embedding-cache.ts';
import { askedAt, loadLocomo, toConversation } from '../src/cli/memory/locomo.ts';
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
  statementQuery,
  unitIndexOf,
} from '../src/core/index.ts';
import { createSqliteMemoryStore, openSqlite } from '../src/db/sqlite/index.ts';
import {
  centredVectors,
  denoisedVectors,
  wordnetKeys,
  writeSentenceUnits,
} from './memory-levers/features.ts';
import { listGrid, listLabel, marginLevers } from './memory-levers/list-weights.ts';
import { firstPersonStatement, statementOf, withoutNames } from './memory-levers/question-forms.ts';
import {
  fusedTop,
  greedy,
  heldOut,
  NO_DECAY,
  type Ranker as RankerOf,
  recallAt10,
  row,
  sameSession,
} from './memory-levers/ranking.ts';
import { loadWordNet } from './memory-levers/wordnet.ts';

interface Question {
  conv: string;
  category: number;
  evidence: number[];
  /** Features of the question as asked. */
  f: SearchFeatures;
  /** Features of the aspect query: the question without the speakers it names. */
  aspect: SearchFeatures;
  /** Keyword scores of the question expanded with the 10 best terms of its top 10 turns. */
  prfKey: Float64Array;
  /** Features of the question in a store that also holds sentence units (in the `facts` slot). */
  sentences: SearchFeatures;
  /** Vector scores of the question restated: `Name: statement`, first person, bare statement. */
  speakerForm: Float64Array;
  firstPerson: Float64Array;
  statement: Float64Array;
  /** Vector scores with centred vectors, top 0 and 5 principal components removed. */
  centred: Float64Array[];
  /** Vector scores of the question's content words over the turns' content words. */
  denoised: Float64Array;
  /** Keyword scores over the turns' WordNet expansions (WORDNET_DICT given), per `EXPANSIONS`. */
  wordnet: Float64Array[];
}

const path = resolve(process.env.BENCH_LOCOMO ?? '../shared/data/locomo/locomo-open.json');
const embedder = cachingEmbedder(lazyUseLiteEmbedder(), resolve(process.env.BENCH_CACHE ?? '.ctxkit-cache'));
/**
 * The weights shipped before the statement query and the list weights, which the rows measure
 * against (the current defaults, `fusionWeights({})`, are the last rows).
 */
const weights = fusionWeights({
  statementWeight: 0,
  listKeywordWeight: 0.5,
  listFactWeight: 1,
  listNeighbourWeight: 0.5,
  listPerSession: 0,
});
/** The statement query at 0.75 and, for a question that asks for several things, `list`. */
const listed = (list: Partial<typeof weights>) => ({ ...weights, statement: 0.75, ...list });

const wordnet = loadWordNet(process.env.WORDNET_DICT);
/** WordNet expansions measured: [senses, hypernym depth]. */
const EXPANSIONS: [number, number][] = wordnet
  ? [
      [1, 2],
      [3, 6],
    ]
  : [];
const CENTRED = [0, 5];

let sentenceUnits = 0;

async function collect(): Promise<Question[]> {
  const out: Question[] = [];
  for (const conv of await loadLocomo(path)) {
    const handle = openSqlite({ path: ':memory:' });
    const sentenceHandle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      await indexLocomo(store, conv, conv.id, embedder);
      const sentenceStore = createSqliteMemoryStore(sentenceHandle);
      await indexLocomo(sentenceStore, conv, conv.id, embedder);
      sentenceUnits += await writeSentenceUnits(sentenceStore, toConversation(conv), embedder);
      const index = await store.chunkIndex(conv.id, embedder.modelId);
      const units = unitIndexOf(index);
      const spelled = new Map(units.speaker.flatMap((s) => (s ? [[s.toLowerCase(), s] as const] : [])));
      const centring = CENTRED.map((d) => centredVectors(index, units, d));
      const denoise = await denoisedVectors(index, units, embedder);
      const expansions = EXPANSIONS.map(([senses, depth]) =>
        wordnetKeys(index, units, wordnet!, senses, depth),
      );
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
        const vecOf = async (text: string) =>
          text === q.question ? f.vec : (await searchFeatures(store, conv.id, text, options, true)).vec;
        const named = names.size === 1 ? spelled.get([...names][0]!) : undefined;
        const [question] = await embedder.embed([q.question]);
        out.push({
          conv: conv.id,
          category: q.category,
          evidence,
          f,
          aspect,
          prfKey,
          sentences: await searchFeatures(sentenceStore, conv.id, q.question, options, true),
          speakerForm: await vecOf(statementQuery(q.question, named)),
          firstPerson: await vecOf(named ? firstPersonStatement(q.question, named) : statementOf(q.question)),
          statement: await vecOf(statementOf(q.question)),
          centred: centring.map((c) => c(question!)),
          denoised: await denoise(q.question, f.vec),
          wordnet: expansions.map((e) => e(q.question)),
        });
      }
    } finally {
      handle.close();
      sentenceHandle.close();
    }
  }
  return out;
}

type Ranker = RankerOf<Question>;

function cosine(a: Float32Array | null | undefined, b: Float32Array | null | undefined): number {
  if (!a || !b) return 0;
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d]! * b[d]!;
  return s;
}

const mixed = (a: Float64Array, b: Float64Array, t: number) => a.map((x, i) => (1 - t) * x + t * b[i]!);
const fused = (f: SearchFeatures, q: Question, w = weights) => fusedTop(q, f, w);
const byVector =
  (t: number, vec: (q: Question) => Float64Array, w = weights): Ranker =>
  (q) =>
    fused({ ...q.f, vec: mixed(q.f.vec, vec(q), t) }, q, w);
/** The restated question mixed in at `t`, then at most `cap` turns per session (0: no cap). */
const restated = (t: number, cap: number, speaker: number): Ranker => {
  const w = { ...weights, speaker };
  const f = (q: Question) => ({ ...q.f, vec: mixed(q.f.vec, q.speakerForm, t) });
  return cap === 0
    ? (q) => fused(f(q), q, w)
    : greedy<Question>(w, 100, (q, s, i, p) => (sameSession(q, i, p) < cap ? s : s - 2), f);
};
/**
 * Per-session second stage: in each of the `sessions` best sessions of the default ranking, the
 * aspect query's own score min-max normalised within the session, to the 4th power, × `w` added.
 */
const sessionStage =
  (sessions: number, w: number): Ranker =>
  (q) => {
    const all = fuseFeatures(q.f, weights, q.f.index.chunks.length, 0, NO_DECAY);
    const score = new Float64Array(q.f.index.chunks.length);
    for (const h of all) score[q.f.index.byId.get(h.chunk.id)!] = h.score;
    const top: number[] = [];
    for (const h of all) {
      const s = q.f.units.sourceId[q.f.index.byId.get(h.chunk.id)!]!;
      if (!top.includes(s)) top.push(s);
      if (top.length === sessions) break;
    }
    const own = (i: number) => (0.75 * q.aspect.vec[i]! + 0.5 * q.aspect.key[i]!) / 1.25;
    for (const s of top) {
      const members = [...score.keys()].filter((i) => q.f.units.sourceId[i] === s && score[i]! > 0);
      const lo = Math.min(...members.map(own));
      const hi = Math.max(...members.map(own));
      if (hi > lo) for (const i of members) score[i]! += w * ((own(i) - lo) / (hi - lo)) ** 4;
    }
    return [...score.keys()].filter((i) => score[i]! > 0).sort((a, b) => score[b]! - score[a]! || a - b);
  };

const LEVERS: [string, Ranker][] = [
  ['default (shipped weights)', (q) => fused(q.f, q)],
  [
    'at most 3 turns per session in the top 10',
    greedy(weights, 100, (q, s, i, p) => (sameSession(q, i, p) < 3 ? s : s - 2)),
  ],
  [
    'at most 4 turns per session in the top 10',
    greedy(weights, 100, (q, s, i, p) => (sameSession(q, i, p) < 4 ? s : s - 2)),
  ],
  [
    'session MMR: score × (1 − 0.05 × picked in its session)',
    greedy(weights, 100, (q, s, i, p) => s * (1 - 0.05 * sameSession(q, i, p))),
  ],
  [
    'vector MMR: score − 0.1 × best cosine to a picked turn',
    greedy<Question>(
      weights,
      50,
      (q, s, i, p) =>
        s - 0.1 * Math.max(0, ...p.map((o) => cosine(q.f.index.vectors[i], q.f.index.vectors[o]))),
    ),
  ],
  [
    'adjacent turns: score × 0.8 next to a picked turn',
    greedy<Question>(weights, 40, (q, s, i, p) =>
      p.includes(q.f.index.prev[i]!) || p.includes(q.f.index.next[i]!) ? 0.8 * s : s,
    ),
  ],
  ['aspect query (speakers removed), vector mix 0.25', byVector(0.25, (q) => q.aspect.vec)],
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
  ...[1, 2].map((factWeight): [string, Ranker] => [
    `sentence units in the fact-key slot, factWeight ${factWeight}`,
    (q) => fused(q.sentences, q, { ...weights, facts: factWeight }),
  ]),
  ['per-session second stage: top 3 sessions, 0.05', sessionStage(3, 0.05)],
  ['per-session second stage: top 8 sessions, 0.02', sessionStage(8, 0.02)],
  ...CENTRED.map((d, k): [string, Ranker] => [
    `vectors centred, top ${d} principal components removed`,
    (q) => fused({ ...q.f, vec: q.centred[k]! }, q),
  ]),
  ...EXPANSIONS.flatMap(([senses, depth], k) =>
    [0.1, 0.35].map((t): [string, Ranker] => [
      `WordNet expansion of the turns (${senses} sense${senses > 1 ? 's' : ''}, depth ${depth}), keyword + ${t} ×`,
      (q) => fused({ ...q.f, key: q.f.key.map((x, i) => x + t * q.wordnet[k]![i]!) }, q),
    ]),
  ),
  ['turns and question without stopwords, re-embedded, vector mix 0.5', byVector(0.5, (q) => q.denoised)],
  ['bare statement query, vector mix 0.5', byVector(0.5, (q) => q.statement)],
  ['"Name: statement" query, vector mix 0.75', byVector(0.75, (q) => q.speakerForm)],
  ['first-person "Name: … I …" query, vector mix 0.75', byVector(0.75, (q) => q.firstPerson)],
  ['"Name: statement" 0.75, speaker weight 0.3', restated(0.75, 0, 0.3)],
  ['"Name: statement" 0.75, at most 5 turns per session', restated(0.75, 5, 0.2)],
  [
    'statement 0.75; asking for several: at most 4 per session',
    (q) => fused(q.f, q, listed({ listPerSession: 4 })),
  ],
  [
    'statement 0.75; asking for several: neighbour 0, at most 4 per session',
    (q) => fused(q.f, q, listed({ listNeighbour: 0, listPerSession: 4 })),
  ],
  ['defaults now (statement query, list weights)', (q) => fused(q.f, q, fusionWeights({}))],
];

const SMALL = listGrid(listed({}), [0.5, 0.25], [1, 2], [0.5, 0], [0, 4]);
const LARGE = listGrid(listed({}), [0.5, 0.25, 0.1], [1, 2, 3], [0.5, 0.25, 0], [0, 5, 4, 3]);

const MIXES = [0, 0.25, 0.5, 0.75, 1];
/** Levers with a setting chosen leave-one-conversation-out: [name, settings (first = off), label]. */
const CHOSEN: [string, Ranker[], string[]][] = [
  [
    '"Name: statement" query, mix chosen per fold',
    MIXES.map((t) => byVector(t, (q) => q.speakerForm)),
    MIXES.map(String),
  ],
  [
    'first-person query, mix chosen per fold',
    MIXES.map((t) => byVector(t, (q) => q.firstPerson)),
    MIXES.map(String),
  ],
  [
    'turns and question without stopwords, mix chosen per fold',
    MIXES.map((t) => byVector(t, (q) => q.denoised)),
    MIXES.map(String),
  ],
  (() => {
    const grid = MIXES.flatMap((t) => [0, 6, 5, 4].flatMap((cap) => [0.2, 0.3].map((sw) => [t, cap, sw])));
    return [
      '"Name: statement" mix × per-session cap × speaker weight, chosen per fold',
      grid.map(([t, cap, sw]) => restated(t!, cap!, sw!)),
      grid.map(([t, cap, sw]) => `mix ${t}, cap ${cap || 'off'}, speaker ${sw}`),
    ] as [string, Ranker[], string[]];
  })(),
  [
    'asking for several: list weights, 16 settings, chosen per fold',
    SMALL.map((w) => (q: Question) => fused(q.f, q, w)),
    SMALL.map(listLabel),
  ],
  [
    'asking for several: list weights, 108 settings, chosen per fold',
    LARGE.map((w) => (q: Question) => fused(q.f, q, w)),
    LARGE.map(listLabel),
  ],
  ...EXPANSIONS.slice(0, 1).map(([senses, depth]): [string, Ranker[], string[]] => [
    `WordNet expansion (${senses} sense, depth ${depth}), weight chosen per fold`,
    [0, 0.05, 0.1, 0.2, 0.35].map(
      (t) => (q) => fused({ ...q.f, key: q.f.key.map((x, i) => x + t * q.wordnet[0]![i]!) }, q),
    ),
    ['0', '0.05', '0.1', '0.2', '0.35'],
  ]),
];

const started = performance.now();
const questions = await collect();
console.log(
  `${questions.length} questions (categories 1–4), ${embedder.modelId}; load ${loadavg()[0]!.toFixed(1)}${wordnet ? '' : '; WORDNET_DICT not set: no WordNet rows'}`,
);
const several = [1, 2, 3, 4].map((c) => {
  const of = questions.filter((q) => q.category === c);
  return `${of.filter((q) => q.f.several).length}/${of.length}`;
});
console.log(
  `asks for several things (asksForSeveral), categories 1–4 (labels for this report only): ${several.join(', ')}`,
);
const hops = questions.filter((q) => q.category === 1);
const sessions = hops.reduce((n, q) => n + new Set(q.evidence.map((e) => q.f.units.sourceId[e])).size, 0);
const missed = hops.flatMap((q) => {
  const order = fusedTop(q, q.f, weights, 100);
  const shown = new Set(order.slice(0, 10).map((i) => q.f.units.sourceId[i]));
  return q.evidence
    .map((e) => ({ rank: order.indexOf(e), elsewhere: !shown.has(q.f.units.sourceId[e]!) }))
    .filter((m) => m.rank < 0 || m.rank >= 10);
});
const near = missed.filter((m) => m.rank >= 10 && m.rank < 50);
console.log(
  `multi-hop: evidence in ${(sessions / hops.length).toFixed(1)} sessions on average; of ${missed.length} evidence turns missed at 10, ${near.length} rank 11–50 (${near.filter((m) => m.elsewhere).length} in a session without a turn in the top 10); ${sentenceUnits} sentence units`,
);
console.log(
  '| lever | R@10 1–4 | multi-hop | temporal | open-domain | single-hop |\n|---|---:|---:|---:|---:|---:|',
);
for (const [name, rank] of LEVERS)
  console.log(
    row(
      name,
      questions.map((q) => ({ q, r: recallAt10(q, rank) })),
    ),
  );
const margins = marginLevers(questions, listed({}), [0.05, 0.1], [6, 5, 4, 3]);
console.log(`${margins.fires.join('; ')}\n\nLeave one conversation out (the other weights as shipped):`);
for (const [name, grid, labels] of [...CHOSEN, ...margins.levers]) {
  const { scored, chosen } = heldOut(questions, grid);
  console.log(row(`${name} (held out)`, scored));
  console.log(`  chosen: ${[...chosen].map(([conv, g]) => `${conv} ${labels[g]}`).join('; ')}`);
}
console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(0);
