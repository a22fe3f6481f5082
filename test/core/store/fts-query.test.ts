import { describe, expect, it } from 'vitest';
import { cjkBigrams, cjkRuns, toFtsQuery } from '../../../src/core/index.ts';

describe('toFtsQuery', () => {
  it.each([
    ['say "hello" world', '"say" OR "hello" OR "world"'],
    ['NEAR(a b)', '"near" OR "a" OR "b"'],
    ['deploy* -prod', '"deploy" OR "prod"'],
    ['(x OR y) AND z:w ^q', '"x" OR "or" OR "y" OR "and" OR "z" OR "w" OR "q"'],
    ['Café naïve café', '"café" OR "naïve"'],
    ['  *** ', ''],
  ])('quotes every token when the text is %j', (text, expected) => {
    expect(toFtsQuery(text)).toBe(expected);
  });
});

describe('cjkRuns', () => {
  it('keeps runs of at least two CJK characters when mixed with Latin text', () => {
    expect(cjkRuns('用 docker 部署服务 和 a 我')).toEqual(['部署服务']);
  });
});

describe('cjkBigrams', () => {
  it('returns the overlapping bigrams of each run', () => {
    expect(cjkBigrams('部署服务')).toEqual(['部署', '署服', '服务']);
  });
});
