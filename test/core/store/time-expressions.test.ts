import { describe, expect, it } from 'vitest';
import { asksForTime, dateOfDay, dayOf, overlaps, timeRanges } from '../../../src/core/index.ts';

const ANCHOR = dayOf('2023-05-08')!; // a Monday
const spans = (text: string, anchor: number | null = ANCHOR) =>
  timeRanges(text, anchor).map((r) => `${dateOfDay(r.from)}..${dateOfDay(r.to)}`);

describe('dayOf', () => {
  it('reads YYYY-MM-DD and the date of a longer ISO text, null otherwise', () => {
    expect(dateOfDay(dayOf('2023-05-08T10:00:00Z')!)).toBe('2023-05-08');
    expect([dayOf(null), dayOf('8 May 2023')]).toEqual([null, null]);
  });
});

describe('timeRanges', () => {
  it.each([
    ['on 7 July, 2023', '2023-07-07..2023-07-07'],
    ['October 13, 2023', '2023-10-13..2023-10-13'],
    ['on 2023-07-07', '2023-07-07..2023-07-07'],
    ['in March 2023', '2023-03-01..2023-03-31'],
    ['in 2022', '2022-01-01..2022-12-31'],
    ['the week before 16 November 2023', '2023-11-09..2023-11-15'],
  ])('resolves the explicit %s without an anchor', (text, range) => {
    expect(spans(text, null)).toEqual([range]);
  });

  it.each([
    ['I went yesterday', '2023-05-07..2023-05-07'],
    ['last Saturday', '2023-05-06..2023-05-06'],
    ['next month', '2023-06-01..2023-06-30'],
    ['a few days ago', '2023-05-04..2023-05-06'],
    ['back in June', '2022-06-01..2022-06-30'],
  ])('resolves the relative %s against the anchor day', (text, range) => {
    expect(spans(text)).toEqual([range]);
  });

  it('finds nothing in text without a time, and no month in the verb "may"', () => {
    expect(spans('May I ask what you painted?')).toEqual([]);
    expect(spans('What year did Tim go?', null)).toEqual([]);
  });
});

describe('overlaps', () => {
  it('is true only when two ranges share a day', () => {
    expect(overlaps([{ from: 1, to: 3 }], [{ from: 3, to: 9 }])).toBe(true);
    expect(overlaps([{ from: 1, to: 3 }], [{ from: 4, to: 9 }])).toBe(false);
  });
});

describe('asksForTime', () => {
  it('recognises when-questions and questions for a date, not others', () => {
    expect(
      ['When did she move?', 'What year was it?', 'How long ago was the trip?'].map(asksForTime),
    ).toEqual([true, true, true]);
    expect(asksForTime('What did she paint when she was young?')).toBe(false);
  });
});
