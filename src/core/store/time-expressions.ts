/**
 * Time expressions in English text, resolved to day ranges: explicit dates (`7 July, 2023`,
 * `October 13, 2023`, `2023-07-07`, `March 2023`, `in 2022`) and, against an anchor day (a turn's
 * session date, or now for a question), relative ones (`yesterday`, `last week`, `two weekends ago`,
 * `next month`, `last Saturday`, `the week before 16 November 2023`). Days are whole UTC days since
 * the epoch. Pure and deterministic: what the retrieval's time-aware expansion matches on.
 */

/** An inclusive range of UTC days since 1970-01-01. */
export interface DayRange {
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_ABBR = MONTHS.map((m) => m.slice(0, 3));
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  couple: 2,
  few: 3,
  several: 3,
};

/** The day of a `YYYY-MM-DD` date (a longer ISO text is cut to its date), or null. */
export function dayOf(date: string | null | undefined): number | null {
  if (!date) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(t) ? null : Math.floor(t / DAY_MS);
}

/** The `YYYY-MM-DD` of a day. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const utcDay = (y: number, m: number, d: number) => Math.floor(Date.UTC(y, m, d) / DAY_MS);
const monthRange = (y: number, m: number): DayRange => ({ from: utcDay(y, m, 1), to: utcDay(y, m + 1, 0) });
const yearRange = (y: number): DayRange => ({ from: utcDay(y, 0, 1), to: utcDay(y, 11, 31) });
const dateParts = (day: number) => {
  const d = new Date(day * DAY_MS);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), wd: d.getUTCDay() };
};

function monthIndex(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  const full = MONTHS.indexOf(w);
  if (full >= 0) return full;
  return w.length >= 3 && w !== 'may' ? MONTH_ABBR.indexOf(w.slice(0, 3)) : -1;
}

const MONTH_RE =
  '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?';
const DAY_RE = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR_RE = '((?:19|20)\\d{2})';

interface Found {
  range: DayRange;
  start: number;
  end: number;
}

/** Explicit dates, months and years, with where they are in the text. */
function explicit(text: string, anchor: number | null): Found[] {
  const out: Found[] = [];
  const taken: [number, number][] = [];
  const free = (s: number, e: number) => taken.every(([a, b]) => e <= a || s >= b);
  const add = (re: RegExp, make: (m: RegExpExecArray) => DayRange | null) => {
    for (const m of text.matchAll(re)) {
      const s = m.index;
      const e = s + m[0].length;
      if (!free(s, e)) continue;
      const range = make(m as RegExpExecArray);
      if (!range || Number.isNaN(range.from)) continue;
      taken.push([s, e]);
      out.push({ range, start: s, end: e });
    }
  };
  const day = (y: number, mo: number, d: number): DayRange | null => {
    if (mo < 0 || d < 1 || d > 31) return null;
    const x = utcDay(y, mo, d);
    return { from: x, to: x };
  };
  add(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => day(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  add(new RegExp(`\\b${DAY_RE}\\s+(?:of\\s+)?${MONTH_RE},?\\s+${YEAR_RE}\\b`, 'gi'), (m) =>
    day(Number(m[3]), monthIndex(m[2]!), Number(m[1])),
  );
  add(new RegExp(`\\b${MONTH_RE}\\s+${DAY_RE},?\\s+${YEAR_RE}\\b`, 'gi'), (m) =>
    day(Number(m[3]), monthIndex(m[1]!), Number(m[2])),
  );
  add(new RegExp(`\\b${MONTH_RE},?\\s+${YEAR_RE}\\b`, 'gi'), (m) => {
    const mo = monthIndex(m[1]!);
    return mo < 0 ? null : monthRange(Number(m[2]), mo);
  });
  if (anchor !== null) {
    const { y } = dateParts(anchor);
    add(new RegExp(`\\b${DAY_RE}\\s+(?:of\\s+)?${MONTH_RE}\\b`, 'gi'), (m) =>
      day(y, monthIndex(m[2]!), Number(m[1])),
    );
    add(new RegExp(`\\b${MONTH_RE}\\s+${DAY_RE}\\b`, 'gi'), (m) => day(y, monthIndex(m[1]!), Number(m[2])));
    // A bare month name: only after "in"/"of"/"since"/"during" ("may" is a verb too).
    add(new RegExp(`\\b(?:in|of|since|during|early|late|mid)\\s+${MONTH_RE}\\b`, 'gi'), (m) => {
      const mo = monthIndex(m[1]!);
      if (mo < 0) return null;
      // The latest such month not after the anchor's month.
      const { m: am } = dateParts(anchor);
      return monthRange(mo > am ? y - 1 : y, mo);
    });
  }
  add(new RegExp(`\\b(?:in|of|since|during|year)\\s+${YEAR_RE}\\b`, 'gi'), (m) => yearRange(Number(m[1])));
  return out;
}

const UNIT_DAYS: Record<string, number> = { day: 1, night: 1, week: 7, weekend: 7, month: 30, year: 365 };

/** Relative expressions against the anchor day. */
function relative(text: string, anchor: number): DayRange[] {
  const out: DayRange[] = [];
  const t = text.toLowerCase();
  const { y, m, wd } = dateParts(anchor);
  const at = (from: number, to = from) => out.push({ from, to });
  if (/\byesterday\b/.test(t) || /\blast night\b/.test(t)) at(anchor - 1);
  if (/\b(today|tonight|this (morning|afternoon|evening))\b/.test(t)) at(anchor);
  if (/\btomorrow\b/.test(t)) at(anchor + 1);
  // The calendar week before the anchor's, up to the day before (speech is loose about it).
  if (/\b(last|past) week\b/.test(t)) at(anchor - wd - 7, anchor - 1);
  if (/\b(last|this past|past) weekend\b/.test(t)) {
    const sat = anchor - ((wd + 1) % 7 || 7);
    at(sat - 1, sat + 1);
  }
  if (/\bthis week\b/.test(t)) at(anchor - wd, anchor - wd + 6);
  if (/\bnext week\b/.test(t)) at(anchor - wd + 7, anchor - wd + 13);
  if (/\bnext weekend\b/.test(t)) {
    const sat = anchor + (6 - wd || 7);
    at(sat - 1, sat + 1);
  }
  if (/\blast month\b/.test(t)) out.push(monthRange(y, m - 1));
  if (/\bthis month\b/.test(t)) out.push(monthRange(y, m));
  if (/\bnext month\b/.test(t)) out.push(monthRange(y, m + 1));
  if (/\blast year\b/.test(t)) out.push(yearRange(y - 1));
  if (/\bthis year\b/.test(t)) out.push(yearRange(y));
  if (/\bnext year\b/.test(t)) out.push(yearRange(y + 1));
  for (const x of t.matchAll(
    /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple|few|several)(?: of)? (day|night|week|weekend|month|year)s? ago\b/g,
  )) {
    const n = NUMBERS[x[1]!] ?? Number(x[1]);
    const span = UNIT_DAYS[x[2]!]!;
    const back = anchor - n * span;
    at(back - Math.ceil(span / 2), Math.min(anchor - 1, back + Math.ceil(span / 2)));
  }
  for (const x of t.matchAll(
    /\b(last|this past|on) (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/g,
  )) {
    const target = WEEKDAYS.indexOf(x[2]!);
    const back = (wd - target + 7) % 7 || 7;
    at(anchor - back);
  }
  return out;
}

/** `the week/weekend/day/month before <date>`: the span before an explicit date. */
function before(text: string, found: readonly Found[], used: Set<Found>): DayRange[] {
  const out: DayRange[] = [];
  for (const f of found) {
    const head = text.slice(Math.max(0, f.start - 40), f.start).toLowerCase();
    const m = /\b(?:the\s+)?(day|week|weekend|month)\s+(before|after)\s+(?:on\s+)?$/.exec(head);
    if (!m) continue;
    const span = UNIT_DAYS[m[1]!]!;
    used.add(f);
    out.push(
      m[2] === 'before'
        ? { from: f.range.from - span, to: f.range.from - 1 }
        : { from: f.range.to + 1, to: f.range.to + span },
    );
  }
  return out;
}

/**
 * Every time expression of the text as a day range. `anchor` (a day, see `dayOf`) resolves
 * relative expressions and dates without a year; without it only explicit dates count.
 */
export function timeRanges(text: string, anchor: number | null = null): DayRange[] {
  const found = explicit(text, anchor);
  const used = new Set<Found>();
  const ranges = before(text, found, used);
  for (const f of found) if (!used.has(f)) ranges.push(f.range);
  if (anchor !== null) ranges.push(...relative(text, anchor));
  return ranges;
}

/** Whether any range of `a` overlaps any of `b`. */
export function overlaps(a: readonly DayRange[], b: readonly DayRange[]): boolean {
  for (const x of a) for (const y of b) if (x.from <= y.to && y.from <= x.to) return true;
  return false;
}

/** Whether a question asks for a time (`When did…`, `What year…`, `How long ago…`). */
export function asksForTime(text: string): boolean {
  return (
    /^\s*when\b/i.test(text) ||
    /\b(what|which) (date|day|month|year|time|week)\b/i.test(text) ||
    /\bhow long ago\b/i.test(text)
  );
}
