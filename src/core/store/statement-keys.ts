/**
 * The offline, deterministic fact key of a conversation turn: the turn restated in the third person
 * (the speaker's `I`/`my`/`me` become the speaker's name, `you`/`your` the addressee's when the
 * session has exactly one other speaker), followed by the session date and the dates its relative
 * time expressions resolve to (`yesterday` → `7 May 2023`). An LLM fact extractor writes keys of the
 * same kind; this one needs no model, so every conversation index can carry them.
 */
import { dateOfDay, dayOf, timeRanges } from './time-expressions.ts';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `2023-05-07` → `7 May 2023`. */
export function spokenDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${Number(d)} ${MONTH_NAMES[Number(m) - 1]} ${y}`;
}

const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`);

/** Each entry: a pattern over one word (apostrophes straight or curly), and its replacement. */
function pronounRules(speaker: string, addressee: string | undefined): [RegExp, string][] {
  const rules: [RegExp, string][] = [
    [/\bI['’]m\b/g, `${speaker} is`],
    [/\bI['’]ve\b/g, `${speaker} has`],
    [/\bI['’]ll\b/g, `${speaker} will`],
    [/\bI['’]d\b/g, `${speaker} would`],
    [/\bI\b/g, speaker],
    [/\b[Mm]y\b/g, possessive(speaker)],
    [/\b[Mm]ine\b/g, possessive(speaker)],
    [/\b[Mm]yself\b/g, speaker],
    [/\bme\b/g, speaker],
  ];
  if (addressee !== undefined)
    rules.push(
      [/\b[Yy]ou['’]re\b/g, `${addressee} is`],
      [/\b[Yy]ou['’]ve\b/g, `${addressee} has`],
      [/\b[Yy]ou['’]ll\b/g, `${addressee} will`],
      [/\b[Yy]our\b/g, possessive(addressee)],
      [/\b[Yy]ours\b/g, possessive(addressee)],
      [/\b[Yy]ourself\b/g, addressee],
      [/\b[Yy]ou\b/g, addressee],
    );
  return rules;
}

export interface StatementKeyInput {
  speaker: string;
  text: string;
  /** The other speaker when the session has exactly two; `you` is left alone otherwise. */
  addressee?: string;
  /** The session's `YYYY-MM-DD`: resolves relative time expressions and is written into the key. */
  date?: string | null;
}

/** The turn as a third-person statement with its dates spelled out (see the file comment). */
export function statementKey(input: StatementKeyInput): string {
  let text = input.text;
  for (const [pattern, replacement] of pronounRules(input.speaker, input.addressee))
    text = text.replace(pattern, replacement);
  const day = dayOf(input.date);
  if (day === null) return `${input.speaker}: ${text}`;
  const dates = new Set([spokenDate(dateOfDay(day))]);
  for (const r of timeRanges(input.text, day))
    if (r.from === r.to) dates.add(spokenDate(dateOfDay(r.from)));
    else if (r.to - r.from <= 31)
      dates.add(`${spokenDate(dateOfDay(r.from))} to ${spokenDate(dateOfDay(r.to))}`);
  return `${input.speaker}: ${text} (${[...dates].join('; ')})`;
}
