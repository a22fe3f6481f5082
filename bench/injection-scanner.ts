/**
 * `npm run bench:scanner`: the memory injection scanner (src/core/store/injection-scanner.ts) on a
 * published payload set beside the ordinary text it must let through. Prints markdown tables:
 *
 * - detection on the 666 in-the-wild jailbreak prompts of Shen et al. (CCS 2024; MIT), as
 *   bench/data/injection/ holds them (its README names the source and licence), for 002's patterns
 *   alone (KosmoKrator's scanner: lower-cased text, no normalisation) and for ctxkit's scanner;
 * - what each disguise (look-alike letters, soft hyphens, letter-spacing, …) leaves of that detection;
 * - false positives on ordinary text: the memories of bench/data/ordinary-memories.json (written for
 *   this bench), every turn of the LoCoMo conversations and the user and assistant messages of the
 *   agent trajectories in ../shared/data (skipped with a message when absent).
 *
 *   npm run bench:scanner -- [--data ../shared/data] [--json]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { INJECTION_PATTERNS, scanForInjection } from '../src/core/store/injection-scanner.ts';

const { values } = parseArgs({
  options: { data: { type: 'string', default: '../shared/data' }, json: { type: 'boolean', default: false } },
});
const DATA = resolve(values.data!);

/** 002's scanner as KosmoKrator runs it: its own patterns on the lower-cased text, nothing undone. */
function scan002(text: string): string[] {
  const lowered = text.toLowerCase();
  const out = new Set<string>();
  for (const p of INJECTION_PATTERNS)
    if (p.source === '002' && p.pattern.test(p.on === 'raw' ? text : lowered)) out.add(p.label);
  return [...out];
}

const rate = (hit: number, all: number) => (all === 0 ? '—' : `${((100 * hit) / all).toFixed(1)}%`);

/** Disguises of a payload that a reader still reads the same. */
const CYRILLIC: Record<string, string> = { a: 'а', e: 'е', o: 'о', p: 'р', c: 'с', i: 'і', x: 'х', y: 'у' };
const LEET: Record<string, string> = { a: '4', e: '3', i: '1', o: '0' };
const DISGUISES: Record<string, (t: string) => string> = {
  'look-alike letters (Cyrillic а е о р с і х у)': (t) => t.replace(/[aeopcixy]/g, (c) => CYRILLIC[c]!),
  'soft hyphen inside each word': (t) => t.replace(/\b(\p{L}{2})(\p{L}{2,})/gu, '$1\u00AD$2'),
  'full-width letters': (t) =>
    t.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x21 + 0xff01)),
  'mathematical sans-serif letters': (t) =>
    t.replace(/[a-z]/g, (c) => String.fromCodePoint(0x1d5ba + c.charCodeAt(0) - 97)),
  'accents on the vowels': (t) => t.replace(/[aeiou]/g, (c) => `${c}\u0308`),
  'digits for letters (4 3 1 0)': (t) => t.replace(/\b\w+\b/g, (w) => w.replace(/[aeio]/g, (c) => LEET[c]!)),
  'alternating case': (t) => [...t].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join(''),
  'letter-spacing (i g n o r e)': (t) => [...t].join(' '),
  'Markdown emphasis inside words (i*g*n*o*r*e)': (t) => t.replace(/(?<=\p{L})(?=\p{L})/gu, '*'),
};

function loadJson<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

/** Every turn of the open LoCoMo conversations. */
function locomoTurns(): string[] | undefined {
  const conversations = loadJson<Array<{ conversation: Record<string, unknown> }>>(
    join(DATA, 'locomo', 'locomo-open.json'),
  );
  if (!conversations) return undefined;
  const out: string[] = [];
  for (const c of conversations)
    for (const [k, v] of Object.entries(c.conversation))
      if (/^session_\d+$/.test(k) && Array.isArray(v))
        for (const turn of v as Array<{ text?: string }>) if (turn.text) out.push(turn.text);
  return out;
}

/** The user and assistant text of every agent trajectory (tool output left out). */
function trajectoryTexts(): string[] | undefined {
  const root = join(DATA, 'trajectories');
  if (!existsSync(root)) return undefined;
  const out: string[] = [];
  for (const group of readdirSync(root))
    for (const file of readdirSync(join(root, group)).filter((f) => f.endsWith('.json'))) {
      const run = loadJson<{ messages?: Array<{ role: string; content?: unknown }> }>(
        join(root, group, file),
      );
      for (const m of run?.messages ?? [])
        if (
          (m.role === 'user' || m.role === 'assistant') &&
          typeof m.content === 'string' &&
          m.content.trim()
        )
          out.push(m.content);
    }
  return out;
}

interface Row {
  set: string;
  items: number;
  flagged002: number;
  flagged: number;
  examples: string[];
}

function measure(set: string, texts: readonly string[]): Row {
  let flagged002 = 0;
  let flagged = 0;
  const examples: string[] = [];
  for (const t of texts) {
    if (scan002(t).length > 0) flagged002++;
    const issues = scanForInjection(t);
    if (issues.length > 0) {
      flagged++;
      if (examples.length < 5) examples.push(`${issues.join(',')}: ${t.replace(/\s+/g, ' ').slice(0, 110)}`);
    }
  }
  return { set, items: texts.length, flagged002, flagged, examples };
}

const payloadPath = resolve(import.meta.dirname, 'data', 'injection', 'inthewild_jailbreak_llms.json');
const payloads = loadJson<string[]>(payloadPath);
const ordinary = loadJson<{ memories: string[] }>(
  resolve(import.meta.dirname, 'data', 'ordinary-memories.json'),
)!;
const report: Record<string, unknown> = {};

if (!payloads) console.log(`skipped the payload set: no ${payloadPath}`);
else {
  const row = measure('in-the-wild jailbreak prompts (Shen et al., CCS 2024)', payloads);
  const labels: Record<string, number> = {};
  for (const p of payloads) for (const l of scanForInjection(p)) labels[l] = (labels[l] ?? 0) + 1;
  const caught = payloads.filter((p) => scanForInjection(p).length > 0);
  const disguised = Object.entries(DISGUISES).map(([name, f]) => {
    const still = caught.filter((p) => scanForInjection(f(p)).length > 0).length;
    const by002 = payloads.filter((p) => scan002(p).length > 0);
    const still002 = by002.filter((p) => scan002(f(p)).length > 0).length;
    return { name, still, of: caught.length, still002, of002: by002.length };
  });
  report.payloads = { row, labels, disguised };
  if (!values.json) {
    console.log('\n## Detection on the published payload set\n');
    console.log('| set | payloads | 002 patterns alone | ctxkit scanner |');
    console.log('|---|---:|---:|---:|');
    console.log(
      `| ${row.set} | ${row.items} | ${row.flagged002} (${rate(row.flagged002, row.items)}) | ${row.flagged} (${rate(row.flagged, row.items)}) |`,
    );
    console.log(
      `\nLabels raised (a payload may raise several): ${Object.entries(labels)
        .sort((a, b) => b[1] - a[1])
        .map(([l, n]) => `${l} ${n}`)
        .join(', ')}`,
    );
    console.log('\n## The same payloads disguised (detection kept, of those caught undisguised)\n');
    console.log('| disguise | 002 patterns alone | ctxkit scanner |');
    console.log('|---|---:|---:|');
    for (const d of disguised)
      console.log(
        `| ${d.name} | ${d.still002} of ${d.of002} (${rate(d.still002, d.of002)}) | ${d.still} of ${d.of} (${rate(d.still, d.of)}) |`,
      );
  }
}

const benign: Row[] = [measure('ordinary memories (bench/data/ordinary-memories.json)', ordinary.memories)];
const turns = locomoTurns();
if (turns) benign.push(measure('LoCoMo conversation turns (5 conversations)', turns));
else console.log('skipped LoCoMo: no ../shared/data/locomo');
const traj = trajectoryTexts();
if (traj) benign.push(measure('agent trajectories: user and assistant messages', traj));
else console.log('skipped the trajectories: no ../shared/data/trajectories');
report.ordinary = benign;

if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log('\n## False positives on ordinary text (dropped although harmless)\n');
  console.log('| set | texts | 002 patterns alone | ctxkit scanner |');
  console.log('|---|---:|---:|---:|');
  for (const r of benign)
    console.log(
      `| ${r.set} | ${r.items} | ${r.flagged002} (${rate(r.flagged002, r.items)}) | ${r.flagged} (${rate(r.flagged, r.items)}) |`,
    );
  for (const r of benign)
    if (r.examples.length > 0)
      console.log(`\n${r.set}, dropped:\n${r.examples.map((e) => `- ${e}`).join('\n')}`);
}
